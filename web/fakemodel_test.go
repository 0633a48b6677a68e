package web_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

// The fake model behind the app in the browser tests: the fake
// OpenAI-compatible server of llmtest, answering each agent from the
// conversation it is sent (so a reload or a second chat needs no script
// position), plus a streaming endpoint that stamps every delta with the
// time it was written (the latency benchmark).

// fakeModel is the model server of one app.
type fakeModel struct {
	t   testing.TB
	llm *llmtest.Server
	srv *httptest.Server

	mu    sync.Mutex
	turns map[string]int // protocol runs: turns so far per command
	page  string         // served at /direct (the latency baseline)
}

func newFakeModel(t testing.TB) *fakeModel {
	f := &fakeModel{t: t}
	f.llm = llmtest.NewServerFunc(t, f.reply)
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// serve answers LATENCY requests itself and passes the others on.
func (f *fakeModel) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/direct":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, f.page)
		return
	case r.Method != http.MethodPost: // the browser's favicon request of the direct page
		w.WriteHeader(http.StatusNoContent)
		return
	}
	body, _ := io.ReadAll(r.Body)
	if n, gap, ok := latencyRequest(body); ok {
		streamStamped(w, r, n, gap)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	f.llm.Config.Handler.ServeHTTP(w, r)
}

// latencyRe is the user message of a latency run: "LATENCY <n> <gap ms>".
var latencyRe = regexp.MustCompile(`LATENCY (\d+) (\d+)`)

func latencyRequest(body []byte) (n int, gap time.Duration, ok bool) {
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil || len(req.Messages) == 0 {
		return 0, 0, false
	}
	last := req.Messages[len(req.Messages)-1]
	m := latencyRe.FindStringSubmatch(fmt.Sprint(last.Content))
	if last.Role != "user" || m == nil {
		return 0, 0, false
	}
	var ms int
	fmt.Sscan(m[1], &n)
	fmt.Sscan(m[2], &ms)
	return n, time.Duration(ms) * time.Millisecond, true
}

// streamStamped streams n content deltas gap apart, each "⟦<unix µs>⟧ "
// written with the time it is written.
func streamStamped(w http.ResponseWriter, r *http.Request, n int, gap time.Duration) {
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	_ = rc.Flush()
	for i := 0; i < n; i++ {
		select {
		case <-r.Context().Done():
			return
		case <-time.After(gap):
		}
		chunk := llmtest.ContentChunk(fmt.Sprintf("⟦%d⟧ ", time.Now().UnixMicro()))
		if _, err := io.WriteString(w, "data: "+chunk+"\n\n"); err != nil {
			return
		}
		_ = rc.Flush()
	}
	_, _ = io.WriteString(w, "data: "+llmtest.FinishChunk("stop")+"\n\ndata: [DONE]\n\n")
	_ = rc.Flush()
}

// conv is the part of a Chat Completions request the fake model reads.
type conv struct {
	req    llmtest.Request
	system string
	user   string // the last user message
	tools  []string
	schema bool // response_format json_schema (structured output)
	// lastTool and lastResult are the name and result of the last tool
	// call of the conversation ("" before any).
	lastTool, lastResult string
	toolCalls            int // tool results in the conversation
}

func readConv(req llmtest.Request) conv {
	c := conv{req: req}
	msgs, _ := req.JSON["messages"].([]any)
	names := map[string]string{}
	for _, raw := range msgs {
		m, _ := raw.(map[string]any)
		content := contentText(m["content"])
		switch m["role"] {
		case "system":
			if c.system == "" {
				c.system = content
			}
		case "user":
			c.user = content
		case "assistant":
			tcs, _ := m["tool_calls"].([]any)
			for _, tc := range tcs {
				call, _ := tc.(map[string]any)
				fn, _ := call["function"].(map[string]any)
				names[fmt.Sprint(call["id"])] = fmt.Sprint(fn["name"])
			}
		case "tool":
			c.lastTool, c.lastResult = names[fmt.Sprint(m["tool_call_id"])], content
			c.toolCalls++
		}
	}
	tools, _ := req.JSON["tools"].([]any)
	for _, raw := range tools {
		tl, _ := raw.(map[string]any)
		fn, _ := tl["function"].(map[string]any)
		c.tools = append(c.tools, fmt.Sprint(fn["name"]))
	}
	_, c.schema = req.JSON["response_format"]
	return c
}

func contentText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		var b strings.Builder
		for _, p := range x {
			if m, ok := p.(map[string]any); ok {
				b.WriteString(fmt.Sprint(m["text"]))
			}
		}
		return b.String()
	}
	return ""
}

func (c conv) has(tool string) bool {
	for _, t := range c.tools {
		if t == tool {
			return true
		}
	}
	return false
}

// The chunks of a reply.
func textReply(parts ...string) llmtest.Response {
	var cs []string
	for _, p := range parts {
		cs = append(cs, llmtest.ContentChunk(p))
	}
	return llmtest.Response{Chunks: append(cs, llmtest.FinishChunk("stop"), llmtest.UsageChunk(100, 20, 0))}
}

func callReply(id, name string, args any) llmtest.Response {
	b, _ := json.Marshal(args)
	return llmtest.Response{Chunks: []string{llmtest.ToolCallChunk(llmtest.ToolFrag{Index: 0, ID: id, Name: name, Args: string(b)}),
		llmtest.FinishChunk("tool_calls"), llmtest.UsageChunk(100, 20, 0)}}
}

// reply answers one model request by the agent that sent it.
func (f *fakeModel) reply(req llmtest.Request) llmtest.Response {
	c := readConv(req)
	switch {
	case strings.HasPrefix(c.system, "You are a careful reader") && !strings.Contains(c.system, "solution"):
		return cursorAgentReply(c)
	case c.has("cursor-create_keyword_cursor"):
		return f.bookEditorReply(c)
	case strings.HasPrefix(c.system, "You are an editing assistant") && c.schema:
		return f.protocolEditorReply(c)
	case strings.HasPrefix(c.system, "You are a careful assistant"):
		return confirmReply(c)
	case c.has("pick"):
		if c.lastTool == "pick" {
			return textReply("Вы выбрали: " + c.lastResult)
		}
		return callReply("call_pick", "pick", map[string]any{"title": "Цвет обложки", "options": []string{"синий", "зелёный"}})
	case strings.HasPrefix(c.system, "You plan before you act"), strings.HasPrefix(c.system, "You carry out one task"),
		strings.HasPrefix(c.system, "Summarise for the user"):
		return plannerReply(c)
	}
	f.t.Errorf("fake model: no script for the request (system %.80q, tools %v)", c.system, c.tools)
	return llmtest.Response{Status: http.StatusBadRequest, Body: `{"error":{"message":"no script"}}`}
}

// The scenario of the classic book editor: find the paragraph where Varya
// stands on the platform again (keyword cursor, then the cursor agent),
// rewrite it shorter, answer with its pointer.
const (
	editCommand  = "Найди абзац, где Варя снова стоит на перроне, и перепиши его короче."
	stopCommand  = "Расскажи длинную историю про часы."
	imageCommand = "Покажи карту городка."
	rewrittenVar = "Через неделю Варя снова стояла на перроне, но уже провожала профессора."
)

var cursorNameRe = regexp.MustCompile(`"cursorName"\s*:\s*"([^"]+)"`)
var pointerRe = regexp.MustCompile(`"pointer"\s*:\s*"(\d+:[^"]+)"`)

func (f *fakeModel) bookEditorReply(c conv) llmtest.Response {
	if strings.Contains(c.user, imageCommand) {
		return textReply("Вот карта городка: ", "![карта](/api/ap/data?file=map.png)")
	}
	if strings.Contains(c.user, stopCommand) && c.toolCalls == 0 {
		return llmtest.Response{Chunks: []string{llmtest.ReasoningChunk("Думаю, с чего начать. "),
			llmtest.ContentChunk("Давным-давно, когда часы на ратуше ещё шли вперёд, ")}, Hang: true}
	}
	switch c.lastTool {
	case "":
		return callReply("call_kw", "cursor-create_filtered_cursor", map[string]any{"filterDescription": "paragraphs with Varya",
			"keywords": []string{"Варя"}, "kinds": []string{"Paragraph"}, "maxElements": 4})
	case "cursor-create_filtered_cursor":
		name := "kwd_cursor_1"
		if m := cursorNameRe.FindStringSubmatch(c.lastResult); m != nil {
			name = m[1]
		}
		return callReply("call_ca", "cursor_agent-run_cursor_agent", map[string]any{"cursorName": name,
			"taskDescription": "the paragraph where Varya stands on the platform again, at the end", "mode": "FirstMatch"})
	case "cursor_agent-run_cursor_agent":
		ptr := "?"
		if m := pointerRe.FindStringSubmatch(c.lastResult); m != nil {
			ptr = m[1]
		}
		return callReply("call_ed", "editor-replace_text", map[string]any{"pointer": ptr, "markdown": rewrittenVar})
	case "editor-replace_text":
		ptr := "?"
		if m := pointerRe.FindStringSubmatch(c.lastResult); m != nil {
			ptr = m[1]
		}
		if strings.Contains(c.lastResult, "call_denied") {
			return textReply("Хорошо, абзац остался как был.")
		}
		return llmtest.Response{Chunks: []string{llmtest.ReasoningChunk("Правка применена, осталось сообщить."),
			llmtest.ContentChunk("Готово: абзац "), llmtest.ContentChunk(ptr + " теперь **короче**"),
			llmtest.ContentChunk(" — Варя провожает профессора."), llmtest.FinishChunk("stop")}}
	}
	return textReply("Не знаю, что делать дальше.")
}

// cursorAgentReply reads one batch: evidence for the item where Varya is on
// the platform again ("снова стояла на перроне"), else continue.
func cursorAgentReply(c conv) llmtest.Response {
	var batch struct {
		Items []struct {
			Pointer  string `json:"pointer"`
			Markdown string `json:"markdown"`
		} `json:"items"`
	}
	// The batch is the last JSON user message of the step.
	msgs, _ := c.req.JSON["messages"].([]any)
	for _, raw := range msgs {
		m, _ := raw.(map[string]any)
		s := contentText(m["content"])
		if strings.Contains(s, `"type":"batch"`) || strings.Contains(s, `"type": "batch"`) {
			_ = json.Unmarshal([]byte(s), &batch)
		}
	}
	dec := map[string]any{"action": "continue", "batchFound": false, "newEvidence": []any{}, "progress": "reading",
		"needMoreContext": false, "contextPointers": []any{}}
	for _, it := range batch.Items {
		if strings.Contains(it.Markdown, "снова стояла на перроне") {
			dec["action"], dec["batchFound"] = "stop", true
			dec["newEvidence"] = []any{map[string]any{"pointer": it.Pointer, "excerpt": "Варя снова стояла на перроне",
				"reason": "Varya is on the platform again"}}
		}
	}
	b, _ := json.Marshal(dec)
	return llmtest.Response{Chunks: []string{llmtest.ContentChunk(string(b)), llmtest.FinishChunk("stop")}, Delay: 30 * time.Millisecond}
}

// confirmReply is demoConfirm: ask with the confirm frontend tool, then
// answer from its result.
func confirmReply(c conv) llmtest.Response {
	if c.lastTool == "confirm" {
		if strings.Contains(c.lastResult, `"confirmed":true`) {
			return textReply("Столик забронирован (понарошку).")
		}
		return textReply("Хорошо, не бронирую.")
	}
	return callReply("call_cf", "confirm", map[string]any{"question": "Забронировать столик на двоих на 19:00?",
		"details": "Ресторан «Башня», пятница."})
}

var taskIDRe = regexp.MustCompile(`Current task: ([0-9a-f]{8})`)

// plannerReply is demoPlanner: two tasks, each completed, then a summary.
func plannerReply(c conv) llmtest.Response {
	switch {
	case strings.HasPrefix(c.system, "You plan before you act"):
		return callReply("call_plan", "_plan_add_tasks_", map[string]any{"tasks": []any{
			map[string]any{"description": "Узнать текущее время"}, map[string]any{"description": "Посчитать слова в названии"}}})
	case strings.HasPrefix(c.system, "You carry out one task"):
		m := taskIDRe.FindStringSubmatch(c.user)
		if m == nil {
			return textReply("no task")
		}
		return callReply(fmt.Sprintf("call_up_%s", m[1]), "_plan_update_task_", map[string]any{"taskId": m[1], "status": "completed"})
	}
	return textReply("Обе задачи выполнены.")
}

// obj is an ordered JSON object (key, value, …) for protocol solutions.
type obj []any

func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i+1 < len(o); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(o[i])
		v, err := json.Marshal(o[i+1])
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func solutionReply(t testing.TB, reasoning string, sol obj) llmtest.Response {
	b, err := json.Marshal(sol)
	if err != nil {
		t.Errorf("solution: %v", err)
	}
	cs := []string{}
	if reasoning != "" {
		cs = append(cs, llmtest.ReasoningChunk(reasoning))
	}
	return llmtest.Response{Chunks: append(cs, llmtest.ContentChunk(string(b)), llmtest.FinishChunk("stop"))}
}

func gate(decision, thought, weights string) []any {
	return []any{obj{"id", "editGate", "decision", decision, "thought", thought, "calls", weights}}
}

// The protocol scenario: ask to see the character card (denied in the
// test), then two edits shown together (one approved, one rejected).
const (
	protocolCommand = "Сделай реплики профессора торжественнее."
	formalOne       = "Профессор Звёздочкин торжественно вошёл в класс."
	formalTwo       = "— Прошу тишины, — торжественно произнёс Звездочкин."
)

// protocolEditorReply answers the book editor on the protocol by turn,
// counted per command (one protocol run at a time in the tests).
func (f *fakeModel) protocolEditorReply(c conv) llmtest.Response {
	f.mu.Lock()
	if f.turns == nil {
		f.turns = map[string]int{}
	}
	key := protocolKey(c.req)
	f.turns[key]++
	turn := f.turns[key]
	f.mu.Unlock()
	switch turn {
	case 1:
		return solutionReply(f.t, "Сначала стоит взглянуть на карточку персонажа.", obj{
			"advisors", gate("keepReading", "Nothing is located yet.", `{"run_cursor_agent":85,"replace_text":5}`),
			"calls", []any{obj{"_tool", "run_cursor_agent", "_reasoningForCall", "Find the professor's lines with his card.",
				"_scopes", []any{"characters"}, "cursorName", "kwd_cursor_0", "task", "the professor's lines",
				"context", nil, "startAfterPointer", nil, "maxEvidenceCount", 2}},
			"output", nil})
	case 2:
		return solutionReply(f.t, "", obj{
			"advisors", gate("edit", "Both lines are known.", `{"replace_text":80}`),
			"calls", []any{
				obj{"_tool", "replace_text", "_reasoningForCall", "The entrance, formal.", "pointer", "2:1.p1", "newMarkdown", formalOne},
				obj{"_tool", "replace_text", "_reasoningForCall", "The request for silence, formal.", "pointer", "3:1.p2", "newMarkdown", formalTwo}},
			"output", nil})
	}
	return solutionReply(f.t, "", obj{
		"advisors", gate("edit", "Done.", `{}`),
		"calls", []any{},
		"output", obj{"answer", "Одна реплика стала торжественнее: 2:1.p1; вторую вы отклонили."}})
}

// protocolKey tells protocol runs apart: the user command they carry.
func protocolKey(req llmtest.Request) string {
	if strings.Contains(string(req.Body), protocolCommand) {
		return protocolCommand
	}
	return string(req.Body[:min(len(req.Body), 64)])
}
