package agentctx

import (
	"testing"
)

func TestParseDataLike(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		kind     string
		instance string
		value    string // JSON of Value, "" = no value
		schema   string
		method   Method
		path     string
		code     Code
	}{
		{name: "named field", in: `{"type":"state","state":{"a":1}}`, kind: "state", value: `{"a":1}`},
		{name: "inline", in: `{"type":"state","currentUser":{"id":"u"},"n":2}`, kind: "state", value: `{"currentUser":{"id":"u"},"n":2}`},
		{name: "data kind default", in: `{"type":"data","user":{"name":"Alex"}}`, kind: "data", value: `{"user":{"name":"Alex"}}`},
		{name: "data with kind, named", in: `{"type":"data","kind":"user","data":{"age":30}}`, kind: "user", value: `{"age":30}`},
		{name: "reserved keys never in value", in: `{"type":"input","_instance":"①","schema":{"type":"object"},"description":"d","comment":"hi"}`,
			kind: "input", instance: "①", value: `{"comment":"hi"}`, schema: `{"type":"object"}`},
		{name: "hidden keys never in value", in: `{"type":"data","kind":"user","_path":"a.b","data":"x","_outputMethod":"push","_call":{"toolId":"t1","tool":"f","turn":2,"index":0},"_date":"2026-01-01T00:00:00Z"}`,
			kind: "user", value: `"x"`, method: MethodPush, path: "a.b"},
		{name: "state write uses data field", in: `{"type":"state","_path":"log","data":["a"],"_outputMethod":"set"}`, kind: "state", value: `["a"]`, method: MethodSet, path: "log"},
		{name: "path without method defaults to set", in: `{"type":"state","_path":"x","data":1}`, kind: "state", value: `1`, method: MethodSet, path: "x"},
		{name: "null value kept", in: `{"type":"state","state":null}`, kind: "state", value: `null`},
		{name: "schema only, no value", in: `{"type":"state","schema":{"type":"object"}}`, kind: "state", schema: `{"type":"object"}`},
		{name: "null instance is global", in: `{"type":"state","_instance":null,"a":1}`, kind: "state", value: `{"a":1}`},
		{name: "both forms", in: `{"type":"state","state":{"a":1},"b":2}`, code: CodeMessageInvalid},
		{name: "state write with both fields", in: `{"type":"state","_path":"x","_outputMethod":"set","state":1,"data":2}`, code: CodeMessageInvalid},
		{name: "input is read-only", in: `{"type":"input","_path":"a","_outputMethod":"set","data":1}`, code: CodePathNotWritable},
		{name: "assign reserved", in: `{"type":"state","_path":"a","_outputMethod":"assign","data":1}`, code: CodeMethodUnsupported},
		{name: "concat reserved", in: `{"type":"data","kind":"k","_path":"a","_outputMethod":"concat","data":[1]}`, code: CodeMethodUnsupported},
		{name: "unknown method", in: `{"type":"state","_path":"a","_outputMethod":"append","data":1}`, code: CodeMethodUnsupported},
		{name: "bad _path", in: `{"type":"state","_path":"a..b","_outputMethod":"set","data":1}`, code: CodeMessageInvalid},
		{name: "kind on state", in: `{"type":"state","kind":"user","a":1}`, code: CodeMessageInvalid},
		{name: "bad kind", in: `{"type":"data","kind":"1x","a":1}`, code: CodeMessageInvalid},
		{name: "instance not a string", in: `{"type":"state","_instance":3,"a":1}`, code: CodeMessageInvalid},
		{name: "unknown type", in: `{"type":"weird"}`, code: CodeMessageInvalid},
		{name: "missing type", in: `{"a":1}`, code: CodeMessageInvalid},
		{name: "not an object", in: `[1]`, code: CodeMessageInvalid},
		{name: "trailing data", in: `{"type":"state"} {}`, code: CodeMessageInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := ParseMessage([]byte(tt.in))
			wantCode(t, err, tt.code)
			if tt.code != "" {
				return
			}
			if m.Kind != tt.kind || m.Instance != tt.instance || m.OutputMethod != tt.method || m.Path != tt.path {
				t.Fatalf("got kind=%q instance=%q method=%q path=%q", m.Kind, m.Instance, m.OutputMethod, m.Path)
			}
			if tt.value == "" {
				if m.HasValue {
					t.Fatalf("HasValue = true, value %s", jsonOf(t, m.Value))
				}
			} else if !m.HasValue || jsonOf(t, m.Value) != tt.value {
				t.Fatalf("value = %s (has %v), want %s", jsonOf(t, m.Value), m.HasValue, tt.value)
			}
			if tt.schema != "" && jsonOf(t, m.Schema) != tt.schema {
				t.Fatalf("schema = %s, want %s", jsonOf(t, m.Schema), tt.schema)
			}
		})
	}
}

func TestParseHiddenCall(t *testing.T) {
	m, err := ParseMessage([]byte(`{"type":"data","kind":"user","_path":"a","data":1,"_outputMethod":"set","_call":{"toolId":"t1","tool":"f","turn":2,"index":3},"_date":"D"}`))
	wantCode(t, err, "")
	if m.Call == nil || *m.Call != (CallRef{ToolID: "t1", Tool: "f", Turn: 2, Index: 3}) || m.Date != "D" {
		t.Fatalf("call = %+v date = %q", m.Call, m.Date)
	}
}

func TestParseAdvisorAliases(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		role   string
		schema string
		on     string // "-" = unset
		code   Code
	}{
		{name: "primary names", in: `{"type":"advisor","id":"r","on":"request","role":"Risk lens","schema":{"type":"object"}}`, role: "Risk lens", schema: `{"type":"object"}`, on: "request"},
		{name: "persona and answer aliases", in: `{"type":"advisor","id":"r","persona":"Risk lens","answer":{"type":"string"}}`, role: "Risk lens", schema: `{"type":"string"}`, on: "-"},
		{name: "kind advisor alias", in: `{"kind":"advisor","id":"r","role":"x"}`, role: "x", on: "-"},
		{name: "type data kind advisor", in: `{"type":"data","kind":"advisor","id":"r","role":"x"}`, role: "x", on: "-"},
		{name: "on null is unset", in: `{"type":"advisor","id":"r","on":null}`, on: "-"},
		{name: "role and persona", in: `{"type":"advisor","id":"r","role":"a","persona":"b"}`, code: CodeMessageInvalid},
		{name: "schema and answer", in: `{"type":"advisor","id":"r","schema":{},"answer":{}}`, code: CodeMessageInvalid},
		{name: "missing id", in: `{"type":"advisor","role":"a"}`, code: CodeMessageInvalid},
		{name: "bad weight", in: `{"type":"advisor","id":"r","weight":"high"}`, code: CodeMessageInvalid},
		{name: "bad scopes", in: `{"type":"advisor","id":"r","scopes":[1]}`, code: CodeMessageInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := ParseMessage([]byte(tt.in))
			wantCode(t, err, tt.code)
			if tt.code != "" {
				return
			}
			p := m.Advisor
			if m.Type != TypeAdvisor || p == nil || p.ID != "r" {
				t.Fatalf("not an advisor: %+v", m)
			}
			if tt.role != "" && (p.Role == nil || *p.Role != tt.role) {
				t.Fatalf("role = %v, want %q", p.Role, tt.role)
			}
			if tt.schema != "" && (!p.HasSchema || jsonOf(t, p.Schema) != tt.schema) {
				t.Fatalf("schema = %v", p.Schema)
			}
			if tt.on == "-" && p.On != nil || tt.on != "-" && (p.On == nil || *p.On != tt.on) {
				t.Fatalf("on = %v, want %q", p.On, tt.on)
			}
		})
	}
}

func TestParseOtherTypes(t *testing.T) {
	c := mustContext(t, `[
		{"type":"system","message":"You are a translator."},
		{"type":"text","text":"hello"},
		{"type":"tool","tool":{"a":{"type":"object"},"b":{}}},
		{"type":"tool","ref":"registered"},
		{"type":"advice","id":"r","instance":"①","turn":2,"opinion":{"thought":"t"},"weights":{"delay":95},"rawCalls":"x","warnings":["w"]},
		{"type":"error","data":{"turn":1,"call":{"index":0,"_tool":"f"},"code":"unknown_tool","message":"m"}}
	]`)
	if c[0].Text != "You are a translator." || c[1].Text != "hello" {
		t.Fatalf("texts = %q %q", c[0].Text, c[1].Text)
	}
	if len(c[2].Tools) != 2 || c[2].Tools[1].Name != "b" || c[3].Tools[0].Ref != "registered" {
		t.Fatalf("tools = %+v %+v", c[2].Tools, c[3].Tools)
	}
	if a := c[4].Advice; a.ID != "r" || a.Instance != "①" || a.Turn != 2 || jsonOf(t, a.Weights) != `{"delay":95}` || a.Warnings[0] != "w" {
		t.Fatalf("advice = %+v", a)
	}
	if e := c[5].Error; e.Code != "unknown_tool" || e.Turn != 1 || jsonOf(t, e.Call) != `{"index":0,"_tool":"f"}` {
		t.Fatalf("error = %+v", e)
	}
	for _, bad := range []string{
		`{"type":"tool","tool":{"a":{}},"ref":"a"}`,
		`{"type":"tool"}`,
		`{"type":"error","data":"x"}`,
		`{"type":"advice","id":"r","turn":1.5}`,
		`{"type":"system","message":3}`,
	} {
		_, err := ParseMessage([]byte(bad))
		wantCode(t, err, CodeMessageInvalid)
	}
}

func TestMessageRoundTrip(t *testing.T) {
	in := []string{
		`{"type":"data","kind":"user","_instance":"①","data":{"name":"x"},"schema":{"type":"object"},"description":"d"}`,
		`{"type":"state","state":{"a":[1,true,null,"<b>"]}}`,
		`{"type":"data","kind":"data","_path":"user.status","data":"inactive","_outputMethod":"set","_call":{"toolId":"t1","tool":"updateUserStatus","turn":1,"index":0},"_date":"2026-01-05T10:00:00Z"}`,
		`{"type":"state","_path":"log","_outputMethod":"erase","_call":{"toolId":"t","tool":"f","turn":1,"index":2}}`,
		`{"type":"system","message":"s"}`,
		`{"type":"text","text":"t"}`,
		`{"type":"tool","tool":{"lookup":{"q":{"type":"string"}}}}`,
		`{"type":"tool","ref":"r"}`,
		`{"type":"advisor","id":"r","on":"request","role":"x","schema":{},"scopes":["input"],"isInstanced":true,"weight":2}`,
		`{"type":"advice","id":"r","instance":"①","turn":1,"opinion":{"t":1},"weights":{},"rawCalls":"x","warnings":["w"]}`,
		`{"type":"error","data":{"turn":1,"call":{"index":0},"code":"c","message":"m","details":{"p":"/x"}}}`,
	}
	for _, js := range in {
		m, err := ParseMessage([]byte(js))
		wantCode(t, err, "")
		if got := jsonOf(t, m); got != js {
			t.Errorf("round trip:\n got %s\nwant %s", got, js)
		}
	}
}
