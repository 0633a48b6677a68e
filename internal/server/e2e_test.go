package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aitexteditor/aite/examples"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

// The golden SSE transcripts of PLATFORM_API § 9, driven through the whole
// server by the fake OpenAI-compatible HTTP server.

func sse(chunks ...string) llmtest.Response { return llmtest.Response{Chunks: chunks} }

func text(parts ...string) llmtest.Response {
	var cs []string
	for _, p := range parts {
		cs = append(cs, llmtest.ContentChunk(p))
	}
	return sse(append(cs, llmtest.FinishChunk("stop"), llmtest.UsageChunk(12, 3, 0))...)
}

func calls(frags ...llmtest.ToolFrag) llmtest.Response {
	var cs []string
	for _, f := range frags {
		cs = append(cs, llmtest.ToolCallChunk(f))
	}
	return sse(append(cs, llmtest.FinishChunk("tool_calls"))...)
}

func call(index int, id, name, args string) llmtest.ToolFrag {
	return llmtest.ToolFrag{Index: index, ID: id, Name: name, Args: args}
}

// lastUser returns the text of the last user message of a fake-server request.
func lastMessage(req llmtest.Request, role string) string {
	msgs, _ := req.JSON["messages"].([]any)
	for i := len(msgs) - 1; i >= 0; i-- {
		m, _ := msgs[i].(map[string]any)
		if m["role"] == role {
			if s, ok := m["content"].(string); ok {
				return s
			}
			return fmt.Sprint(m["content"])
		}
	}
	return ""
}

func TestGoldenOneshotPlain(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.llm.Enqueue(text("Hel", "lo, ", "world"))
	frames := h.run(`{"message":"Say hello","agentKey":"plain"}`, nil)
	checkStream(t, frames, 1)
	golden(t, "oneshot_plain", h.masked(frames))
	// Row 48: one provider call without tools / tool_choice.
	reqs := h.llm.Requests()
	if len(reqs) != 1 || reqs[0].JSON["tools"] != nil || reqs[0].JSON["tool_choice"] != nil {
		t.Errorf("ONESHOT without tools: %d requests, tools=%v", len(reqs), reqs[0].JSON["tools"])
	}
}

func TestGoldenOneshotReasoning(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.llm.Enqueue(sse(llmtest.ReasoningChunk("Think"), llmtest.ReasoningChunk("ing…"),
		llmtest.ContentChunk("Answer"), llmtest.FinishChunk("stop")))
	frames := h.run(`{"message":"Why?","agentKey":"plain"}`, nil)
	checkStream(t, frames, 1)
	golden(t, "oneshot_reasoning", h.masked(frames))
}

func TestGoldenReactTools(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.llm.Enqueue(
		sse(llmtest.ContentChunk("Let me convert."),
			llmtest.ToolCallChunk(call(0, "call_a", "upper", `{"text":`)),
			llmtest.ToolCallChunk(llmtest.ToolFrag{Index: 0, Args: `"ab"}`}),
			llmtest.ToolCallChunk(call(1, "call_b", "upper", `{"text":"cd"}`)),
			llmtest.FinishChunk("tool_calls")),
		text("AB and CD."))
	frames := h.run(`{"message":"Upper-case ab and cd","agentKey":"react"}`, nil)
	checkStream(t, frames, 1)
	golden(t, "react_tools", h.masked(frames))
	// Row 31: start1 args1* end1 start2 args2* end2 result1 result2.
	var seq []string
	for _, f := range frames {
		if strings.HasPrefix(f.typ(), "tool.") {
			seq = append(seq, f.typ()+":"+f.data["toolId"].(string))
		}
	}
	want := []string{"tool.start:call_a", "tool.args:call_a", "tool.args:call_a", "tool.end:call_a",
		"tool.start:call_b", "tool.args:call_b", "tool.end:call_b", "tool.result:call_a", "tool.result:call_b"}
	if !slices.Equal(seq, want) {
		t.Errorf("tool events %v, want %v", seq, want)
	}
}

var taskRE = regexp.MustCompile(`([0-9a-f]{8})[^\n]*?Upper (a|b)`)

func TestGoldenPlanExecute(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	task := func(req llmtest.Request, which string) string {
		for _, m := range taskRE.FindAllStringSubmatch(string(req.Body), -1) {
			if m[2] == which {
				return m[1]
			}
		}
		t.Errorf("request %d names no task %q", req.N, which)
		return "00000000"
	}
	h.llm.SetHandler(func(req llmtest.Request) llmtest.Response {
		switch req.N {
		case 1:
			return calls(call(0, "call_p", "_plan_add_tasks_", `{"tasks":[{"description":"Upper a"},{"description":"Upper b"}]}`))
		case 2:
			return calls(call(0, "call_u", "upper", `{"text":"a"}`),
				call(1, "call_t1", "_plan_update_task_", `{"taskId":"`+task(req, "a")+`","status":"completed"}`))
		case 3:
			return calls(call(0, "call_t2", "_plan_update_task_", `{"taskId":"`+task(req, "b")+`","status":"completed"}`))
		case 4:
			return text("Both done: A, B.")
		}
		return llmtest.Response{Status: http.StatusBadRequest, Body: `{"error":{"message":"unexpected request"}}`}
	})
	frames := h.run(`{"message":"Upper a then b","agentKey":"planner"}`, nil)
	checkStream(t, frames, 1)
	golden(t, "plan_execute", h.masked(frames))
}

func TestGoldenAction(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.llm.Enqueue(calls(call(0, "call_h", "highlight", `{"pointer":"3:1.p1"}`)), text("Highlighted."))
	frames := h.run(`{"message":"Highlight the quote","agentKey":"actor"}`, nil)
	checkStream(t, frames, 1)
	golden(t, "action", h.masked(frames))
}

func TestGoldenFrontendSubmit(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.llm.Enqueue(calls(call(0, "call_c", "confirm", `{"question":"Replace the paragraph?"}`)), text("Confirmed."))
	var runID string
	frames := h.run(`{"message":"Replace it after asking","agentKey":"confirmer"}`, func(f frame) bool {
		switch f.typ() {
		case "run.start":
			runID = f.data["runId"].(string)
		case "tool.end":
			go func() {
				code, env := h.postJSON("/api/ap/submit", `{"runId":"`+runID+`","toolId":"call_c","params":{"ok":true}}`)
				data, _ := env["data"].(map[string]any)
				if code != 200 || data["accepted"] != true || data["status"] != "accepted" {
					t.Errorf("submit: %d %v", code, env)
				}
			}()
		}
		return true
	})
	checkStream(t, frames, 1)
	golden(t, "frontend_submit", h.masked(frames))
	// Row 40: the same submit again is unmatched.
	code, env := h.postJSON("/api/ap/submit", `{"runId":"`+runID+`","toolId":"call_c","params":{"ok":true}}`)
	data, _ := env["data"].(map[string]any)
	if code != 200 || data["accepted"] != false || data["status"] != "unmatched" ||
		data["detail"] != "No pending frontend tool found for runId="+runID+", toolId=call_c" {
		t.Errorf("second submit: %d %v", code, env)
	}
}

func TestGoldenFrontendTimeout(t *testing.T) {
	h := newHarness(t, harnessOptions{frontendTimeout: 60 * time.Millisecond})
	h.llm.Enqueue(calls(call(0, "call_c", "confirm", `{"question":"Replace?"}`)))
	frames := h.run(`{"message":"Replace it after asking","agentKey":"confirmer"}`, nil)
	checkStream(t, frames, 1)
	golden(t, "frontend_timeout", h.masked(frames))
	if n := len(h.llm.Requests()); n != 1 {
		t.Errorf("after a submit timeout the model was called %d times, want 1", n)
	}
}

func TestGoldenStreamError(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.llm.SetHandler(func(llmtest.Request) llmtest.Response {
		return llmtest.Response{Status: http.StatusInternalServerError, Body: `{"error":{"message":"upstream exploded"}}`}
	})
	frames := h.run(`{"message":"Hi","agentKey":"plain"}`, nil)
	checkStream(t, frames, 1)
	golden(t, "stream_error", h.masked(frames))
	last := frames[len(frames)-1]
	errInfo, _ := last.data["error"].(map[string]any)
	if last.typ() != "run.error" || errInfo["code"] != "model_error" || errInfo["retriable"] != true {
		t.Errorf("last event %v", last.data)
	}
}

func TestGoldenHeartbeat(t *testing.T) {
	h := newHarness(t, harnessOptions{heartbeat: 100 * time.Millisecond})
	h.llm.SetHandler(func(llmtest.Request) llmtest.Response {
		r := text("slow", " answer")
		r.Delay = 350 * time.Millisecond
		return r
	})
	frames := h.run(`{"message":"Take your time","agentKey":"plain"}`, nil)
	checkStream(t, frames, 1)
	// The fake model waits 350 ms before each chunk, so at least one beat
	// must come before content.start, before the second delta and before
	// content.end. Timing decides how many fit in a gap (one is kept per
	// gap) and whether one also fits elsewhere, e.g. while the log is made
	// durable before run.complete on a loaded machine (those are dropped).
	slow := map[string]bool{"content.start": true, "content.delta": true, "content.end": true}
	var collapsed []frame
	beatBefore := map[int]bool{} // seq of the event a kept beat precedes
	pending := false
	for _, f := range frames {
		if f.event == "heartbeat" {
			pending = true
			continue
		}
		if pending && slow[f.typ()] {
			collapsed = append(collapsed, frame{raw: "event:heartbeat\n\n", event: "heartbeat"})
			beatBefore[int(f.data["seq"].(float64))] = true
		}
		pending = false
		collapsed = append(collapsed, f)
	}
	for _, seq := range []int{4, 6, 7} { // content.start, the second delta, content.end
		if !beatBefore[seq] {
			t.Errorf("no heartbeat in the slow gap before event %d", seq)
		}
	}
	golden(t, "heartbeat", h.masked(collapsed))
}

func TestGoldenReattach(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.llm.SetHandler(func(llmtest.Request) llmtest.Response {
		r := text("one ", "two ", "three")
		r.Delay = 30 * time.Millisecond
		return r
	})
	resp := h.query(`{"message":"Count","agentKey":"plain"}`)
	var runID string
	first := readFrames(t, resp.Body, func(f frame) bool {
		if f.typ() == "run.start" {
			runID = f.data["runId"].(string)
		}
		return f.typ() != "content.start" // disconnect right after the block opens
	})
	resp.Body.Close()
	lastID := len(first)
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, h.srv.URL+"/api/ap/run/stream?runId="+runID, nil)
	req.Header.Set("Last-Event-ID", fmt.Sprint(lastID))
	resp2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp2.Body.Close()
	rest := readFrames(t, resp2.Body, nil)
	checkStream(t, append(slices.Clone(first), rest...), 1) // one stream, continued without gap or duplicate
	all := append(slices.Clone(first), frame{raw: fmt.Sprintf("--- reattach with Last-Event-ID: %d ---\n", lastID), event: "marker"})
	golden(t, "reattach", h.masked(append(all, rest...)))
	// A finished run replays its remainder and closes.
	req3, _ := http.NewRequest(http.MethodGet, h.srv.URL+"/api/ap/run/stream?runId="+runID+"&lastEventId=2", nil)
	resp3, err := http.DefaultClient.Do(req3)
	if err != nil {
		t.Fatal(err)
	}
	defer resp3.Body.Close()
	replay := readFrames(t, resp3.Body, nil)
	want := len(first) + len(rest) - 2
	if len(replay) != want || replay[0].data["seq"] != float64(3) {
		t.Errorf("replay after 2 of a finished run: %d frames, want %d", len(replay), want)
	}
}

var cursorNameRE = regexp.MustCompile(`"(?:cursorName|name)":\s*"([^"]+)"`)

func TestGoldenDocumentEdit(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.llm.SetHandler(func(req llmtest.Request) llmtest.Response {
		switch req.N {
		case 1:
			return calls(call(0, "call_k", "cursor-create_keyword_cursor", `{"keywords":["Звездочкин"]}`))
		case 2:
			name := "?"
			if m := cursorNameRE.FindStringSubmatch(lastMessage(req, "tool")); m != nil {
				name = m[1]
			}
			return calls(call(0, "call_r", "cursor-read_cursor_batch", `{"cursorName":"`+name+`"}`))
		case 3:
			return calls(call(0, "call_e", "editor-replace_text", `{"pointer":"2:1.p1","markdown":"Профессор Звёздочкин торжественно вошёл в класс."}`))
		case 4:
			return text("Done: the first mention now reads more formally.")
		}
		return llmtest.Response{Status: http.StatusBadRequest, Body: `{"error":{"message":"unexpected request"}}`}
	})
	frames := h.run(`{"message":"Make the first mention of Zvezdochkin more formal","params":{"documentId":"`+h.docID+`"}}`, nil)
	checkStream(t, frames, 1)
	golden(t, "document_edit", h.masked(frames))
	// Row 84: document.edit between tool.end and tool.result of the edit call;
	// raw and history show the new revision.
	ty := types(frames)
	e := slices.Index(ty, "document.edit")
	if e < 0 || frames[e-1].typ() != "tool.end" || frames[e+1].typ() != "tool.result" {
		t.Fatalf("document.edit is not between tool.end and tool.result: %v", ty)
	}
	_, raw := h.get("/api/ap/document/raw?documentId=" + h.docID)
	data, _ := raw["data"].(map[string]any)
	if data["revision"] != float64(1) || !strings.Contains(data["markdown"].(string), "торжественно") {
		t.Errorf("document/raw after the edit: %v", data)
	}
	_, hist := h.get("/api/ap/document/history?documentId=" + h.docID)
	hd, _ := hist["data"].(map[string]any)
	edits, _ := hd["edits"].([]any)
	if len(edits) != 1 || edits[0].(map[string]any)["toolId"] != "call_e" {
		t.Errorf("document/history: %v", hd)
	}
}

// A book agent queried without a document works on the most recently
// updated document and keeps it bound to the chat.
func TestBookAgentDefaultsToLatestDocument(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.llm.Enqueue(calls(call(0, "call_r", "editor-read", `{"pointer":"2"}`)), text("It is about the professor."))
	frames := h.run(`{"message":"What is the first paragraph about?"}`, nil)
	var result string
	for _, f := range frames {
		if f.typ() == "tool.result" {
			result, _ = f.data["result"].(string)
		}
	}
	if !strings.Contains(result, "Звёздочкин вошёл") {
		t.Fatalf("editor-read without a selected document: %q", result)
	}
	chatID, _ := frames[0].data["chatId"].(string)
	_, detail := h.get("/api/ap/chats")
	list, _ := detail["data"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["chatId"] != chatID {
		t.Fatalf("/chats: %v", detail)
	}
	if c, err := h.st.GetChat(context.Background(), chatID); err != nil || c.DocumentID != h.docID {
		t.Errorf("the chat is bound to %q (%v), want the document %q", c.DocumentID, err, h.docID)
	}
	// A plain agent gets no document.
	h.llm.Enqueue(text("Hi."))
	frames = h.run(`{"message":"Hi","agentKey":"plain"}`, nil)
	if got := types(frames); got[len(got)-1] != "run.complete" {
		t.Fatalf("plain agent: %v", got)
	}
}

// Row 26 / issue #7 item 2, true streaming: the fake model sends its next
// chunk only after the client has read the previous delta from the
// server's SSE response. Any buffering, merging or re-chunking on the way
// would stall the lockstep (and fail the test by its deadline).
func TestTrueStreamingLockstep(t *testing.T) {
	const n = 25
	got := make(chan string, n)
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range n {
			delta := fmt.Sprintf("d%02d ", i)
			if _, err := io.WriteString(w, "data: "+llmtest.ContentChunk(delta)+"\n\n"); err != nil {
				return
			}
			_ = rc.Flush()
			select { // wait until the client has this very delta
			case d := <-got:
				if d != delta {
					t.Errorf("client received %q, the model sent %q", d, delta)
				}
			case <-time.After(5 * time.Second):
				t.Errorf("delta %d did not reach the client before the model's next chunk", i)
				return
			}
		}
		_, _ = io.WriteString(w, "data: "+llmtest.FinishChunk("stop")+"\n\ndata: [DONE]\n\n")
	}))
	defer fake.Close()
	h := newHarness(t, harnessOptions{modelURL: fake.URL})
	deltas := 0
	frames := h.run(`{"message":"Stream","agentKey":"plain"}`, func(f frame) bool {
		if f.typ() == "content.delta" {
			deltas++
			got <- f.data["delta"].(string)
		}
		return true
	})
	if deltas != n || frames[len(frames)-1].typ() != "run.complete" {
		t.Errorf("%d content.delta events for %d upstream chunks; last event %s", deltas, n, frames[len(frames)-1].typ())
	}
}

// The book editor on the sample book: a keyword cursor finds the mentions
// of the professor, the model reads the first batch and makes the first
// line he speaks more formal; the edit streams as document.edit and lands
// in the stored document.
func TestGoldenEditorOnSampleBook(t *testing.T) {
	h := newHarness(t, harnessOptions{book: examples.Zvezdochkin})
	const formal = "— Это я, — произнёс он, приподняв шляпу. — Позвольте представиться: профессор Звёздочкин, Аркадий Львович. Вы, полагаю, встречаете меня?"
	h.llm.SetHandler(func(req llmtest.Request) llmtest.Response {
		switch req.N {
		case 1:
			return calls(call(0, "call_k", "cursor-create_keyword_cursor", `{"keywords":["Звездочкин"],"includeHeadings":false}`))
		case 2:
			name := "?"
			if m := cursorNameRE.FindStringSubmatch(lastMessage(req, "tool")); m != nil {
				name = m[1]
			}
			return calls(call(0, "call_r", "cursor-read_cursor_batch", `{"cursorName":"`+name+`"}`))
		case 3:
			if !strings.Contains(lastMessage(req, "tool"), `"pointer":"9:1.1.p6"`) {
				t.Errorf("the first batch does not hold the first line he speaks (9:1.1.p6)")
			}
			return calls(call(0, "call_e", "editor-replace_text", `{"pointer":"9:1.1.p6","markdown":"`+formal+`"}`))
		case 4:
			return text("Готово: первая реплика профессора (9:1.1.p6) теперь звучит официальнее.")
		}
		return llmtest.Response{Status: http.StatusBadRequest, Body: `{"error":{"message":"unexpected request"}}`}
	})
	frames := h.run(`{"message":"Найди, где профессор Звёздочкин впервые говорит, и сделай реплику официальнее"}`, nil)
	checkStream(t, frames, 1)
	golden(t, "editor_sample_book", h.masked(frames))
	_, raw := h.get("/api/ap/document/raw?documentId=" + h.docID)
	data, _ := raw["data"].(map[string]any)
	md, _ := data["markdown"].(string)
	want := strings.Replace(string(examples.Zvezdochkin), "— Это я! — крикнул он через весь перрон и замахал шляпой. — Профессор — это я, Звёздочкин, Аркадий Львович. А ты, стало быть, весь комитет по встрече?", formal, 1)
	if data["revision"] != float64(1) || md != want {
		t.Errorf("the stored book after the edit is not the sample with exactly that paragraph replaced (revision %v)", data["revision"])
	}
}
