package protocol

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
)

// The -update flag rewrites the golden files under testdata/compose (it is
// shared with the other test files of the package; whoever comes first
// registers it).
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files")
	}
}

// paGolden compares got (indented for review) with testdata/compose/<name>.
func paGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, json.Indent(&buf, got, "", "  "))
	buf.WriteByte('\n')
	path := filepath.Join("testdata", "compose", name)
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "golden file missing: run go test -run %s -update", t.Name())
	require.Equal(t, string(want), buf.String())
}

// paRegistry is a fake registry: activity names, registered tools, agents.
type paRegistry struct {
	activities map[string]bool
	tools      map[string]ToolDecl
	agents     map[string]*Agent
}

func (r paRegistry) Activity(name string) (Activity, bool) {
	if !r.activities[name] {
		return nil, false
	}
	return ActivityFunc(func(_ context.Context, _ *Call, _ *Tool, _ Scoped) (Result, error) { return Result{}, nil }), true
}
func (r paRegistry) Tool(name string) (ToolDecl, bool) { d, ok := r.tools[name]; return d, ok }
func (r paRegistry) Agent(key string) (*Agent, bool)   { a, ok := r.agents[key]; return a, ok }

func paReg(activities ...string) paRegistry {
	r := paRegistry{activities: map[string]bool{}, tools: map[string]ToolDecl{}, agents: map[string]*Agent{}}
	for _, a := range activities {
		r.activities[a] = true
	}
	return r
}

func paObj(t *testing.T, js string) *agentctx.Object {
	t.Helper()
	v, err := agentctx.Decode([]byte(js))
	require.NoError(t, err, js)
	o, ok := v.(*agentctx.Object)
	require.True(t, ok, "not an object: %s", js)
	return o
}

func paJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := agentctx.Encode(v)
	require.NoError(t, err)
	return string(b)
}

func paCtx(t *testing.T, msgs ...string) agentctx.Context {
	t.Helper()
	c, err := agentctx.ParseContext([]byte("[" + strings.Join(msgs, ",") + "]"))
	require.NoError(t, err)
	return c
}

func paAdvisor(t *testing.T, js string) agentctx.Message {
	t.Helper()
	m, err := agentctx.ParseMessage([]byte(js))
	require.NoError(t, err)
	return m
}

func paTool(t *testing.T, name, kind, params string) ToolDecl {
	t.Helper()
	return ToolDecl{Name: name, FileKind: kind, Parameters: paObj(t, params)}
}

// paAgent builds and normalises an agent.
func paAgent(t *testing.T, a *Agent) *Agent {
	t.Helper()
	if a.Key == "" {
		a.Key = "test"
	}
	require.NoError(t, a.Normalize())
	return a
}

func paCompose(t *testing.T, a *Agent, c agentctx.Context, ti TurnInfo, reg Registry) *Composition {
	t.Helper()
	if ti.Turn == 0 {
		ti.Turn = 1
	}
	comp, err := Compose(a, c, ti, reg)
	require.NoError(t, err)
	return comp
}

// paAt reads a path of keys through ordered objects ("properties.calls").
func paAt(t *testing.T, v any, path string) any {
	t.Helper()
	cur := v
	for _, k := range strings.Split(path, ".") {
		o, ok := cur.(*agentctx.Object)
		require.True(t, ok, "%s: %q is not inside an object", path, k)
		cur, ok = o.Get(k)
		require.True(t, ok, "%s: no key %q", path, k)
	}
	return cur
}

func paKeys(t *testing.T, v any) []string {
	t.Helper()
	o, ok := v.(*agentctx.Object)
	require.True(t, ok)
	return append([]string(nil), o.Keys()...)
}

// paCheckStrict asserts W1 on every object schema of a wire schema: an
// additionalProperties:false and every property required, in order.
func paCheckStrict(t *testing.T, s any, where string) {
	t.Helper()
	switch v := s.(type) {
	case *agentctx.Object:
		if props, ok := v.Get("properties"); ok {
			ap, _ := v.Get("additionalProperties")
			require.Equal(t, false, ap, "%s: additionalProperties", where)
			req, _ := v.Get("required")
			require.Equal(t, stringsToAny(props.(*agentctx.Object).Keys()), req, "%s: required", where)
		}
		for _, k := range v.Keys() {
			if k == "enum" || k == "required" {
				continue
			}
			e, _ := v.Get(k)
			paCheckStrict(t, e, where+"."+k)
		}
	case []any:
		for _, e := range v {
			paCheckStrict(t, e, where+"[]")
		}
	}
}

func t1Agent(t *testing.T) *Agent {
	return paAgent(t, &Agent{
		OutputSchema: paObj(t, `{"type":"object","properties":{"summary":{"type":"string"}},"required":["summary"]}`),
		Tools: []ToolDecl{paTool(t, "greetUser", "backend",
			`{"type":"object","properties":{"userName":{"type":"string"}},"required":["userName"]}`)},
	})
}

// T1: the wire schema of one backend tool and a required output field.
func TestVectorT1_WireGolden(t *testing.T) {
	comp := paCompose(t, t1Agent(t), nil, TurnInfo{}, paReg())
	paGolden(t, "t1.json", comp.WireJSON)
	require.Equal(t, []string{"type", "additionalProperties", "required", "properties"}, paKeys(t, comp.Wire))
	require.Equal(t, []any{"calls", "output"}, paAt(t, comp.Wire, "required"))
	require.Equal(t, []string{"calls", "output"}, paKeys(t, paAt(t, comp.Wire, "properties")))
	require.NotContains(t, string(comp.WireJSON), `"advisors"`)
	require.NotContains(t, string(comp.WireJSON), `"meta"`)
	paCheckStrict(t, comp.Wire, "wire")
	require.Equal(t, KindExplicit, comp.Tool("greetUser").Kind)
	require.Equal(t, "greetUser", comp.Tool("greetUser").Activity)
}

// T2: (a) latent keeps _output, (b) an activity of the same name makes it
// explicit and drops _output, (c) an `_activity` const picks classifyV2.
func TestVectorT2_ExecutionKinds(t *testing.T) {
	const params = `{"type":"object","properties":{"text":{"type":"string"},"_output":{"type":"object","properties":{"label":{"type":"string"}},"required":["label"]}},"required":["text"]}`
	const paramsV2 = `{"type":"object","properties":{"_activity":{"const":"classifyV2"},"text":{"type":"string"},"_output":{"type":"object","properties":{"label":{"type":"string"}},"required":["label"]}},"required":["text"]}`
	cases := []struct {
		name, params string
		reg          paRegistry
		kind         ExecKind
		activity     string
		hasOutput    bool
	}{
		{"a latent", params, paReg(), KindLatent, "", true},
		{"b explicit", params, paReg("classify"), KindExplicit, "classify", false},
		{"c activity const", paramsV2, paReg("classify", "classifyV2"), KindExplicit, "classifyV2", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := paAgent(t, &Agent{})
			c := paCtx(t, `{"type":"tool","tool":{"classify":`+tc.params+`}}`)
			comp := paCompose(t, a, c, TurnInfo{}, tc.reg)
			tool := comp.Tool("classify")
			require.Equal(t, tc.kind, tool.Kind)
			require.Equal(t, tc.activity, tool.Activity)
			require.True(t, tool.HasOutput)
			_, inVariant := paAt(t, tool.Wire, "properties").(*agentctx.Object).Get("_output")
			require.Equal(t, tc.hasOutput, inVariant)
			require.NotContains(t, paJSON(t, tool.Wire), "_activity")
			require.Equal(t, []string{"_tool", "_reasoningForCall", "text"}, paKeys(t, paAt(t, tool.Wire, "properties"))[:3])
		})
	}
}

// T3: two tool messages `lookup`: the later definition wins, at the position
// of the first.
func TestVectorT3_ToolFold(t *testing.T) {
	a := paAgent(t, &Agent{})
	c := paCtx(t,
		`{"type":"tool","tool":{"lookup":{"type":"object","properties":{"q":{"type":"string"}}}}}`,
		`{"type":"tool","tool":{"other":{"type":"object","properties":{"x":{"type":"string"}},"_output":{"type":"string"}}}}`,
		`{"type":"tool","tool":{"lookup":{"type":"object","properties":{"query":{"type":"string"}}}}}`)
	comp := paCompose(t, a, c, TurnInfo{}, paReg("lookup", "other"))
	require.Len(t, comp.Tools, 2)
	require.Equal(t, "lookup", comp.Tools[0].Name)
	require.Equal(t, []string{"query"}, comp.Tools[0].Params.Keys())
	require.Contains(t, string(comp.WireJSON), `"query"`)
	require.NotContains(t, string(comp.WireJSON), `"q"`)
}

// Agent tools and context tools fold together: a context tool replaces an
// agent tool of the same name in place; refs resolve through the registry.
func TestComposeToolsAgentThenContext(t *testing.T) {
	a := paAgent(t, &Agent{Tools: []ToolDecl{
		paTool(t, "first", "backend", `{"type":"object","properties":{"a":{"type":"string"}}}`),
		paTool(t, "second", "backend", `{"type":"object","properties":{"b":{"type":"string"}}}`),
	}})
	reg := paReg()
	reg.tools["registered"] = paTool(t, "registered", "frontend", `{"type":"object","properties":{"r":{"type":"string"}}}`)
	c := paCtx(t,
		`{"type":"tool","tool":{"first":{"description":"Replaced.","type":"object","properties":{"z":{"type":"integer"}},"_output":{"type":"string"}}}}`,
		`{"type":"tool","ref":"registered"}`)
	comp := paCompose(t, a, c, TurnInfo{}, reg)
	require.Equal(t, []string{"first", "second", "registered"}, toolNames(comp))
	first := comp.Tool("first")
	require.Equal(t, KindLatent, first.Kind)
	require.Equal(t, "", first.FileKind)
	require.Equal(t, "Replaced.", first.Description)
	require.Equal(t, "Replaced.", paAt(t, first.Wire, "description"))
	require.Equal(t, KindExplicit, comp.Tool("registered").Kind)
	require.Equal(t, "frontend", comp.Tool("registered").FileKind)

	_, err := Compose(a, paCtx(t, `{"type":"tool","ref":"missing"}`), TurnInfo{Turn: 1}, reg)
	require.ErrorContains(t, err, `tool ref "missing"`)
	_, err = Compose(a, paCtx(t, `{"type":"tool","tool":{"x":{"properties":{"_activity":{"const":"nope"}}}}}`), TurnInfo{Turn: 1}, reg)
	require.ErrorContains(t, err, `unknown activity "nope"`)
	_, err = Compose(a, paCtx(t, `{"type":"tool","tool":{"x":{"properties":{"_delegate":{"const":"nobody"}}}}}`), TurnInfo{Turn: 1}, reg)
	require.ErrorContains(t, err, `unknown delegate agent "nobody"`)
}

// Every field of Tool is filled from the meta-properties (§1.4).
func TestComposeToolMeta(t *testing.T) {
	a := paAgent(t, &Agent{Tools: []ToolDecl{
		paTool(t, "prescribed", "backend", `{"type":"object","properties":{
			"_scopes":{"const":["state","†input.note"]},"_outputPath":{"const":"†state.found"},"_outputMethod":{"const":"push"},
			"x":{"type":"string"}},"required":["x","_scopes"]}`),
		paTool(t, "chosen", "backend", `{"type":"object","properties":{
			"_scopes":{"type":"array","items":{"enum":["characters","glossary"]},"provisioned":["input"]},
			"_outputPath":{"type":"string","pattern":"^†question\\."},"_outputMethod":{"enum":["set","push"]},
			"y":{"type":"integer"}}}`),
		{Name: "sub", FileKind: "delegate", Description: "Delegate.", Parameters: paObj(t, `{"type":"object","properties":{"_delegate":{"const":"anonymous"},"_output":{"type":"string"}}}`)},
	}})
	comp := paCompose(t, a, nil, TurnInfo{}, paReg())

	p := comp.Tool("prescribed")
	require.Equal(t, []string{"state", "†input.note"}, p.Provisioned)
	require.Nil(t, p.Requested)
	require.True(t, p.HasScopes)
	require.Equal(t, "†state.found", p.OutputPath)
	require.False(t, p.PathChosen)
	require.Equal(t, agentctx.MethodPush, p.OutputMethod)
	require.Equal(t, []string{"x"}, p.Required)
	require.Equal(t, []string{"_tool", "_reasoningForCall", "x"}, paKeys(t, paAt(t, p.Wire, "properties")))

	c := comp.Tool("chosen")
	require.Equal(t, []string{"input"}, c.Provisioned)
	require.Equal(t, []string{"characters", "glossary"}, c.Requested)
	require.True(t, c.PathChosen)
	require.Equal(t, `{"type":"string","pattern":"^†question\\."}`, paJSON(t, c.PathSchema))
	require.Equal(t, []agentctx.Method{agentctx.MethodSet, agentctx.MethodPush}, c.MethodChoices)
	require.Equal(t, []string{"_tool", "_reasoningForCall", "_scopes", "y", "_outputPath", "_outputMethod"}, paKeys(t, paAt(t, c.Wire, "properties")))
	require.Equal(t, `{"enum":["set","push",null]}`, paJSON(t, paAt(t, c.Wire, "properties._outputMethod")))

	s := comp.Tool("sub")
	require.Equal(t, KindDelegated, s.Kind)
	require.Equal(t, Anonymous, s.Delegate)
	require.True(t, s.HasOutput)
	require.Equal(t, []string{"_tool", "_reasoningForCall"}, paKeys(t, paAt(t, s.Wire, "properties")))
}

// S1: the requested `_scopes` enum comes before the parameters in the wire
// variant; the latent tool keeps `_output` last.
func TestVectorS1_WireVariant(t *testing.T) {
	a := paAgent(t, &Agent{Tools: []ToolDecl{paTool(t, "sendMessage", "latent", `{"type":"object","properties":{
		"recipientId":{"type":"string"},"message":{"type":"string"},
		"_scopes":{"type":"array","items":{"enum":["state","input"]}},
		"_output":{"type":"object","properties":{"sent":{"type":"boolean"}},"required":["sent"]}},
		"required":["recipientId","message"]}`)}})
	comp := paCompose(t, a, nil, TurnInfo{}, paReg())
	tool := comp.Tool("sendMessage")
	require.Equal(t, KindLatent, tool.Kind)
	require.Equal(t, []string{"_tool", "_reasoningForCall", "_scopes", "recipientId", "message", "_output"}, paKeys(t, paAt(t, tool.Wire, "properties")))
	require.Equal(t, `{"type":["array","null"],"items":{"enum":["state","input"]}}`, paJSON(t, paAt(t, tool.Wire, "properties._scopes")))
	require.Equal(t, `{"type":"object","additionalProperties":false,"required":["sent"],"properties":{"sent":{"type":"boolean"}}}`,
		paJSON(t, paAt(t, tool.Wire, "properties._output")))
}

func a1Setup(t *testing.T) *Agent {
	out := `"_output":{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`
	return paAgent(t, &Agent{
		OutputSchema: paObj(t, `{"type":"object","properties":{"summary":{"type":"string"}},"required":["summary"]}`),
		Tools: []ToolDecl{
			paTool(t, "deploy", "latent", `{"type":"object","properties":{`+out+`}}`),
			paTool(t, "rollback", "latent", `{"type":"object","properties":{`+out+`}}`),
			paTool(t, "delay", "latent", `{"type":"object","properties":{"hours":{"type":"integer"},`+out+`}}`),
		},
		Advisors: []agentctx.Message{paAdvisor(t, `{"type":"advisor","id":"riskAnalyst","on":"request",
			"scopes":["†state.deploymentHistory"],"role":"Judge the regression risk.",
			"schema":{"type":"object","properties":{"thought":{"type":"string"}},"required":["thought"]}}`)},
	})
}

// A1: wire order advisors → calls → output; the entry {id, thought, calls}
// is all required.
func TestVectorA1_WireOrder(t *testing.T) {
	comp := paCompose(t, a1Setup(t), nil, TurnInfo{}, paReg())
	paGolden(t, "a1.json", comp.WireJSON)
	require.Equal(t, []string{"advisors", "calls", "output"}, paKeys(t, paAt(t, comp.Wire, "properties")))
	require.Equal(t, []any{"advisors", "calls", "output"}, paAt(t, comp.Wire, "required"))
	entries := paAt(t, comp.Wire, "properties.advisors.items.anyOf").([]any)
	require.Len(t, entries, 1)
	require.Equal(t, `{"type":"object","additionalProperties":false,"required":["id","thought","calls"],"properties":{"id":{"type":"string","enum":["riskAnalyst"]},"thought":{"type":"string"},"calls":{"type":"string","description":"JSON object: tool name -> confidence 0..100"}}}`,
		paJSON(t, entries[0]))
	paCheckStrict(t, comp.Wire, "wire")
	ad := comp.Advisor("riskAnalyst")
	require.Equal(t, Required, ad.Activation)
	require.Equal(t, []string{"†state.deploymentHistory"}, ad.Scopes)
	// Turn 2 still requires the entry.
	comp2 := paCompose(t, a1Setup(t), nil, TurnInfo{Turn: 2}, paReg())
	require.Equal(t, Required, comp2.Advisor("riskAnalyst").Activation)
	require.Equal(t, comp.WireJSON, comp2.WireJSON)
}

// A2: persona and answer aliases fold into role and schema; the entry variant
// is {id, score, calls} without thought.
func TestVectorA2_EntryVariant(t *testing.T) {
	a := paAgent(t, &Agent{})
	c := paCtx(t,
		`{"type":"advisor","id":"riskAnalyst","on":"request","persona":"Risk lens"}`,
		`{"type":"advisor","id":"riskAnalyst","answer":{"type":"object","properties":{"score":{"type":"number"}},"required":["score"]}}`)
	comp := paCompose(t, a, c, TurnInfo{}, paReg())
	ad := comp.Advisor("riskAnalyst")
	require.Equal(t, "Risk lens", ad.Role)
	require.Equal(t, OnRequest, ad.On)
	require.Equal(t, `{"type":"object","properties":{"score":{"type":"number"}},"required":["score"]}`, paJSON(t, ad.Schema))
	require.Equal(t, []string{"id", "score", "calls"}, paKeys(t, paAt(t, ad.Wire, "properties")))
	require.Equal(t, []any{"id", "score", "calls"}, paAt(t, ad.Wire, "required"))
	require.NotContains(t, paJSON(t, ad.Wire), "thought")
}

// A3: in-run, a conflicting `on` is a warning and the patch's `on` is
// ignored (b: a redeclaration without `on` inherits it and changes the role).
func TestVectorA3_InRunConflictAndRedeclare(t *testing.T) {
	base := []string{
		`{"type":"advisor","id":"riskAnalyst","on":"request","persona":"Risk lens"}`,
		`{"type":"advisor","id":"riskAnalyst","answer":{"type":"object","properties":{"score":{"type":"number"}},"required":["score"]}}`,
	}
	a := paAgent(t, &Agent{})
	comp := paCompose(t, a, paCtx(t, append(base, `{"type":"advisor","id":"riskAnalyst","on":"finish"}`)...), TurnInfo{}, paReg())
	require.Equal(t, OnRequest, comp.Advisor("riskAnalyst").On)
	require.Equal(t, Required, comp.Advisor("riskAnalyst").Activation)
	require.Len(t, comp.Warnings, 1)
	require.Equal(t, agentctx.CodeAdvisorOnConflict, comp.Warnings[0].Code)
	require.Contains(t, comp.Warnings[0].Message, "riskAnalyst")

	comp = paCompose(t, a, paCtx(t, append(base, `{"type":"advisor","id":"riskAnalyst","role":"New lens"}`)...), TurnInfo{}, paReg())
	require.Equal(t, "New lens", comp.Advisor("riskAnalyst").Role)
	require.Equal(t, OnRequest, comp.Advisor("riskAnalyst").On)
	require.Empty(t, comp.Warnings)

	// The agent's own advisors fold first, the context's patch them.
	a = paAgent(t, &Agent{Advisors: []agentctx.Message{paAdvisor(t, base[0])}})
	comp = paCompose(t, a, paCtx(t, `{"type":"advisor","id":"riskAnalyst","on":"start"}`), TurnInfo{}, paReg())
	require.Equal(t, OnRequest, comp.Advisor("riskAnalyst").On)
	require.Len(t, comp.Warnings, 1)
}

// A4: an advisor without `on` is absent from the schema and reachable
// through the ConsultAdvisor variant.
func TestVectorA4_ConsultAdvisor(t *testing.T) {
	a := paAgent(t, &Agent{
		Tools: []ToolDecl{paTool(t, "publish", "backend", `{"type":"object","properties":{}}`)},
		Advisors: []agentctx.Message{paAdvisor(t,
			`{"type":"advisor","id":"legal","schema":{"type":"object","properties":{"thought":{"type":"string"}},"required":["thought"]}}`)},
	})
	comp := paCompose(t, a, nil, TurnInfo{}, paReg())
	require.NotContains(t, paKeys(t, paAt(t, comp.Wire, "properties")), "advisors")
	require.Equal(t, Absent, comp.Advisor("legal").Activation)
	require.Equal(t, []string{"publish", ConsultAdvisor}, toolNames(comp))
	consult := comp.Tool(ConsultAdvisor)
	require.Equal(t, KindExplicit, consult.Kind)
	require.Equal(t, ConsultAdvisor, consult.Activity)
	require.Equal(t, []string{"_tool", "_reasoningForCall", "id", "question"}, paKeys(t, paAt(t, consult.Wire, "properties")))
	require.Equal(t, `{"type":"string","enum":["legal"]}`, paJSON(t, paAt(t, consult.Wire, "properties.id")))
	require.Equal(t, `{"type":"string"}`, paJSON(t, paAt(t, consult.Wire, "properties.question")))
	// The entry variant exists for the consultation (minus id, by the caller).
	require.Equal(t, []string{"id", "thought", "calls"}, paKeys(t, paAt(t, comp.Advisor("legal").Variant, "properties")))
}

// A5: `start` is required on the first turn of a fresh chat, offered later
// and in a later run; `finish` is required on the final turn, else offered
// and required when the output is not null.
func TestVectorA5_Activation(t *testing.T) {
	a := paAgent(t, &Agent{Advisors: []agentctx.Message{
		paAdvisor(t, `{"type":"advisor","id":"kickoff","on":"start","schema":{"type":"object","properties":{"plan":{"type":"string"}},"required":["plan"]}}`),
		paAdvisor(t, `{"type":"advisor","id":"closer","on":"finish"}`),
	}})
	cases := []struct {
		name            string
		ti              TurnInfo
		kickoff, closer Activation
		closerOnOutput  bool
	}{
		{"fresh chat turn 1", TurnInfo{Turn: 1, FirstOfChat: true}, Required, Offered, true},
		{"turn 2", TurnInfo{Turn: 2}, Offered, Offered, true},
		{"second run turn 1", TurnInfo{Turn: 1}, Offered, Offered, true},
		{"final", TurnInfo{Turn: 3, Final: true}, Offered, Required, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			comp := paCompose(t, a, nil, tc.ti, paReg())
			require.Equal(t, tc.kickoff, comp.Advisor("kickoff").Activation)
			require.Equal(t, tc.closer, comp.Advisor("closer").Activation)
			require.Equal(t, tc.closerOnOutput, comp.Advisor("closer").RequiredOnOutput)
			require.Len(t, paAt(t, comp.Wire, "properties.advisors.items.anyOf"), 2)
		})
	}
	// Required or offered, the wire is the same (W6): strict schemas cannot
	// require an element.
	first := paCompose(t, a, nil, TurnInfo{Turn: 1, FirstOfChat: true}, paReg())
	later := paCompose(t, a, nil, TurnInfo{Turn: 2}, paReg())
	require.Equal(t, string(first.WireJSON), string(later.WireJSON))
}

// A6, I1: live instances give `_instance` enums to call variants (nullable)
// and to instanced advisor entries (required).
func TestVectorA6_I1_InstanceEnums(t *testing.T) {
	a := paAgent(t, &Agent{
		Tools: []ToolDecl{paTool(t, "moderateComment", "backend",
			`{"type":"object","properties":{"decision":{"type":"string"},"_outputPath":{"const":"†state.moderation"}},"required":["decision"]}`)},
		Advisors: []agentctx.Message{paAdvisor(t, `{"type":"advisor","id":"styleKeeper","on":"request","isInstanced":true,
			"schema":{"type":"object","properties":{"thought":{"type":"string"}},"required":["thought"]}}`)},
	})
	c := paCtx(t,
		`{"type":"input","_instance":"①","comment":"Great post!"}`,
		`{"type":"input","_instance":"②","comment":"Thanks, helpful."}`)
	comp := paCompose(t, a, c, TurnInfo{}, paReg())
	require.Equal(t, []string{"①", "②"}, comp.Instances)
	tool := comp.Tool("moderateComment")
	require.Equal(t, []string{"_tool", "_reasoningForCall", "_instance", "decision"}, paKeys(t, paAt(t, tool.Wire, "properties")))
	require.Equal(t, `{"type":["string","null"],"enum":["①","②",null]}`, paJSON(t, paAt(t, tool.Wire, "properties._instance")))
	require.Equal(t, `{"type":"string","enum":["①","②"]}`, paJSON(t, paAt(t, tool.Variant, "properties._instance")))
	entry := comp.Advisor("styleKeeper").Wire
	require.Equal(t, []string{"id", "_instance", "thought", "calls"}, paKeys(t, paAt(t, entry, "properties")))
	require.Equal(t, `{"type":"string","enum":["①","②"]}`, paJSON(t, paAt(t, entry, "properties._instance")))
	require.Equal(t, []any{"id", "_instance", "thought", "calls"}, paAt(t, comp.Advisor("styleKeeper").Variant, "required"))

	// I1 with a third instance.
	c = append(c, paCtx(t, `{"type":"input","_instance":"③","comment":"Buy cheap pills here"}`)...)
	comp = paCompose(t, a, c, TurnInfo{}, paReg())
	require.Equal(t, `{"type":"string","enum":["①","②","③"]}`, paJSON(t, paAt(t, comp.Tool("moderateComment").Variant, "properties._instance")))
}

// L1: the final turn has no `calls` and a non-nullable output (LM4).
func TestVectorL1_FinalTurnSchema(t *testing.T) {
	a := paAgent(t, &Agent{Limits: Limits{MaxTurns: 3}, Tools: []ToolDecl{paTool(t, "noop", "backend", `{"type":"object"}`)}})
	comp := paCompose(t, a, nil, TurnInfo{Turn: 3, MaxTurns: 3, Final: true}, paReg())
	require.Equal(t, []string{"output"}, paKeys(t, paAt(t, comp.Wire, "properties")))
	require.Equal(t, []any{"output"}, paAt(t, comp.Wire, "required"))
	require.Equal(t, `{"type":"object","additionalProperties":false,"required":[],"properties":{}}`, paJSON(t, paAt(t, comp.Wire, "properties.output")))
	require.NotContains(t, string(comp.WireJSON), "null")
	require.NotNil(t, comp.Tool("noop"), "tools stay composed on the final turn")

	before := paCompose(t, a, nil, TurnInfo{Turn: 2, MaxTurns: 3}, paReg())
	require.Equal(t, `{"anyOf":[{"type":"object","additionalProperties":false,"required":[],"properties":{}},{"type":"null"}]}`,
		paJSON(t, paAt(t, before.Wire, "properties.output")))
}

// W6: the wire bytes stay identical across turns unless tools, advisors,
// instances or the final narrowing change.
func TestVectorW6_ByteIdentity(t *testing.T) {
	a := a1Setup(t)
	c1 := paCtx(t, `{"type":"input","message":"go"}`)
	turn1 := paCompose(t, a, c1, TurnInfo{Turn: 1, FirstOfChat: true}, paReg())
	c2 := append(append(agentctx.Context(nil), c1...), paCtx(t,
		`{"type":"state","_path":"last","_outputMethod":"set","data":{"ok":true}}`,
		`{"type":"error","data":{"turn":1,"code":"call_invalid","message":"x"}}`,
		`{"type":"advice","id":"riskAnalyst","turn":1,"opinion":{"thought":"t"},"weights":{"delay":90}}`)...)
	turn2 := paCompose(t, a, c2, TurnInfo{Turn: 2, Notes: []string{"turn 2 of 3"}}, paReg())
	require.Equal(t, string(turn1.WireJSON), string(turn2.WireJSON))
	again := paCompose(t, a, c2, TurnInfo{Turn: 2}, paReg())
	require.True(t, bytes.Equal(turn2.WireJSON, again.WireJSON))

	changes := map[string]agentctx.Context{
		"tool":     append(append(agentctx.Context(nil), c2...), paCtx(t, `{"type":"tool","tool":{"extra":{"properties":{"_output":{"type":"string"}}}}}`)...),
		"advisor":  append(append(agentctx.Context(nil), c2...), paCtx(t, `{"type":"advisor","id":"second","on":"finish"}`)...),
		"instance": append(append(agentctx.Context(nil), c2...), paCtx(t, `{"type":"state","_instance":"t1","x":1}`)...),
	}
	for name, c := range changes {
		comp := paCompose(t, a, c, TurnInfo{Turn: 3}, paReg())
		require.NotEqual(t, string(turn1.WireJSON), string(comp.WireJSON), name)
	}
	final := paCompose(t, a, c2, TurnInfo{Turn: 3, Final: true}, paReg())
	require.NotEqual(t, string(turn1.WireJSON), string(final.WireJSON))
}

// The response format follows §2.6.
func TestComposeFormat(t *testing.T) {
	cases := []struct {
		format, structured string
		tools              bool
		want               string
	}{
		{"", "json_schema", true, FormatJSONSchema},
		{"", "tool", false, FormatRespondTool},
		{"", "", true, FormatRespondTool},
		{"", "", false, FormatPrompt},
		{FormatPrompt, "json_schema", true, FormatPrompt},
	}
	for _, tc := range cases {
		a := paAgent(t, &Agent{ResponseFormat: tc.format, Model: ModelInfo{StructuredOutput: tc.structured, SupportsTools: tc.tools}})
		comp := paCompose(t, a, nil, TurnInfo{}, paReg())
		require.Equal(t, tc.want, comp.Format, "%+v", tc)
	}
}

// The reasoning field follows protocol.reasoningField: the alias name, or
// none at all.
func TestComposeReasoningField(t *testing.T) {
	tool := []ToolDecl{paTool(t, "ping", "backend", `{"type":"object","properties":{"x":{"type":"string"}}}`)}
	why := paCompose(t, paAgent(t, &Agent{ReasoningField: "_why", Tools: tool}), nil, TurnInfo{}, paReg())
	require.Equal(t, []string{"_tool", "_why", "x"}, paKeys(t, paAt(t, why.Tool("ping").Wire, "properties")))
	off := paCompose(t, paAgent(t, &Agent{ReasoningOff: true, Tools: tool}), nil, TurnInfo{}, paReg())
	require.Equal(t, []string{"_tool", "x"}, paKeys(t, paAt(t, off.Tool("ping").Wire, "properties")))
}

// Model-specific dropped keywords replace the default list, `provisioned`
// is always dropped.
func TestComposeDroppedKeywords(t *testing.T) {
	tool := []ToolDecl{paTool(t, "ping", "backend", `{"type":"object","properties":{
		"x":{"type":"string","minLength":2,"pattern":"^a"},
		"_scopes":{"type":"array","items":{"enum":["state"]},"provisioned":["input"]}}}`)}
	def := paCompose(t, paAgent(t, &Agent{Tools: tool}), nil, TurnInfo{}, paReg())
	require.Equal(t, `{"type":["string","null"]}`, paJSON(t, paAt(t, def.Tool("ping").Wire, "properties.x")))
	custom := paCompose(t, paAgent(t, &Agent{Tools: tool, Model: ModelInfo{DroppedKeywords: []string{"pattern"}}}), nil, TurnInfo{}, paReg())
	require.Equal(t, `{"type":["string","null"],"minLength":2}`, paJSON(t, paAt(t, custom.Tool("ping").Wire, "properties.x")))
	require.NotContains(t, string(custom.WireJSON), "provisioned")
}
