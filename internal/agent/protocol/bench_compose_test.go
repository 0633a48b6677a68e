package protocol

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/llm"
)

type llmRequest = llm.Request

// benchReg is a registry of ten explicit activities for the benchmarks.
type benchReg struct{ acts map[string]Activity }

func (r benchReg) Activity(name string) (Activity, bool) { a, ok := r.acts[name]; return a, ok }
func (benchReg) Tool(string) (ToolDecl, bool)            { return ToolDecl{}, false }
func (benchReg) Agent(key string) (*Agent, bool) {
	if key == "benchDelegate" {
		return &Agent{Key: key}, true
	}
	return nil, false
}

func benchObject(tb testing.TB, s string) *agentctx.Object {
	tb.Helper()
	v, err := agentctx.Decode([]byte(s))
	if err != nil {
		tb.Fatal(err)
	}
	return v.(*agentctx.Object)
}

// benchComposeSetup is the agent of the composition benchmark: 20
// tools (10 explicit, 6 latent, 4 delegated), 4 advisors (request, start,
// finish, instanced request) and 8 instances, with reference data.
func benchComposeSetup(tb testing.TB) (*Agent, agentctx.Context, Registry) {
	reg := benchReg{acts: map[string]Activity{}}
	a := &Agent{Key: "bench", SystemPrompt: "You edit a long Markdown book through pointers and cursors.",
		Model: ModelInfo{StructuredOutput: "json_schema"}}
	for i := range 20 {
		name := fmt.Sprintf("tool%02d", i)
		var params string
		switch {
		case i < 10:
			reg.acts[name] = ActivityFunc(nil)
			params = `{"type":"object","properties":{"_scopes":{"type":"array","items":{"enum":["state","input","glossary"]}},` +
				`"pointer":{"type":"string","description":"item pointer"},"text":{"type":"string"},"count":{"type":"integer","minimum":1}},"required":["pointer","text"]}`
		case i < 16:
			params = `{"type":"object","properties":{"_output":{"type":"object","properties":{"label":{"type":"string"},"score":{"type":"number"}},"required":["label"]},` +
				`"_outputPath":{"const":"†state.l` + name + `"},"query":{"type":"string"},"mode":{"type":"string","enum":["a","b","c"]}},"required":["query"]}`
		default:
			params = `{"type":"object","properties":{"_delegate":{"const":"benchDelegate"},"_scopes":{"const":["input"]},` +
				`"_outputPath":{"const":"†state.d` + name + `"},"task":{"type":"string"},"context":{"type":["string","null"]}},"required":["task"]}`
		}
		a.Tools = append(a.Tools, ToolDecl{Name: name, Description: "Tool number " + name + " of the benchmark agent.",
			Parameters: benchObject(tb, params)})
	}
	advisors := []string{
		`{"type":"advisor","id":"editGate","on":"request","role":"Judge whether to edit or read on.","scopes":["input","†state.search"],"schema":{"type":"object","properties":{"decision":{"type":"string","enum":["keepReading","edit","ask"]},"thought":{"type":"string"}},"required":["decision","thought"]}}`,
		`{"type":"advisor","id":"kickoff","on":"start","role":"Plan the first steps.","schema":{"type":"object","properties":{"plan":{"type":"string"}},"required":["plan"]}}`,
		`{"type":"advisor","id":"reviewer","on":"finish","role":"Check the answer.","schema":{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}}`,
		`{"type":"advisor","id":"styleKeeper","on":"request","isInstanced":true,"role":"Keep the voice.","schema":{"type":"object","properties":{"thought":{"type":"string"}},"required":["thought"]}}`,
	}
	for _, s := range advisors {
		m, err := agentctx.ParseMessage([]byte(s))
		if err != nil {
			tb.Fatal(err)
		}
		a.Advisors = append(a.Advisors, m)
	}
	a.OutputSchema = benchObject(tb, `{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"]}`)
	if err := a.Normalize(); err != nil {
		tb.Fatal(err)
	}
	var c agentctx.Context
	add := func(s string) {
		m, err := agentctx.ParseMessage([]byte(s))
		if err != nil {
			tb.Fatal(err)
		}
		c = append(c, m)
	}
	add(`{"type":"system","message":"You edit a long Markdown book through pointers and cursors."}`)
	add(`{"type":"data","kind":"glossary","glossary":{"orrery":"a mechanical model of the solar system","ephemeris":"a table of positions"}}`)
	add(`{"type":"data","kind":"characters","characters":{"prof_orlov":{"name":"Ilya Orlov","role":"astronomer"},"prof_orlova":{"name":"Vera Orlova","role":"botanist"}}}`)
	add(`{"type":"input","input":{"message":"Make every line the professor speaks in chapter 2 more formal."}}`)
	for i := range 8 {
		add(fmt.Sprintf(`{"type":"state","_instance":"t%d","state":{"pointer":"%d:2.1.p%d","markdown":"— Well, — said the professor, — we shall see about that, shan't we? Line %d."}}`, i+1, 40+i, i+3, i))
	}
	return a, c, reg
}

// BenchmarkCompose measures one turn's request composition (schema build,
// render and request) for 20 tools, 4 advisors and 8 instances, and reports
// it as a ratio to the JSON encoding of the same request measured in the
// same run (issue target: ≤ 3).
func BenchmarkCompose(b *testing.B) {
	a, c, reg := benchComposeSetup(b)
	turn := TurnInfo{Turn: 2, MaxTurns: 16, RunStart: len(c)}
	compose := func() []byte {
		comp, err := Compose(a, c, turn, reg)
		if err != nil {
			b.Fatal(err)
		}
		sys, user := Render(comp, c)
		req := BuildRequest(comp, sys, user)
		return req.ResponseFormat.Schema
	}
	comp, err := Compose(a, c, turn, reg)
	if err != nil {
		b.Fatal(err)
	}
	if len(comp.Instances) != 8 || len(comp.Advisors) != 4 || len(comp.Tools) != 20 {
		b.Fatalf("setup: %d instances, %d advisors, %d tools", len(comp.Instances), len(comp.Advisors), len(comp.Tools))
	}
	sys, user := Render(comp, c)
	req := BuildRequest(comp, sys, user)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	n := 0
	for b.Loop() {
		compose()
		n++
	}
	composeTime := time.Since(start)
	b.StopTimer()
	encStart := time.Now()
	for range n {
		if _, err := json.Marshal(req); err != nil {
			b.Fatal(err)
		}
	}
	encTime := time.Since(encStart)
	b.ReportMetric(float64(composeTime)/float64(encTime), "x-encode")
	b.ReportMetric(float64(len(comp.WireJSON)), "schema-bytes")
}

// BenchmarkComposeCold is BenchmarkCompose with an empty composition cache
// every time: the cost of a first turn, or of a turn after the tools,
// advisors or instances changed.
func BenchmarkComposeCold(b *testing.B) {
	a, c, reg := benchComposeSetup(b)
	turn := TurnInfo{Turn: 1, MaxTurns: 16, RunStart: len(c)}
	var req *llmRequest
	start := time.Now()
	n := 0
	for b.Loop() {
		a.cache = newComposeCache()
		comp, err := Compose(a, c, turn, reg)
		if err != nil {
			b.Fatal(err)
		}
		sys, user := Render(comp, c)
		req = BuildRequest(comp, sys, user)
		n++
	}
	composeTime := time.Since(start)
	b.StopTimer()
	encStart := time.Now()
	for range n {
		if _, err := json.Marshal(req); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(composeTime)/float64(time.Since(encStart)), "x-encode")
}
