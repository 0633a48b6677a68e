package agentctx

import (
	"testing"
	"time"
)

// D1: two data kind:user messages fold by root-level deep merge; the schema is kept.
func TestFoldD1RootMerge(t *testing.T) {
	c := mustContext(t, `[
		{"type":"data","kind":"user","data":{"name":"John Doe"},"schema":{"type":"object","properties":{"name":{"type":"string"}}}},
		{"type":"data","kind":"user","data":{"age":30}}
	]`)
	f := c.Fold("user", "")
	if !f.Exists || jsonOf(t, f.Value) != `{"name":"John Doe","age":30}` {
		t.Fatalf("D1 value = %s", jsonOf(t, f.Value))
	}
	if jsonOf(t, f.Schema) != `{"type":"object","properties":{"name":{"type":"string"}}}` {
		t.Fatalf("D1 schema = %s", jsonOf(t, f.Schema))
	}
	if got := c.Kinds(); len(got) != 1 || got[0] != "user" {
		t.Fatalf("kinds = %v", got)
	}
}

func TestFoldRootMergeDeep(t *testing.T) {
	c := mustContext(t, `[
		{"type":"state","cfg":{"a":1,"b":{"c":1}},"list":[1]},
		{"type":"state","cfg":{"b":{"d":2}},"list":[2]},
		{"type":"state","cfg":{"a":"x"}}
	]`)
	if got := jsonOf(t, c.Fold("state", "").Value); got != `{"cfg":{"a":"x","b":{"c":1,"d":2}},"list":[2]}` {
		t.Fatalf("fold = %s", got)
	}
	if got := jsonOf(t, c[0].Value); got != `{"cfg":{"a":1,"b":{"c":1}},"list":[1]}` {
		t.Fatalf("fold modified the message: %s", got)
	}
}

func write(t *testing.T, path string, method Method, value any) Message {
	t.Helper()
	p, err := ParseOutputPath(path)
	wantCode(t, err, "")
	m, err := Write{Path: p, Method: method, Value: value, Call: CallRef{ToolID: "t", Tool: "f", Turn: 1}}.Message()
	wantCode(t, err, "")
	return m
}

// O2: replay of set / push / erase / merge, checked after each write.
func TestVectorO2_FoldReplay(t *testing.T) {
	log := []Message{
		write(t, "†state.log", MethodPush, "a"),
		write(t, "†state.log", MethodPush, "b"),
		write(t, "†state.log", MethodSet, []any{"x"}),
		write(t, "†state.log", MethodPush, "c"),
		write(t, "†state.log", MethodErase, nil),
		write(t, "†state.log", MethodPush, "d"),
	}
	want := []string{`["a"]`, `["a","b"]`, `["x"]`, `["x","c"]`, "<absent>", `["d"]`}
	for n := 1; n <= len(log); n++ {
		v := Context(log[:n]).View("")
		if got := readJSON(t, v, "†state.log"); got != want[n-1] {
			t.Errorf("O2 after %d writes: got %s, want %s", n, got, want[n-1])
		}
	}
	cfg := Context{
		write(t, "†state.cfg", MethodSet, mustDecode(t, `{"a":1,"b":{"c":1}}`)),
		write(t, "†state.cfg", "merge", mustDecode(t, `{"b":{"d":2}}`)),
	}
	if got := readJSON(t, cfg.View(""), "†state.cfg"); got != `{"a":1,"b":{"c":1,"d":2}}` {
		t.Fatalf("O2 cfg = %s", got)
	}
}

// O1 (fold part): a set write over an initial data message.
func TestFoldO1WriteOverInitial(t *testing.T) {
	c := mustContext(t, `[{"type":"data","user":{"name":"Alex","status":"active"}}]`)
	m, err := Write{Path: mustPath(t, "†data.user.status"), Value: "inactive",
		Call: CallRef{ToolID: "t1", Tool: "updateUserStatus", Turn: 1}, Date: time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)}.Message()
	wantCode(t, err, "")
	want := `{"type":"data","kind":"data","_path":"user.status","data":"inactive","_outputMethod":"set","_call":{"toolId":"t1","tool":"updateUserStatus","turn":1,"index":0},"_date":"2026-01-05T10:00:00Z"}`
	if got := jsonOf(t, m); got != want {
		t.Fatalf("O1 write message:\n got %s\nwant %s", got, want)
	}
	v := append(c, m).View("")
	if got := readJSON(t, v, "†data.user.status"); got != `"inactive"` {
		t.Fatalf("O1 user.status = %s", got)
	}
	if got := readJSON(t, v, "†data.user.name"); got != `"Alex"` {
		t.Fatalf("O1 user.name = %s", got)
	}
}

func TestFoldMethods(t *testing.T) {
	tests := []struct {
		name  string
		ctx   string
		path  string
		want  string
		warns []Code
	}{
		{name: "set creates intermediate objects", ctx: `[{"type":"state","_path":"a.b.c","_outputMethod":"set","data":1}]`, path: "†state", want: `{"a":{"b":{"c":1}}}`},
		{name: "set replaces a scalar on the way", ctx: `[{"type":"state","a":5},{"type":"state","_path":"a.b","_outputMethod":"set","data":1}]`, path: "†state.a", want: `{"b":1}`},
		{name: "set at the root", ctx: `[{"type":"state","a":5},{"type":"state","_path":"","_outputMethod":"set","data":{"z":1}}]`, path: "†state", want: `{"z":1}`},
		{name: "set null exists", ctx: `[{"type":"state","_path":"a","_outputMethod":"set","data":null}]`, path: "†state.a", want: `null`},
		{name: "merge non-object replaces", ctx: `[{"type":"state","a":{"x":1}},{"type":"state","_path":"a","_outputMethod":"merge","data":[1]}]`, path: "†state.a", want: `[1]`},
		{name: "merge onto scalar replaces", ctx: `[{"type":"state","a":3},{"type":"state","_path":"a","_outputMethod":"merge","data":{"x":1}}]`, path: "†state.a", want: `{"x":1}`},
		{name: "merge onto absent", ctx: `[{"type":"state","_path":"a","_outputMethod":"merge","data":{"x":1}}]`, path: "†state.a", want: `{"x":1}`},
		{name: "push on non-array skipped", ctx: `[{"type":"state","a":"s"},{"type":"state","_path":"a","_outputMethod":"push","data":1}]`, path: "†state.a", want: `"s"`, warns: []Code{WarnPushOnNonArray}},
		{name: "push on null skipped", ctx: `[{"type":"state","a":null},{"type":"state","_path":"a","_outputMethod":"push","data":1}]`, path: "†state.a", want: `null`, warns: []Code{WarnPushOnNonArray}},
		{name: "erase missing is a no-op", ctx: `[{"type":"state","a":1},{"type":"state","_path":"b.c","_outputMethod":"erase"}]`, path: "†state", want: `{"a":1}`},
		{name: "erase the root", ctx: `[{"type":"state","a":1},{"type":"state","_path":"","_outputMethod":"erase"}]`, path: "†state", want: "<absent>"},
		{name: "set into array element", ctx: `[{"type":"state","a":[1,2,3]},{"type":"state","_path":"a.-1","_outputMethod":"set","data":9}]`, path: "†state.a", want: `[1,2,9]`},
		{name: "erase array element", ctx: `[{"type":"state","a":[1,2,3]},{"type":"state","_path":"a.0","_outputMethod":"erase"}]`, path: "†state.a", want: `[2,3]`},
		{name: "key through array skipped", ctx: `[{"type":"state","a":[1]},{"type":"state","_path":"a.x","_outputMethod":"set","data":9}]`, path: "†state.a", want: `[1]`, warns: []Code{WarnPathNotTraversable}},
		{name: "root merge after write", ctx: `[{"type":"state","_path":"a","_outputMethod":"push","data":1},{"type":"state","b":2}]`, path: "†state", want: `{"a":[1],"b":2}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustContext(t, tt.ctx)
			v := c.View("")
			if got := readJSON(t, v, tt.path); got != tt.want {
				t.Fatalf("read %s = %s, want %s", tt.path, got, tt.want)
			}
			f, _ := v.Kind("state")
			if len(f.Warnings) != len(tt.warns) {
				t.Fatalf("warnings = %+v, want %v", f.Warnings, tt.warns)
			}
			for i, w := range tt.warns {
				if f.Warnings[i].Code != w || f.Warnings[i].Index != 1 {
					t.Fatalf("warning %d = %+v, want %s at message 1", i, f.Warnings[i], w)
				}
			}
		})
	}
}

// I2: instances never merge with each other; global untouched.
func TestFoldI2Instances(t *testing.T) {
	c := mustContext(t, `[
		{"type":"input","message":"Give employee B a high-priority task: prepare the Q3 report."},
		{"type":"state","_instance":"employee_A","tasks":[]},
		{"type":"state","_instance":"employee_B","tasks":[]}
	]`)
	m, err := Write{Path: mustPath(t, "†state.tasks"), Instance: "employee_B", Method: MethodPush,
		Value: NewObject("task", "Prepare the Q3 report", "priority", "high")}.Message()
	wantCode(t, err, "")
	c = append(c, m)
	if got := c.Instances(); len(got) != 2 || got[0] != "employee_A" || got[1] != "employee_B" {
		t.Fatalf("instances = %v", got)
	}
	b, a, g := c.View("employee_B"), c.View("employee_A"), c.View("")
	if got := readJSON(t, b, "†state.tasks"); got != `[{"task":"Prepare the Q3 report","priority":"high"}]` {
		t.Fatalf("I2 B tasks = %s", got)
	}
	if got := readJSON(t, a, "†state.tasks"); got != `[]` {
		t.Fatalf("I2 A tasks = %s", got)
	}
	if got := readJSON(t, g, "†state.tasks"); got != "<absent>" {
		t.Fatalf("I2 global state = %s", got)
	}
	if got := readJSON(t, b, "†input.message"); got != `"Give employee B a high-priority task: prepare the Q3 report."` {
		t.Fatalf("I2 B sees global input: %s", got)
	}
	if got := b.Kinds(); len(got) != 2 || got[0] != "input" || got[1] != "state" {
		t.Fatalf("B kinds = %v", got)
	}
}

// §1.3: the view for X is global ⊕ X, X winning (a targeted input overrides the global one).
func TestViewInstanceWins(t *testing.T) {
	c := mustContext(t, `[
		{"type":"input","a":1,"b":{"x":1,"y":1},"schema":{"g":1}},
		{"type":"input","_instance":"X","b":{"y":2}},
		{"type":"input","_instance":"Y","c":3}
	]`)
	f, _ := c.View("X").Kind("input")
	if got := jsonOf(t, f.Value); got != `{"a":1,"b":{"x":1,"y":2}}` || jsonOf(t, f.Schema) != `{"g":1}` {
		t.Fatalf("view X = %s schema %s", got, jsonOf(t, f.Schema))
	}
	if got := jsonOf(t, c.Fold("input", "").Value); got != `{"a":1,"b":{"x":1,"y":1}}` {
		t.Fatalf("global modified by view: %s", got)
	}
}

// T3: the later definition of lookup wins at the position of the first.
func TestToolsT3(t *testing.T) {
	c := mustContext(t, `[
		{"type":"tool","tool":{"lookup":{"type":"object","properties":{"q":{"type":"string"}}}}},
		{"type":"tool","tool":{"other":{}}},
		{"type":"tool","tool":{"lookup":{"type":"object","properties":{"query":{"type":"string"}}}}}
	]`)
	tools := c.Tools()
	if len(tools) != 2 || tools[0].Name != "lookup" || tools[1].Name != "other" {
		t.Fatalf("T3 tools = %+v", tools)
	}
	if got := jsonOf(t, tools[0].Schema); got != `{"type":"object","properties":{"query":{"type":"string"}}}` {
		t.Fatalf("T3 lookup schema = %s", got)
	}
}

const a2 = `{"type":"advisor","id":"riskAnalyst","on":"request","persona":"Risk lens"},
	{"type":"advisor","id":"riskAnalyst","answer":{"type":"object","properties":{"score":{"type":"number"}},"required":["score"]}}`

// A2 (fold part) and A3: field-by-field patches; `on` set once.
func TestAdvisorsA2A3(t *testing.T) {
	tests := []struct {
		name    string
		extra   string
		on      string
		role    string
		weight  float64
		errCode Code
	}{
		{name: "A2 fold", on: "request", role: "Risk lens", weight: 1},
		{name: "A3a on conflict", extra: `,{"type":"advisor","id":"riskAnalyst","on":"finish","weight":2}`, on: "request", role: "Risk lens", weight: 2, errCode: CodeAdvisorOnConflict},
		{name: "A3b redeclared role", extra: `,{"kind":"advisor","id":"riskAnalyst","role":"New lens"}`, on: "request", role: "New lens", weight: 1},
		{name: "same on is no conflict", extra: `,{"type":"advisor","id":"riskAnalyst","on":"request"}`, on: "request", role: "Risk lens", weight: 1},
		{name: "on null keeps value", extra: `,{"type":"advisor","id":"riskAnalyst","on":null}`, on: "request", role: "Risk lens", weight: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			advisors, errs := mustContext(t, "["+a2+tt.extra+"]").Advisors()
			if len(advisors) != 1 {
				t.Fatalf("advisors = %+v", advisors)
			}
			a := advisors[0]
			if a.On != tt.on || a.Role != tt.role || a.Weight != tt.weight {
				t.Fatalf("advisor = %+v", a)
			}
			if got := jsonOf(t, a.Schema); got != `{"type":"object","properties":{"score":{"type":"number"}},"required":["score"]}` {
				t.Fatalf("schema = %s", got)
			}
			if tt.errCode == "" && len(errs) != 0 || tt.errCode != "" && len(errs) != 1 {
				t.Fatalf("errs = %v, want %s", errs, tt.errCode)
			}
			if tt.errCode != "" {
				wantCode(t, errs[0], tt.errCode)
			}
		})
	}
}

func TestAdvisorOnFromUnset(t *testing.T) {
	advisors, errs := mustContext(t, `[{"type":"advisor","id":"legal"},{"type":"advisor","id":"legal","on":"finish"}]`).Advisors()
	if len(errs) != 0 || advisors[0].On != "finish" {
		t.Fatalf("advisor = %+v errs %v", advisors, errs)
	}
}

func TestLatestAdvice(t *testing.T) {
	c := mustContext(t, `[
		{"type":"advice","id":"r","turn":1,"opinion":{},"weights":{"a":1}},
		{"type":"advice","id":"r","instance":"①","turn":1,"opinion":{},"weights":{"a":2}},
		{"type":"advice","id":"r","turn":2,"opinion":{},"weights":{"a":3}}
	]`)
	got := c.LatestAdvice()
	if len(got) != 2 || got[0].Turn != 2 || jsonOf(t, got[0].Weights) != `{"a":3}` || got[1].Instance != "①" {
		t.Fatalf("advice = %+v", got)
	}
}
