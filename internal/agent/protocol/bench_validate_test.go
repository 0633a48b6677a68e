package protocol

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
)

// benchSolution is a valid reply of the compose benchmark's agent on turn
// 2: the editGate and styleKeeper entries, eight instanced calls of
// explicit tools, two latent calls and a delegate, no output. It leaves out
// the null values a strict model writes for optional fields: the protocol
// strips them before it validates (stripNulls), a bare JSON Schema
// validator would refuse them.
func benchSolution() string {
	var advisors, calls []string
	advisors = append(advisors, `{"id":"editGate","decision":"edit","thought":"The lines are located.","calls":"{\"tool00\":80}"}`)
	for i := range 8 {
		advisors = append(advisors, fmt.Sprintf(`{"id":"styleKeeper","_instance":"t%d","thought":"Keep the voice.","calls":"{}"}`, i+1))
		calls = append(calls, fmt.Sprintf(`{"_tool":"tool%02d","_reasoningForCall":"Make line %d formal.","_instance":"t%d",`+
			`"_scopes":["state"],"pointer":"%d:2.1.p%d","text":"— Well, said the professor, we shall see.","count":1}`, i, i, i+1, 40+i, i+3))
	}
	calls = append(calls,
		`{"_tool":"tool10","_reasoningForCall":"Label it.","query":"formal","mode":"a","_output":{"label":"formal","score":0.9}}`,
		`{"_tool":"tool11","_reasoningForCall":"Label it.","query":"voice","mode":"b","_output":{"label":"voice","score":0.4}}`,
		`{"_tool":"tool16","_reasoningForCall":"Delegate.","_scopes":["input"],"task":"check the chapter"}`)
	return `{"advisors":[` + strings.Join(advisors, ",") + `],"calls":[` + strings.Join(calls, ",") + `],"output":null}`
}

// BenchmarkValidateSolution times the validation of one reply of the
// compose benchmark's agent against its turn's validation schema, two ways,
// each as a ratio to the JSON encoding of the turn's request (the figure of
// BenchmarkCompose, target ≤ 3):
//
//   - protocol: Parse, the protocol's own validator (decode, envelope, every
//     call against its variant, advisors, references; problems with JSON
//     pointers, the closest anyOf branch);
//   - jsonschema-go: the module's JSON Schema library on the same schema,
//     resolved once; per reply only a decode into `any` and Validate (no
//     call variants, no problem pointers: the least it would cost).
func BenchmarkValidateSolution(b *testing.B) {
	a, c, reg := benchComposeSetup(b)
	comp, err := Compose(a, c, TurnInfo{Turn: 2, MaxTurns: 16, RunStart: len(c)}, reg)
	if err != nil {
		b.Fatal(err)
	}
	raw := []byte(benchSolution())
	if pr := Parse(comp, raw); pr == nil || len(pr.Repair) > 0 || len(pr.CallErrors) > 0 {
		b.Fatalf("the benchmark's solution is not valid: %+v", pr)
	}
	schemaJSON, err := agentctx.Encode(comp.Validation)
	if err != nil {
		b.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(schemaJSON, &s); err != nil {
		b.Fatal(err)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		b.Fatal(err)
	}
	sys, user := Render(comp, c)
	req := BuildRequest(comp, sys, user)
	encode := func(n int) time.Duration {
		start := time.Now()
		for range n {
			if _, err := json.Marshal(req); err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(start)
	}
	b.Run("protocol", func(b *testing.B) {
		b.ReportAllocs()
		start, n := time.Now(), 0
		for b.Loop() {
			if pr := Parse(comp, raw); len(pr.Repair) > 0 {
				b.Fatal(pr.Repair)
			}
			n++
		}
		took := time.Since(start)
		b.StopTimer()
		b.ReportMetric(float64(took)/float64(encode(n)), "x-encode")
	})
	b.Run("jsonschema-go", func(b *testing.B) {
		b.ReportAllocs()
		start, n := time.Now(), 0
		for b.Loop() {
			var v any
			if err := json.Unmarshal(raw, &v); err != nil {
				b.Fatal(err)
			}
			if err := resolved.Validate(v); err != nil {
				b.Fatal(err)
			}
			n++
		}
		took := time.Since(start)
		b.StopTimer()
		b.ReportMetric(float64(took)/float64(encode(n)), "x-encode")
	})
}
