package server_test

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/aitexteditor/aite/internal/agent"
	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/tool"
)

// Protocol agents through the whole server (AGENT_PROTOCOL §§ 5.3–5.5).

type lookupArgs struct {
	Q string `json:"q"`
}

// lookupTool is the Go tool behind the protocol test agent.
func lookupTool() tool.Tool {
	return tool.Must("lookup", "Looks a term up.", func(_ context.Context, p lookupArgs) (tool.Result, error) {
		return tool.Result{Text: "found " + p.Q}, nil
	})
}

// protocolDefinitions are testDefinitions plus the protocol agent "proto":
// a backend tool with a requested scope, a provider-fed glossary, approval
// "ask".
func protocolDefinitions() map[string]string {
	files := maps.Clone(testDefinitions)
	files["agents/proto.json"] = `{"key": "proto", "name": "Proto", "mode": "REACT", "modelConfig": {"modelKey": "fake"},
		"react": {"systemPrompt": "Help.", "maxSteps": 4}, "toolConfig": {"backends": ["lookup"]},
		"protocol": {"outputSchema": {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]},
			"outputText": "answer", "context": [{"type": "data", "kind": "glossary", "provider": "test.glossary"}],
			"approval": {"requestedScopes": "ask", "timeoutMs": 5000}}}`
	files["tools/lookup.backend"] = `{"tools": [{"type": "function", "name": "lookup", "description": "Looks a term up.",
		"parameters": {"type": "object", "properties": {"_scopes": {"type": "array", "items": {"enum": ["glossary"]}},
			"q": {"type": "string"}}, "required": ["q"]}}]}`
	return files
}

func protocolHarness(t *testing.T) *harness {
	return newHarness(t, harnessOptions{files: protocolDefinitions(), tools: []tool.Tool{lookupTool()},
		contextProviders: map[string]agent.ContextProvider{"test.glossary": func(context.Context) ([]agentctx.Message, error) {
			return []agentctx.Message{{Type: agentctx.TypeData, Kind: "glossary", HasValue: true,
				Value: agentctx.NewObject("tardis", "a time machine")}}, nil
		}}})
}

// AGENT_PROTOCOL § 5.4 (vector X5 shape) through POST /submit: a decision
// outside the request is 400 "Invalid scope decision: …" and keeps the
// approval; another toolId is 200 unmatched; the valid decision is
// accepted. The stream shows tool.end → scope.request → request.submit →
// scope.decision → tool.result, the output as one content block, and GET
// /chat replays the run with the scope events in place.
func TestProtocolScopeSubmit(t *testing.T) {
	h := protocolHarness(t)
	h.llm.Enqueue(
		text(`{"calls":[{"_tool":"lookup","_reasoningForCall":"need the term","_scopes":["glossary"],"q":"tardis"}],"output":null}`),
		text(`{"calls":[],"output":{"answer":"A time machine."}}`),
	)
	var runID, chatID string
	submitted := make(chan struct{})
	frames := h.run(`{"message":"What is a tardis?","agentKey":"proto"}`, func(f frame) bool {
		switch f.typ() {
		case "run.start":
			runID, chatID = f.data["runId"].(string), f.data["chatId"].(string)
		case "scope.request":
			approval, _ := f.data["approvalId"].(string)
			go func() {
				defer close(submitted)
				code, env := h.postJSON("/api/ap/submit", `{"runId":"`+runID+`","toolId":"`+approval+`","params":{"decision":"narrow","scopes":["secrets"]}}`)
				if code != 400 || env["msg"] != `Invalid scope decision: scope "secrets" is not part of the request (requested: glossary)` {
					t.Errorf("invalid decision: %d %v", code, env)
				}
				code, env = h.postJSON("/api/ap/submit", `{"runId":"`+runID+`","toolId":"scope:nope","params":{"decision":"approve"}}`)
				data, _ := env["data"].(map[string]any)
				if code != 200 || data["status"] != "unmatched" || data["accepted"] != false {
					t.Errorf("unmatched decision: %d %v", code, env)
				}
				code, env = h.postJSON("/api/ap/submit", `{"runId":"`+runID+`","toolId":"`+approval+`","params":{"decision":"approve","remember":"once"}}`)
				data, _ = env["data"].(map[string]any)
				if code != 200 || data["status"] != "accepted" || data["accepted"] != true ||
					data["detail"] != "Scope decision accepted for runId="+runID+", toolId="+approval {
					t.Errorf("accepted decision: %d %v", code, env)
				}
			}()
		}
		return true
	})
	<-submitted
	checkStream(t, frames, 1)
	callID := runID + "_call_1_0"
	var got []string
	for _, f := range frames {
		switch ty := f.typ(); ty {
		case "tool.start", "tool.end", "tool.result", "scope.request", "scope.decision", "request.submit":
			id, _ := f.data["toolId"].(string)
			got = append(got, ty+" "+strings.Replace(id, runID, "RUN", 1))
		case "content.delta":
			got = append(got, ty+" "+f.data["delta"].(string))
		case "run.complete":
			got = append(got, ty+" "+f.data["finishReason"].(string))
		}
	}
	want := []string{"tool.start RUN_call_1_0", "tool.end RUN_call_1_0", "scope.request RUN_call_1_0",
		"request.submit scope:RUN_call_1_0", "scope.decision RUN_call_1_0", "tool.result RUN_call_1_0",
		"content.delta A time machine.", "run.complete stop"}
	if !slices.Equal(got, want) {
		t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, f := range frames {
		switch f.typ() {
		case "scope.request":
			if f.data["approvalId"] != "scope:"+callID || f.data["toolName"] != "lookup" || f.data["timeoutMs"] != float64(5000) {
				t.Errorf("scope.request = %v", f.data)
			}
		case "scope.decision":
			if f.data["decision"] != "approve" || f.data["by"] != "user" || !slices.Equal(anyStrings(f.data["scopes"]), []string{"glossary"}) {
				t.Errorf("scope.decision = %v", f.data)
			}
		case "tool.result":
			if f.data["result"] != "found tardis" {
				t.Errorf("tool.result = %v", f.data)
			}
		}
	}
	// The model got the glossary from the context provider.
	if reqs := h.llm.Requests(); len(reqs) != 2 || !strings.Contains(lastMessage(reqs[0], "system"), "a time machine") {
		t.Errorf("requests: %d, first system message %q", len(reqs), lastMessage(reqs[0], "system"))
	}

	code, env := h.get("/api/ap/chat?chatId=" + chatID)
	if code != 200 {
		t.Fatalf("GET /chat: %d %v", code, env)
	}
	data, _ := env["data"].(map[string]any)
	var history []string
	for _, e := range data["events"].([]any) {
		history = append(history, e.(map[string]any)["type"].(string))
	}
	wantHistory := []string{"request.query", "chat.start", "run.start", "tool.snapshot", "scope.request", "request.submit",
		"scope.decision", "tool.result", "content.snapshot", "run.complete"}
	if !slices.Equal(history, wantHistory) {
		t.Errorf("history: %v\nwant %v", history, wantHistory)
	}
}

func anyStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
