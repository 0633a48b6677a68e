package server_test

import (
	"strings"
	"testing"

	"github.com/aitexteditor/aite/internal/store/postgres/pgtest"
)

// TestSubmitOnAnotherNode: a run on node A waits for a frontend submit; the
// client posts /submit to node B (a load balancer's choice), which
// forwards it to A: A's stream goes on with request.submit and the
// tool.result, and B answers as A would, also for a second submit
// (unmatched) and one too long to forward (400).
func TestSubmitOnAnotherNode(t *testing.T) {
	dsn := pgtest.DSN(t)
	a := newHarness(t, harnessOptions{store: pgtest.Open(t, dsn, "a")})
	b := newHarness(t, harnessOptions{store: pgtest.Open(t, dsn, "b")})
	if err := b.runs.RecoverInterrupted(t.Context()); err != nil { // b listens before the run starts
		t.Fatal(err)
	}
	a.llm.Enqueue(calls(call(0, "call_c", "confirm", `{"question":"Replace the paragraph?"}`)), text("Confirmed."))
	var runID string
	submitted := make(chan map[string]any, 1)
	frames := a.run(`{"message":"Replace it after asking","agentKey":"confirmer"}`, func(f frame) bool {
		switch f.typ() {
		case "run.start":
			runID = f.data["runId"].(string)
		case "tool.end":
			go func() {
				long := `{"runId":"` + runID + `","toolId":"call_c","params":{"text":"` + strings.Repeat("x", 6000) + `"}}`
				if code, env := b.postJSON("/api/ap/submit", long); code != 400 || env["msg"] != "params are too long to reach the server running the run" {
					t.Errorf("a submit too long to forward: %d %v", code, env)
				}
				code, env := b.postJSON("/api/ap/submit", `{"runId":"`+runID+`","toolId":"call_c","params":{"ok":true}}`)
				if code != 200 {
					t.Errorf("submit on B: %d %v", code, env)
				}
				submitted <- env
			}()
		}
		return true
	})
	env := <-submitted
	data, _ := env["data"].(map[string]any)
	if data["accepted"] != true || data["detail"] != "Frontend submit accepted for runId="+runID+", toolId=call_c" {
		t.Fatalf("B's answer %v", env)
	}
	var types []string
	for _, f := range frames {
		types = append(types, f.typ())
	}
	got := strings.Join(types, " ")
	if !strings.Contains(got, "tool.end request.submit tool.result") || frames[len(frames)-1].typ() != "run.complete" {
		t.Fatalf("A's stream: %s", got)
	}
	for _, f := range frames {
		if f.typ() == "tool.result" && f.data["result"] != `{"ok":true}` {
			t.Fatalf("tool.result %v", f.data)
		}
	}
	code, env := b.postJSON("/api/ap/submit", `{"runId":"`+runID+`","toolId":"call_c","params":{"ok":true}}`)
	data, _ = env["data"].(map[string]any)
	if code != 200 || data["status"] != "unmatched" {
		t.Fatalf("second submit on B: %d %v", code, env)
	}
}
