package server_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

// An ordinary agent asked with params.confirmEdits shows every edit for
// approval before it is applied (approval.request with the preview of the
// editor's dry run, the same as a confirm-tool call, then /submit,
// request.submit, approval.decision, document.edit and the result), and a
// denied edit changes nothing.
func TestGoldenDocumentEditConfirmed(t *testing.T) {
	for _, tc := range []struct {
		name, decision string
		applied        bool
	}{{"approved", `{"decision":"approve"}`, true}, {"denied", `{"decision":"deny","reason":"keep it"}`, false}} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, harnessOptions{})
			h.llm.SetHandler(func(req llmtest.Request) llmtest.Response {
				switch req.N {
				case 1:
					return calls(call(0, "call_e", "editor-replace_text", `{"pointer":"2:1.p1","markdown":"Профессор Звёздочкин торжественно вошёл в класс."}`))
				case 2:
					return text("Done.")
				}
				return llmtest.Response{Status: http.StatusBadRequest, Body: `{"error":{"message":"unexpected request"}}`}
			})
			var runID string
			frames := h.run(`{"message":"Make it formal","params":{"documentId":"`+h.docID+`","confirmEdits":true}}`, func(f frame) bool {
				switch f.typ() {
				case "run.start":
					runID = f.data["runId"].(string)
				case "approval.request":
					code, env := h.postJSON("/api/ap/submit", `{"runId":"`+runID+`","toolId":"`+f.data["approvalId"].(string)+`","params":`+tc.decision+`}`)
					if data, _ := env["data"].(map[string]any); code != 200 || data["status"] != "accepted" {
						t.Errorf("/submit: %d %v", code, env)
					}
				}
				return true
			})
			checkStream(t, frames, 1)
			golden(t, "document_edit_confirmed_"+tc.name, h.masked(frames))
			ty := types(frames)
			// The approval is also offered as a call of the standard confirm
			// tool (tool.start/args/end, answered by the same submit, its own
			// tool.result), for clients that know only the contract's tools.
			want := []string{"tool.end", "approval.request", "tool.start", "tool.args", "tool.end", "request.submit",
				"approval.decision", "tool.result"}
			if tc.applied {
				want = append(want, "document.edit")
			}
			want = append(want, "tool.result")
			i := slices.Index(ty, "tool.end")
			if i < 0 || !slices.Equal(ty[i:i+len(want)], want) {
				t.Fatalf("events after tool.end: %v, want %v", ty[i:], want)
			}
			_, raw := h.get("/api/ap/document/raw?documentId=" + h.docID)
			data, _ := raw["data"].(map[string]any)
			if got := strings.Contains(data["markdown"].(string), "торжественно"); got != tc.applied {
				t.Errorf("edit applied = %v, want %v: %v", got, tc.applied, data)
			}
			// The model reads the denial.
			if !tc.applied && !strings.Contains(lastMessage(h.llm.Requests()[1], "tool"), "call_denied") {
				t.Errorf("the model was not told: %s", lastMessage(h.llm.Requests()[1], "tool"))
			}
		})
	}
}
