package agentctx

import (
	"slices"
	"testing"
)

func TestParsePath(t *testing.T) {
	tests := []struct {
		in       string
		kind     string
		segs     []string
		code     Code
		outCode  Code // ParseOutputPath
		isRefWan bool
	}{
		{in: "†state", kind: "state", isRefWan: true},
		{in: "†state.found", kind: "state", segs: []string{"found"}, isRefWan: true},
		{in: "†data.user.status", kind: "data", segs: []string{"user", "status"}, isRefWan: true},
		{in: "†_grants.a-b.-1.0", kind: "_grants", segs: []string{"a-b", "-1", "0"}, isRefWan: true},
		{in: "†input.customerId", kind: "input", segs: []string{"customerId"}, outCode: CodePathNotWritable, isRefWan: true},
		{in: "state.x", code: CodePathInvalid, outCode: CodePathNotWritable},
		{in: "†1state", code: CodePathInvalid, outCode: CodePathNotWritable},
		{in: "†state.", code: CodePathInvalid, outCode: CodePathNotWritable},
		{in: "†state..a", code: CodePathInvalid, outCode: CodePathNotWritable},
		{in: "†state.a b", code: CodePathInvalid, outCode: CodePathNotWritable},
		{in: " †state", code: CodePathInvalid, outCode: CodePathNotWritable},
		{in: "", code: CodePathInvalid, outCode: CodePathNotWritable},
		{in: "†input.optionalData || †state.defaultData", code: CodeExpressionUnsupported, outCode: CodeExpressionUnsupported},
		{in: "†state.userProfile && †state.permissions", code: CodeExpressionUnsupported, outCode: CodeExpressionUnsupported},
		{in: "†state.a <|> †state.b", code: CodeExpressionUnsupported, outCode: CodeExpressionUnsupported},
		{in: "†state.a *> †state.b", code: CodeExpressionUnsupported, outCode: CodeExpressionUnsupported},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			p, err := ParsePath(tt.in)
			wantCode(t, err, tt.code)
			if IsReference(tt.in) != tt.isRefWan {
				t.Fatalf("IsReference = %v", !tt.isRefWan)
			}
			_, err = ParseOutputPath(tt.in)
			wantCode(t, err, tt.outCode)
			if tt.code != "" {
				return
			}
			if p.Kind != tt.kind || !slices.Equal(p.Segments, tt.segs) || p.String() != tt.in {
				t.Fatalf("path = %+v (%s)", p, p)
			}
		})
	}
}

func TestReadExistence(t *testing.T) {
	c := mustContext(t, `[
		{"type":"state","f":false,"z":0,"e":"","n":null,"arr":[{"id":1},{"id":2}],"obj":{"0":"key"}}
	]`)
	v := c.View("")
	tests := []struct{ path, want string }{
		{"†state.f", `false`},
		{"†state.z", `0`},
		{"†state.e", `""`},
		{"†state.n", `null`},
		{"†state.arr.0.id", `1`},
		{"†state.arr.-1.id", `2`},
		{"†state.arr.2", "<absent>"},
		{"†state.arr.-2", "<absent>"},
		{"†state.arr.x", "<absent>"},
		{"†state.obj.0", `"key"`},
		{"†state.f.x", "<absent>"},
		{"†state.missing", "<absent>"},
		{"†other", "<absent>"},
	}
	for _, tt := range tests {
		if got := readJSON(t, v, tt.path); got != tt.want {
			t.Errorf("Read(%s) = %s, want %s", tt.path, got, tt.want)
		}
	}
	if _, _, err := ReadString(v, "nope"); err == nil {
		t.Fatal("ReadString accepted a non-path")
	}
	if got, ok, err := ReadString(v, "†state.z"); err != nil || !ok || jsonOf(t, got) != "0" {
		t.Fatalf("ReadString = %v %v %v", got, ok, err)
	}
}

func TestResolve(t *testing.T) {
	c := mustContext(t, `[
		{"type":"input","customerId":"c_9","amount":40},
		{"type":"state","draft":{"text":"Hi"},"flag":false},
		{"type":"state","_instance":"X","flag":true}
	]`)
	tests := []struct {
		name       string
		instance   string
		args       string
		want       string
		unresolved []string
		code       Code
	}{
		{name: "typed values", args: `{"id":"†input.customerId","amount":"†input.amount","draft":"†state.draft","body":"†state.draft.text","flag":"†state.flag","lit":"plain","n":1}`,
			want: `{"id":"c_9","amount":40,"draft":{"text":"Hi"},"body":"Hi","flag":false,"lit":"plain","n":1}`},
		{name: "instance view", instance: "X", args: `{"flag":"†state.flag"}`, want: `{"flag":true}`},
		{name: "nested strings are not references", args: `{"o":{"x":"†state.flag"},"a":["†state.flag"]}`, want: `{"o":{"x":"†state.flag"},"a":["†state.flag"]}`},
		{name: "partial string is not a reference", args: `{"s":"see †state.flag"}`, want: `{"s":"see †state.flag"}`},
		{name: "X8 unresolved", args: `{"x":"†state.nothing","y":"†state.flag"}`, want: `{"x":"†state.nothing","y":false}`, unresolved: []string{"†state.nothing"}},
		{name: "E1 v1 rejects ||", args: `{"value":"†input.optionalData || †state.defaultData"}`, code: CodeExpressionUnsupported},
		{name: "E1 v1 rejects &&", args: `{"value":"†state.userProfile && †state.permissions"}`, code: CodeExpressionUnsupported},
		{name: "alias <|>", args: `{"value":"†a <|> †b"}`, code: CodeExpressionUnsupported},
		{name: "alias *>", args: `{"value":"†a *> †b"}`, code: CodeExpressionUnsupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := mustDecode(t, tt.args).(*Object)
			got, unresolved, err := Resolve(args, c.View(tt.instance))
			wantCode(t, err, tt.code)
			if tt.code != "" {
				return
			}
			if jsonOf(t, got) != tt.want || !slices.Equal(unresolved, tt.unresolved) {
				t.Fatalf("Resolve = %s %v", jsonOf(t, got), unresolved)
			}
			if jsonOf(t, args) != tt.args {
				t.Fatalf("Resolve modified its input: %s", jsonOf(t, args))
			}
		})
	}
	if got, u, err := Resolve(nil, c.View("")); err != nil || got.Len() != 0 || u != nil {
		t.Fatalf("Resolve(nil) = %v %v %v", got, u, err)
	}
}

func TestWriteMessageErrors(t *testing.T) {
	tests := []struct {
		name string
		w    Write
		code Code
	}{
		{name: "input read-only", w: Write{Path: Path{Kind: "input", Segments: []string{"a"}}}, code: CodePathNotWritable},
		{name: "bad kind", w: Write{Path: Path{Kind: "1x"}}, code: CodePathNotWritable},
		{name: "bad segment", w: Write{Path: Path{Kind: "state", Segments: []string{"a.b"}}}, code: CodePathNotWritable},
		{name: "assign", w: Write{Path: Path{Kind: "state"}, Method: MethodAssign}, code: CodeMethodUnsupported},
		{name: "concat", w: Write{Path: Path{Kind: "state"}, Method: MethodConcat}, code: CodeMethodUnsupported},
		{name: "unknown", w: Write{Path: Path{Kind: "state"}, Method: "append"}, code: CodeMethodUnsupported},
		{name: "question kind writable", w: Write{Path: Path{Kind: "question", Segments: []string{"settlementTerms"}}, Method: MethodPush}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := tt.w.Message()
			wantCode(t, err, tt.code)
			if tt.code == "" && (m.Type != TypeData || m.Kind != "question" || m.OutputMethod != MethodPush) {
				t.Fatalf("message = %+v", m)
			}
		})
	}
}

func TestWriteCopiesValue(t *testing.T) {
	val := NewObject("a", []any{"x"})
	m, err := Write{Path: mustPath(t, "†state.v"), Value: val}.Message()
	wantCode(t, err, "")
	val.Set("a", "changed")
	if got := readJSON(t, Context{m}.View(""), "†state.v"); got != `{"a":["x"]}` {
		t.Fatalf("write aliased its value: %s", got)
	}
	if m.Type != TypeState || m.OutputMethod != MethodSet || m.Date != "" {
		t.Fatalf("message = %+v", m)
	}
}

func TestObject(t *testing.T) {
	o := NewObject("b", 1, "a", 2, "c", 3)
	o.Set("b", 9)
	o.Delete("a")
	o.Delete("missing")
	o.Set("a", "<&>")
	if got := jsonOf(t, o); got != `{"b":9,"c":3,"a":"<&>"}` {
		t.Fatalf("object = %s", got)
	}
	if got := jsonOf(t, &Object{}); got != `{}` {
		t.Fatalf("empty object = %s", got)
	}
}
