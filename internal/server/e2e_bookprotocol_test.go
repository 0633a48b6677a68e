package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aitexteditor/aite/examples"
	"github.com/aitexteditor/aite/internal/agent/protocol"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
	"github.com/aitexteditor/aite/internal/tool/bookprotocol"
)

// The protocol book editor through the whole server (AGENT_PROTOCOL § 5.3,
// § 5.4, § 6): the built-in bookEditorProtocol, cursorAgent and
// paragraphEditor files, the bookprotocol activities and reference-card
// providers wired as the App wires them, the real OpenAI adapter in front of
// the fake server (a json_schema-capable model: every reply is one solution
// in `content`).

// bookProtocolDefinitions are testDefinitions plus the built-in protocol
// book editor files (model key "fake"), with overrides on top.
func bookProtocolDefinitions(t testing.TB, overrides map[string]string) map[string]string {
	t.Helper()
	files, err := bookprotocol.Files(bookprotocol.Config{ModelKey: "fake"})
	if err != nil {
		t.Fatal(err)
	}
	out := maps.Clone(testDefinitions)
	for name, content := range files {
		out[name] = string(content)
	}
	maps.Copy(out, overrides)
	return out
}

func bookProtocolHarness(t testing.TB, book string, overrides map[string]string) *harness {
	return newHarness(t, harnessOptions{files: bookProtocolDefinitions(t, overrides), book: []byte(book),
		protocolBook: true, jsonSchema: true})
}

// obj is an ordered JSON object for scripted solutions: key, value, key,
// value… (models write the solution in schema order).
type obj []any

// MarshalJSON encodes the pairs in order.
func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i+1 < len(o); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(o[i])
		if err != nil {
			return nil, err
		}
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

// solution is a model reply: an optional reasoning delta, then the
// solution JSON as the content.
func solution(t testing.TB, reasoning string, sol obj) llmtest.Response {
	b, err := json.Marshal(sol)
	if err != nil {
		t.Errorf("script: %v", err)
	}
	var cs []string
	if reasoning != "" {
		cs = append(cs, llmtest.ReasoningChunk(reasoning))
	}
	return sse(append(cs, llmtest.ContentChunk(string(b)), llmtest.FinishChunk("stop"), llmtest.UsageChunk(900, 60, 0))...)
}

// gateOpinion is one editGate entry: decision, thought and the weights
// string.
func gateOpinion(decision, thought, weights string) []any {
	return []any{obj{"id", "editGate", "decision", decision, "thought", thought, "calls", weights}}
}

// unexpected answers a request the script has no reply for.
func unexpected(t testing.TB, what string, req llmtest.Request) llmtest.Response {
	t.Errorf("unexpected %s request %d:\n%s", what, req.N, lastMessage(req, "user"))
	return llmtest.Response{Status: http.StatusBadRequest, Body: `{"error":{"message":"unexpected request"}}`}
}

// The agents of the protocol book editor, told apart by their system
// prompts.
const (
	agentEditor    = "editor"
	agentCursor    = "cursor"
	agentParagraph = "paragraph"
)

func agentOf(req llmtest.Request) string {
	sys := lastMessage(req, "system")
	switch {
	case strings.HasPrefix(sys, "You are a careful reader"):
		return agentCursor
	case strings.HasPrefix(sys, "You rewrite one item"):
		return agentParagraph
	case strings.HasPrefix(sys, "You are an editing assistant"):
		return agentEditor
	}
	return ""
}

// contextBlock returns the compact JSON value of the rendered block
// `## <name>` of a rendered message (nil when absent).
func contextBlock(text, name string) map[string]any {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if l != "## "+name {
			continue
		}
		for _, v := range lines[i+1:] {
			if strings.HasPrefix(v, "## ") {
				return nil
			}
			var out map[string]any
			if strings.HasPrefix(v, "{") && json.Unmarshal([]byte(v), &out) == nil {
				return out
			}
		}
	}
	return nil
}

// waitFor blocks a fake-model reply until the client saw an event (closed
// ch), failing the test after a while instead of hanging.
func waitFor(t testing.TB, ch <-chan struct{}, what string) {
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Errorf("the client never saw %s", what)
	}
}

// closer closes a channel once.
type closer struct {
	once sync.Once
	ch   chan struct{}
}

func newCloser() *closer                         { return &closer{ch: make(chan struct{})} }
func (c *closer) close()                         { c.once.Do(func() { close(c.ch) }) }
func (c *closer) wait(t testing.TB, what string) { waitFor(t, c.ch, what) }

// scripted counts the requests per agent under a lock and records them.
type scripted struct {
	mu   sync.Mutex
	n    map[string]int
	reqs map[string][]llmtest.Request
}

func newScripted() *scripted {
	return &scripted{n: map[string]int{}, reqs: map[string][]llmtest.Request{}}
}

// next records req and returns its agent and that agent's request number
// (1-based).
func (s *scripted) next(req llmtest.Request) (string, int) {
	agent := agentOf(req)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n[agent]++
	s.reqs[agent] = append(s.reqs[agent], req)
	return agent, s.n[agent]
}

func (s *scripted) requests(agent string) []llmtest.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]llmtest.Request(nil), s.reqs[agent]...)
}

// cursorReply scripts the cursor agent's three turns: read the first batch,
// note the evidence at pointer, answer with it. opinion, when not nil, is
// its advisor entry for each turn.
func cursorReply(t testing.TB, n int, req llmtest.Request, cursorName, pointer, excerpt string, opinion func(weights string) []any) llmtest.Response {
	withAdvisors := func(weights string, rest ...any) obj {
		if opinion == nil {
			return obj(rest)
		}
		return append(obj{"advisors", opinion(weights)}, rest...)
	}
	user := lastMessage(req, "user")
	switch n {
	case 1:
		return solution(t, "", withAdvisors(`{"read_cursor_batch":95}`,
			"calls", []any{obj{"_tool", "read_cursor_batch", "_reasoningForCall", "Read the first batch.",
				"cursorName", cursorName, "startAfterPointer", nil}}, "output", nil))
	case 2:
		return solution(t, "", withAdvisors(`{"note_evidence":90,"read_cursor_batch":20}`,
			"calls", []any{obj{"_tool", "note_evidence", "_reasoningForCall", "This item answers the task.",
				"pointer", pointer, "reason", "the professor enters the classroom"}}, "output", nil))
	case 3:
		batch := contextBlock(user, "¶batch")
		if batch == nil {
			t.Errorf("the cursor agent's last turn shows no batch:\n%s", user)
			batch = map[string]any{}
		}
		return solution(t, "", withAdvisors(`{}`, "calls", []any{},
			"output", obj{"found", true, "pointer", pointer, "excerpt", excerpt,
				"whyThis", "the professor is named as he enters", "nextAfterPointer", batch["nextAfterPointer"]}))
	}
	return unexpected(t, "cursor agent", req)
}

// approve posts the approval of an approval.request frame (edit approval):
// every held call runs.
func (h *harness) approve(t testing.TB, runID string, f frame) {
	code, env := h.postJSON("/api/ap/submit", `{"runId":"`+runID+`","toolId":"`+f.data["approvalId"].(string)+`","params":{"decision":"approve"}}`)
	if data, _ := env["data"].(map[string]any); code != 200 || data["status"] != "accepted" {
		t.Errorf("/submit of the edit approval: %d %v", code, env)
	}
}

// approvalCalls lists the tool ids of an approval.request's calls.
func approvalCalls(f frame) []string {
	var out []string
	calls, _ := f.data["calls"].([]any)
	for _, c := range calls {
		out = append(out, c.(map[string]any)["toolId"].(string))
	}
	return out
}

// toolResult returns the tool.result frame of toolID.
func toolResult(frames []frame, toolID string) map[string]any {
	for _, f := range frames {
		if f.typ() == "tool.result" && f.data["toolId"] == toolID {
			return f.data
		}
	}
	return nil
}

// resultPayload decodes a tool.result string.
func resultPayload(t testing.TB, data map[string]any) map[string]any {
	t.Helper()
	s, _ := data["result"].(string)
	var out map[string]any
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		t.Fatalf("tool.result %q is not a JSON object: %v", s, err)
	}
	return out
}

// callTurnRE takes the turn out of a top-run tool id ({runId}_call_{turn}_{index}).
var callTurnRE = regexp.MustCompile(`_call_(\d+)_\d+$`)

// snapshotsBeforeTools asserts § 5.3: every turn's advisor.snapshot of the
// top run comes before the turn's first tool.start.
func snapshotsBeforeTools(t *testing.T, frames []frame) {
	t.Helper()
	firstStart := map[string]int{} // turn → index of its first tool.start
	for i, f := range frames {
		id, _ := f.data["toolId"].(string)
		if m := callTurnRE.FindStringSubmatch(id); f.typ() == "tool.start" && m != nil {
			if _, ok := firstStart[m[1]]; !ok {
				firstStart[m[1]] = i
			}
		}
	}
	n := 0
	for i, f := range frames {
		if f.typ() != "advisor.snapshot" || f.data["parentToolId"] != nil {
			continue
		}
		n++
		turn := fmt.Sprint(f.data["turn"])
		if start, ok := firstStart[turn]; ok && start < i {
			t.Errorf("advisor.snapshot of turn %s comes after the turn's first tool.start", turn)
		}
	}
	if n == 0 {
		t.Error("no advisor.snapshot of the top run")
	}
}

// documentState returns the stored document's markdown and revision.
func (h *harness) documentState() (string, float64) {
	h.t.Helper()
	_, raw := h.get("/api/ap/document/raw?documentId=" + h.docID)
	data, _ := raw["data"].(map[string]any)
	md, _ := data["markdown"].(string)
	rev, _ := data["revision"].(float64)
	return md, rev
}

// historyToolIDs returns the toolIds of the document's stored edits.
func (h *harness) historyToolIDs() []string {
	h.t.Helper()
	_, hist := h.get("/api/ap/document/history?documentId=" + h.docID)
	data, _ := hist["data"].(map[string]any)
	var out []string
	for _, e := range data["edits"].([]any) {
		out = append(out, e.(map[string]any)["toolId"].(string))
	}
	return out
}

// formalEntrance is the rewritten first paragraph of testBook.
const formalEntrance = "Профессор Звёздочкин торжественно вошёл в класс."

// TestGoldenProtocolAdvisorGatedEdit (§ 6.1, vector X4 through the
// server): the editGate advisor votes replace_text down (5 < 30) while the
// model calls it anyway next to run_cursor_agent: the edit is denied
// (guard_denied) and the reading sub-run goes through; the next turn the
// model sees the error, the advisor votes for the edit, replace_text
// applies the cursor agent's pointer through the reference
// †state.search.pointer (document.edit, revision 1 persisted); then the
// output. advisor.snapshot precedes each turn's first tool.start.
//
// Determinism: the cursor agent's first reply waits until the client has
// seen the denied call's tool.result, so the two results of turn 2 always
// arrive in the same order.
// advisorGatedEdit runs the advisor-gated edit scenario; answer answers the
// edit approval when a frame calls for it.
func advisorGatedEdit(t *testing.T, answer func(h *harness, runID string, f frame)) (h *harness, s *scripted, runID string, frames, approvals []frame) {
	h = bookProtocolHarness(t, testBook, nil)
	s = newScripted()
	denied := newCloser()
	h.llm.SetHandler(func(req llmtest.Request) llmtest.Response {
		agent, n := s.next(req)
		switch agent {
		case agentCursor:
			if n == 1 {
				denied.wait(t, "the guard_denied tool.result")
			}
			return cursorReply(t, n, req, "kwd_cursor_0", "2:1.p1", "Профессор Звёздочкин вошёл", nil)
		case agentEditor:
		default:
			return unexpected(t, "unknown agent", req)
		}
		switch n {
		case 1:
			return solution(t, "The professor must be found before anything changes.", obj{
				"advisors", gateOpinion("keepReading", "Nothing is located yet.", `{"create_keyword_cursor":90,"replace_text":5}`),
				"calls", []any{obj{"_tool", "create_keyword_cursor", "_reasoningForCall", "Find the professor by name.",
					"keywords", []any{"Звёздочкин"}, "includeHeadings", false}},
				"output", nil})
		case 2:
			return solution(t, "", obj{
				"advisors", gateOpinion("keepReading", "The cursor exists but no scene is confirmed.", `{"run_cursor_agent":85,"replace_text":5}`),
				"calls", []any{
					obj{"_tool", "run_cursor_agent", "_reasoningForCall", "Locate the entrance.", "_scopes", []any{},
						"cursorName", "kwd_cursor_0", "task", "the paragraph where the professor enters the classroom",
						"context", nil, "startAfterPointer", nil, "maxEvidenceCount", 1},
					obj{"_tool", "replace_text", "_reasoningForCall", "A guess at the entrance.",
						"pointer", "2:1.p1", "newMarkdown", formalEntrance}},
				"output", nil})
		case 3:
			return solution(t, "", obj{
				"advisors", gateOpinion("edit", "The cursor agent found the entrance.", `{"replace_text":80}`),
				"calls", []any{obj{"_tool", "replace_text", "_reasoningForCall", "Make the entrance formal.",
					"pointer", "†state.search.pointer", "newMarkdown", formalEntrance}},
				"output", nil})
		case 4:
			return solution(t, "", obj{
				"advisors", gateOpinion("edit", "The edit is done.", `{}`),
				"calls", []any{},
				"output", obj{"answer", "The professor now enters formally: 2:1.p1."}})
		}
		return unexpected(t, "book editor", req)
	})
	frames = h.run(`{"message":"Make the professor's entrance more formal","agentKey":"bookEditorProtocol","params":{"documentId":"`+h.docID+`"}}`,
		func(f frame) bool {
			switch f.typ() {
			case "run.start":
				runID, _ = f.data["runId"].(string)
			case "tool.result":
				if id, _ := f.data["toolId"].(string); strings.HasSuffix(id, "_call_2_1") {
					denied.close()
				}
			case "approval.request":
				approvals = append(approvals, f)
			}
			answer(h, runID, f)
			return true
		})
	denied.close()
	return h, s, runID, frames, approvals
}

func TestGoldenProtocolAdvisorGatedEdit(t *testing.T) {
	h, s, runID, frames, approvals := advisorGatedEdit(t, func(h *harness, runID string, f frame) {
		if f.typ() == "approval.request" {
			h.approve(t, runID, f)
		}
	})
	checkStream(t, frames, 1)
	golden(t, "protocol_advisor_gated_edit", h.masked(frames))
	snapshotsBeforeTools(t, frames)

	// Only the edit the guard let through is put to the user (edit approval).
	if len(approvals) != 1 || !slices.Equal(approvalCalls(approvals[0]), []string{runID + "_call_3_0"}) {
		t.Errorf("approval requests: %v", approvals)
	}

	// Turn 2: the edit denied by the guard, the reading sub-run dispatched.
	deny := resultPayload(t, toolResult(frames, runID+"_call_2_1"))
	if deny["ok"] != false || deny["code"] != "guard_denied" || !strings.Contains(deny["error"].(string), "replace_text") {
		t.Errorf("denied replace_text: %v", deny)
	}
	search := resultPayload(t, toolResult(frames, runID+"_call_2_0"))
	if search["found"] != true || search["pointer"] != "2:1.p1" {
		t.Errorf("run_cursor_agent result: %v", search)
	}
	// Turn 3 shows the model the denial (§ 3.2: an error message next turn).
	editor := s.requests(agentEditor)
	if len(editor) != 4 || !strings.Contains(lastMessage(editor[2], "user"), "guard_denied") {
		t.Errorf("the third book-editor request does not show guard_denied:\n%s", lastMessage(editor[2], "user"))
	}
	if len(s.requests(agentCursor)) != 3 {
		t.Errorf("cursor agent requests: %d", len(s.requests(agentCursor)))
	}
	// The edit: document.edit between tool.end and tool.result, persisted as
	// revision 1 with the call's toolId.
	ty := types(frames)
	e := slices.Index(ty, "document.edit")
	if e < 2 || frames[e-2].typ() != "approval.decision" || frames[e-1].data["toolId"] != "calls:"+runID+"_call_3_0" ||
		frames[e+1].typ() != "tool.result" ||
		frames[e].data["toolId"] != runID+"_call_3_0" || frames[e].data["revision"] != float64(1) {
		t.Fatalf("document.edit: %v / %v", ty, frames[max(e, 0)].data)
	}
	md, rev := h.documentState()
	want := strings.Replace(testBook, "Профессор Звёздочкин вошёл в класс.", formalEntrance, 1)
	if md != want || rev != 1 {
		t.Errorf("stored document (revision %v):\n%s\nwant:\n%s", rev, md, want)
	}
	if ids := h.historyToolIDs(); !slices.Equal(ids, []string{runID + "_call_3_0"}) {
		t.Errorf("document history toolIds: %v", ids)
	}
}

// cardsBook is testBook with reference cards in its appendix: the
// book.characters and book.glossary providers read them.
const cardsBook = testBook + "\n## Персонажи\n\n- Звёздочкин: профессор астрономии, говорит витиевато.\n- Варя: ученица, дочь смотрителя.\n" +
	"\n## Глоссарий\n\n- Класс: школьная комната с партами.\n"

// The card texts the scope tests look for in the model requests.
const (
	charactersText = "профессор астрономии"
	glossaryText   = "школьная комната"
)

// cursorAgentWithAdvisor is the built-in cursorAgent plus an advisor
// evidenceCheck (on: request), so its sub-run streams advisor.snapshot
// events nested under the parent call.
func cursorAgentWithAdvisor(t testing.TB) map[string]string {
	t.Helper()
	files, err := bookprotocol.Files(bookprotocol.Config{ModelKey: "fake"})
	if err != nil {
		t.Fatal(err)
	}
	const path = "agents/" + bookprotocol.CursorAgentKey + ".json"
	var def map[string]json.RawMessage
	if err := json.Unmarshal(files[path], &def); err != nil {
		t.Fatal(err)
	}
	def["advisors"] = json.RawMessage(`[{"id": "evidenceCheck", "on": "request",
		"role": "Check that each noted item really answers the task.",
		"schema": {"type": "object", "properties": {"thought": {"type": "string"}}, "required": ["thought"]}}]`)
	b, err := json.Marshal(def)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{path: string(b)}
}

func evidenceOpinion(weights string) []any {
	return []any{obj{"id", "evidenceCheck", "thought", "Only items that name the professor count.", "calls", weights}}
}

// scopeScript is the book editor of the scope tests: turn 1 creates the
// cursor, turn 2 calls run_cursor_agent asking for the characters card,
// turn 3 answers (answer).
func scopeScript(t testing.TB, n int, req llmtest.Request, answer string) llmtest.Response {
	switch n {
	case 1:
		return solution(t, "", obj{
			"advisors", gateOpinion("keepReading", "Nothing is located yet.", `{"create_keyword_cursor":90}`),
			"calls", []any{obj{"_tool", "create_keyword_cursor", "_reasoningForCall", "Find the professor by name.",
				"keywords", []any{"Звёздочкин"}, "includeHeadings", false}},
			"output", nil})
	case 2:
		return solution(t, "", obj{
			"advisors", gateOpinion("keepReading", "The reader needs to know who the professor is.", `{"run_cursor_agent":85}`),
			"calls", []any{obj{"_tool", "run_cursor_agent", "_reasoningForCall", "Locate the professor's first scene.",
				"_scopes", []any{"characters"}, "cursorName", "kwd_cursor_0",
				"task", "the paragraph where the professor enters the classroom",
				"context", nil, "startAfterPointer", nil, "maxEvidenceCount", 1}},
			"output", nil})
	case 3:
		return solution(t, "", obj{
			"advisors", gateOpinion("ask", "Nothing to change.", `{}`),
			"calls", []any{},
			"output", obj{"answer", answer}})
	}
	return unexpected(t, "book editor", req)
}

// scopeEvents lists the scope-related events of a stream with their tool
// ids (the run id masked).
func scopeEvents(frames []frame, runID string) []string {
	var out []string
	for _, f := range frames {
		switch ty := f.typ(); ty {
		case "tool.end", "tool.result", "scope.request", "scope.decision", "request.submit", "advisor.snapshot":
			id, _ := f.data["toolId"].(string)
			if p, ok := f.data["parentToolId"].(string); ok {
				id = "parent=" + p
			}
			out = append(out, ty+" "+strings.ReplaceAll(id, runID, "RUN"))
		}
	}
	return out
}

// TestGoldenProtocolScopeApproved (§ 5.4, § 6.2, vector X5 with approve):
// run_cursor_agent asks for the characters card; the client reads
// scope.request and posts approve with remember "run"; the stream shows
// request.submit then scope.decision, the sub-run proceeds (its
// advisor.snapshot events carry parentToolId), its result is written and
// the run answers. The child sees the user command and the characters card,
// never the glossary it did not ask for.
func TestGoldenProtocolScopeApproved(t *testing.T) {
	h := bookProtocolHarness(t, cardsBook, cursorAgentWithAdvisor(t))
	s := newScripted()
	h.llm.SetHandler(func(req llmtest.Request) llmtest.Response {
		switch agent, n := s.next(req); agent {
		case agentCursor:
			return cursorReply(t, n, req, "kwd_cursor_0", "2:1.p1", "Профессор Звёздочкин вошёл", evidenceOpinion)
		case agentEditor:
			return scopeScript(t, n, req, "The professor first enters at 2:1.p1.")
		}
		return unexpected(t, "unknown agent", req)
	})
	var runID string
	var submit map[string]any
	frames := h.run(`{"message":"Where does the professor first appear?","agentKey":"bookEditorProtocol","params":{"documentId":"`+h.docID+`"}}`,
		func(f frame) bool {
			switch f.typ() {
			case "run.start":
				runID, _ = f.data["runId"].(string)
			case "scope.request":
				_, submit = h.postJSON("/api/ap/submit", `{"runId":"`+runID+`","toolId":"`+f.data["approvalId"].(string)+
					`","params":{"decision":"approve","remember":"run"}}`)
			}
			return true
		})
	checkStream(t, frames, 1)
	golden(t, "protocol_scope_approved", h.masked(frames))
	snapshotsBeforeTools(t, frames)
	if data, _ := submit["data"].(map[string]any); data["status"] != "accepted" {
		t.Errorf("/submit: %v", submit)
	}
	want := []string{"advisor.snapshot ", "tool.end RUN_call_1_0", "tool.result RUN_call_1_0", "advisor.snapshot ",
		"tool.end RUN_call_2_0", "scope.request RUN_call_2_0", "request.submit scope:RUN_call_2_0", "scope.decision RUN_call_2_0",
		"advisor.snapshot parent=RUN_call_2_0", "advisor.snapshot parent=RUN_call_2_0", "advisor.snapshot parent=RUN_call_2_0",
		"tool.result RUN_call_2_0", "advisor.snapshot "}
	if got := scopeEvents(frames, runID); !slices.Equal(got, want) {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, f := range frames {
		switch f.typ() {
		case "scope.request":
			preview, _ := f.data["preview"].([]any)
			if !slices.Equal(anyStrings(f.data["provisioned"]), []string{"input"}) || !slices.Equal(anyStrings(f.data["scopes"]), []string{"characters"}) ||
				len(preview) != 1 || preview[0].(map[string]any)["scope"] != "characters" {
				t.Errorf("scope.request = %v", f.data)
			}
		case "scope.decision":
			if f.data["decision"] != "approve" || f.data["by"] != "user" || f.data["remember"] != "run" ||
				!slices.Equal(anyStrings(f.data["scopes"]), []string{"input", "characters"}) {
				t.Errorf("scope.decision = %v", f.data)
			}
		}
	}
	if r := resultPayload(t, toolResult(frames, runID+"_call_2_0")); r["found"] != true || r["pointer"] != "2:1.p1" {
		t.Errorf("run_cursor_agent result: %v", r)
	}
	// The child's context: the command, its task and the approved card only.
	child := s.requests(agentCursor)
	if len(child) != 3 {
		t.Fatalf("cursor agent requests: %d", len(child))
	}
	for i, req := range child {
		body := lastMessage(req, "system") + lastMessage(req, "user")
		if !strings.Contains(body, charactersText) || strings.Contains(body, glossaryText) ||
			!strings.Contains(body, "Where does the professor first appear?") || strings.Contains(body, "editGate") {
			t.Errorf("cursor agent request %d sees the wrong context:\n%s", i+1, body)
		}
	}
	if body := string(s.requests(agentEditor)[0].Body); !strings.Contains(body, charactersText) || !strings.Contains(body, glossaryText) {
		t.Error("the book editor does not see its reference cards")
	}
}

// TestGoldenProtocolScopeDenied (§ 5.4, vector X6): the client denies the
// characters card with a reason; scope.decision deny, the call is not
// dispatched (tool.result ok:false scope_denied), the next turn the model
// reads the error with the reason and answers. No sub-run ever starts, so
// no request carries the card outside the book editor's own context.
func TestGoldenProtocolScopeDenied(t *testing.T) {
	h := bookProtocolHarness(t, cardsBook, nil)
	s := newScripted()
	h.llm.SetHandler(func(req llmtest.Request) llmtest.Response {
		if agent, n := s.next(req); agent == agentEditor {
			return scopeScript(t, n, req, "I could not look: the character notes were not shared.")
		}
		return unexpected(t, "non-editor", req)
	})
	const reason = "The character notes are private."
	var runID string
	frames := h.run(`{"message":"Where does the professor first appear?","agentKey":"bookEditorProtocol","params":{"documentId":"`+h.docID+`"}}`,
		func(f frame) bool {
			switch f.typ() {
			case "run.start":
				runID, _ = f.data["runId"].(string)
			case "scope.request":
				code, env := h.postJSON("/api/ap/submit", `{"runId":"`+runID+`","toolId":"`+f.data["approvalId"].(string)+
					`","params":{"decision":"deny","reason":"`+reason+`"}}`)
				if data, _ := env["data"].(map[string]any); code != 200 || data["status"] != "accepted" {
					t.Errorf("/submit: %d %v", code, env)
				}
			}
			return true
		})
	checkStream(t, frames, 1)
	golden(t, "protocol_scope_denied", h.masked(frames))
	want := []string{"tool.end RUN_call_2_0", "scope.request RUN_call_2_0", "request.submit scope:RUN_call_2_0",
		"scope.decision RUN_call_2_0", "tool.result RUN_call_2_0", "advisor.snapshot "}
	if got := scopeEvents(frames, runID); len(got) < len(want) || !slices.Equal(got[len(got)-len(want):], want) {
		t.Errorf("events:\n%s\nwant the tail:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, f := range frames {
		if f.typ() == "scope.decision" && (f.data["decision"] != "deny" || f.data["reason"] != reason ||
			slices.Contains(anyStrings(f.data["scopes"]), "characters")) {
			t.Errorf("scope.decision = %v", f.data)
		}
	}
	if r := resultPayload(t, toolResult(frames, runID+"_call_2_0")); r["ok"] != false || r["code"] != "scope_denied" ||
		!strings.Contains(r["error"].(string), reason) {
		t.Errorf("denied run_cursor_agent: %v", r)
	}
	// The next turn shows the model the denial with its reason.
	editor := s.requests(agentEditor)
	if len(editor) != 3 {
		t.Fatalf("book editor requests: %d", len(editor))
	}
	if user := lastMessage(editor[2], "user"); !strings.Contains(user, "scope_denied") || !strings.Contains(user, reason) {
		t.Errorf("the third request does not show the denial:\n%s", user)
	}
	if n := len(s.requests(agentCursor)); n != 0 {
		t.Errorf("the denied sub-run ran: %d cursor agent requests", n)
	}
}

// styledSample is the sample book with a style guide in its appendix (the
// book.styleGuide card the paragraph editors follow).
var styledSample = string(examples.Zvezdochkin) + "\n## Руководство по стилю\n\n" +
	"- Речь профессора — старомодно-учтивая, на «вы».\n- Сохраняйте мягкую иронию рассказчика.\n"

// formalLines are the paragraph editors' rewrites of the professor's first
// three lines of the sample book, by the line's opening words.
var formalLines = map[string]string{
	"— Это я!": "— Позвольте представиться! — произнёс он через весь перрон и приподнял шляпу. — Профессор Звёздочкин, Аркадий Львович. " +
		"Полагаю, вы и есть встречающая сторона?",
	"— Козу": "— Поиски козы — дело совершенно верное, — серьёзно кивнул Звёздочкин. — Коза, несомненно, важнее профессора: " +
		"профессоров много, а коза, возможно, одна на весь город.",
	"— Ещё бы": "— Разумеется, тикают, — заметил Звёздочкин. — Там полдюжины часов, и все они спорят между собой. " +
		"Не желаете ли взглянуть? Только прошу не смеяться.",
}

// professorLines returns the pointers and Markdown of the first three
// paragraphs in which Звёздочкин speaks (they open with a dash).
func (h *harness) professorLines() (ptrs, mds []string) {
	h.t.Helper()
	_, env := h.get("/api/ap/document/items?documentId=" + h.docID + "&limit=500")
	data, _ := env["data"].(map[string]any)
	for _, it := range data["items"].([]any) {
		item := it.(map[string]any)
		md := item["markdown"].(string)
		if item["type"] == "paragraph" && strings.HasPrefix(md, "— ") && strings.Contains(md, "Звёздочкин") && len(ptrs) < 3 {
			ptrs, mds = append(ptrs, item["pointer"].(string)), append(mds, md)
		}
	}
	if len(ptrs) != 3 {
		h.t.Fatalf("the sample book has %d professor lines", len(ptrs))
	}
	return ptrs, mds
}

// formalLine returns the scripted rewrite of md.
func formalLine(t testing.TB, md string) string {
	for prefix, line := range formalLines {
		if strings.HasPrefix(md, prefix) {
			return line
		}
	}
	t.Errorf("no scripted rewrite of %q", md)
	return md
}

// TestGoldenProtocolInstancedEdit is the § 6.3 flow on the sample book:
// create_targets makes three instances t1–t3; the next turn runs three
// instanced rewrite_paragraph delegate calls (paragraphEditor sub-runs,
// each seeing only its own paragraph and the style guide) and three
// replace_text calls whose references †state.pointer and
// †state.proposal.newMarkdown wait for their own instance's proposal. The
// edits are held for the edit approval: once nothing else runs, one
// approval.request shows all three with their previews, the client posts
// approve, request.submit and approval.decision follow, and the edits are
// applied and persisted (revisions 1–3); then the output.
//
// Determinism: the paragraph editor of target i+1 answers only after the
// client has seen the tool.result of target i's rewrite, and the approved
// replace_text of target i+1 runs only after the client has seen target
// i's edit result, so the parallel sub-runs and edits always complete in
// target order.
func TestGoldenProtocolInstancedEdit(t *testing.T) {
	rewritten := []*closer{newCloser(), newCloser(), newCloser()} // target i's rewrite result seen
	edited := []*closer{newCloser(), newCloser(), newCloser()}    // target i's edit result seen
	h := newHarness(t, harnessOptions{files: bookProtocolDefinitions(t, nil), book: []byte(styledSample),
		protocolBook: true, jsonSchema: true, activityGate: func(_ context.Context, call *protocol.Call) {
			for i := 1; i < 3; i++ {
				if call.Tool == "replace_text" && strings.HasSuffix(call.ToolID, fmt.Sprintf("_call_2_%d", 3+i)) {
					edited[i-1].wait(t, fmt.Sprintf("the edit result of t%d", i))
				}
			}
		}})
	ptrs, mds := h.professorLines()
	s := newScripted()
	h.llm.SetHandler(func(req llmtest.Request) llmtest.Response {
		agent, n := s.next(req)
		switch agent {
		case agentParagraph:
			st := contextBlock(lastMessage(req, "user"), "¶state")
			i := slices.Index(ptrs, fmt.Sprint(st["pointer"]))
			if i < 0 {
				return unexpected(t, "paragraph editor", req)
			}
			if i > 0 {
				rewritten[i-1].wait(t, fmt.Sprintf("the rewrite result of t%d", i))
			}
			return solution(t, "", obj{"output", obj{"newMarkdown", formalLine(t, fmt.Sprint(st["markdown"]))}})
		case agentEditor:
		default:
			return unexpected(t, "unknown agent", req)
		}
		switch n {
		case 1:
			return solution(t, "Three of the professor's lines need the formal register.", obj{
				"advisors", gateOpinion("edit", "The three lines are known.", `{"create_targets":90}`),
				"calls", []any{obj{"_tool", "create_targets", "_reasoningForCall", "One target per line.", "_instance", nil,
					"label", "professor lines", "pointers", []any{ptrs[0], ptrs[1], ptrs[2]}}},
				"output", nil})
		case 2:
			var calls []any
			for _, id := range []string{"t1", "t2", "t3"} {
				calls = append(calls, obj{"_tool", "rewrite_paragraph", "_reasoningForCall", "Rewrite this line.", "_instance", id,
					"instruction", "make the professor's speech more formal"})
			}
			for _, id := range []string{"t1", "t2", "t3"} {
				calls = append(calls, obj{"_tool", "replace_text", "_reasoningForCall", "Apply the proposal.", "_instance", id,
					"pointer", "†state.pointer", "newMarkdown", "†state.proposal.newMarkdown"})
			}
			return solution(t, "", obj{
				"advisors", gateOpinion("edit", "Targets are set; rewrite and apply.", `{"rewrite_paragraph":80,"replace_text":70}`),
				"calls", calls, "output", nil})
		case 3:
			return solution(t, "", obj{
				"advisors", gateOpinion("edit", "All three edits applied.", `{}`),
				"calls", []any{},
				"output", obj{"answer", fmt.Sprintf("Rewrote 3 paragraphs: %s, %s, %s.", ptrs[0], ptrs[1], ptrs[2])}})
		}
		return unexpected(t, "book editor", req)
	})
	var runID string
	var approvals []frame
	frames := h.run(`{"message":"Make the professor's speech more formal in his first three lines","agentKey":"bookEditorProtocol","params":{"documentId":"`+h.docID+`"}}`,
		func(f frame) bool {
			switch f.typ() {
			case "run.start":
				runID, _ = f.data["runId"].(string)
			case "tool.result":
				for i := range 3 {
					switch f.data["toolId"] {
					case fmt.Sprintf("%s_call_2_%d", runID, i):
						rewritten[i].close()
					case fmt.Sprintf("%s_call_2_%d", runID, 3+i):
						edited[i].close()
					}
				}
			case "approval.request":
				approvals = append(approvals, f)
				h.approve(t, runID, f)
			}
			return true
		})
	for _, c := range append(rewritten, edited...) {
		c.close()
	}
	checkStream(t, frames, 1)
	golden(t, "protocol_instanced_edit", h.masked(frames))
	snapshotsBeforeTools(t, frames)

	// Each paragraph editor saw its own paragraph and the style guide only.
	sub := s.requests(agentParagraph)
	if len(sub) != 3 {
		t.Fatalf("paragraph editor requests: %d", len(sub))
	}
	for _, req := range sub {
		body := lastMessage(req, "system") + "\n" + lastMessage(req, "user")
		own := 0
		for _, md := range mds {
			if strings.Contains(body, md) {
				own++
			}
		}
		if own != 1 || !strings.Contains(body, "старомодно-учтивая") || strings.Contains(body, "_instance") ||
			strings.Contains(body, "editGate") || strings.Contains(body, "professor lines") {
			t.Errorf("a paragraph editor sees the wrong context:\n%s", body)
		}
	}
	// One approval for the three edits, each previewed with its old and new
	// Markdown; approved together.
	edits3 := []string{runID + "_call_2_3", runID + "_call_2_4", runID + "_call_2_5"}
	if len(approvals) != 1 || !slices.Equal(approvalCalls(approvals[0]), edits3) {
		t.Fatalf("approval requests: %v", approvals)
	}
	for i, c := range approvals[0].data["calls"].([]any) {
		pv, _ := c.(map[string]any)["preview"].(map[string]any)
		if pv["op"] != "replace" || pv["pointer"] != ptrs[i] || pv["oldMarkdown"] != mds[i] || pv["newMarkdown"] != formalLine(t, mds[i]) {
			t.Errorf("preview of t%d: %v", i+1, pv)
		}
	}
	for _, f := range frames {
		if f.typ() == "approval.decision" && (f.data["decision"] != "approve" || !slices.Equal(anyStrings(f.data["approved"]), edits3)) {
			t.Errorf("approval.decision = %v", f.data)
		}
	}
	// Three edits: document.edit before each replace_text result, the
	// results carry old and new Markdown, the revisions are persisted.
	var edits []string
	for _, f := range frames {
		if f.typ() == "document.edit" {
			edits = append(edits, fmt.Sprintf("%v %v", f.data["toolId"], f.data["revision"]))
		}
	}
	wantEdits := []string{runID + "_call_2_3 1", runID + "_call_2_4 2", runID + "_call_2_5 3"}
	if !slices.Equal(edits, wantEdits) {
		t.Errorf("document.edit events %v, want %v", edits, wantEdits)
	}
	for i := range 3 {
		r := resultPayload(t, toolResult(frames, fmt.Sprintf("%s_call_2_%d", runID, 3+i)))
		if r["ok"] != true || r["oldMarkdown"] != mds[i] || r["newMarkdown"] != formalLine(t, mds[i]) {
			t.Errorf("replace_text t%d: %v", i+1, r)
		}
	}
	md, rev := h.documentState()
	want := styledSample
	for _, old := range mds {
		want = strings.Replace(want, old, formalLine(t, old), 1)
	}
	if md != want || rev != 3 {
		t.Errorf("stored document: revision %v, text as expected: %v", rev, md == want)
	}
	if ids := h.historyToolIDs(); !slices.Equal(ids, []string{runID + "_call_2_3", runID + "_call_2_4", runID + "_call_2_5"}) {
		t.Errorf("document history toolIds: %v", ids)
	}
}

// Issue 14: from a client that selects no document, every book tool of
// bookEditorProtocol failed with "no book is open": the latest-document
// fallback of bookEditor knew only the classic tool names. The protocol
// book editor now works on the most recently updated document too, bound
// to the chat like a selection.
func TestBookProtocolWithoutSelectionUsesTheLatestDocument(t *testing.T) {
	h := bookProtocolHarness(t, testBook, nil)
	h.llm.SetHandler(func(llmtest.Request) llmtest.Response { return text("no solution") })
	frames := h.run(`{"message":"Where does the professor first appear?","agentKey":"bookEditorProtocol"}`, nil)
	chatID, _ := frames[0].data["chatId"].(string)
	chat, err := h.st.GetChat(context.Background(), chatID)
	if err != nil {
		t.Fatal(err)
	}
	if chat.DocumentID != h.docID {
		t.Errorf("the protocol book editor's chat is bound to document %q, want the latest, %q", chat.DocumentID, h.docID)
	}
}

// Issue 14: a client that knows only the contract's frontend tools never
// saw approval.request, so the run waited 300 s per edit. The approval is
// also a call of the standard confirm tool (viewport confirm, with the
// diffs): answering it through /submit like any confirm form applies the
// edit.
func TestProtocolEditApprovedThroughTheConfirmTool(t *testing.T) {
	var confirm frame
	h, _, _, frames, _ := advisorGatedEdit(t, func(h *harness, runID string, f frame) {
		if f.typ() != "tool.start" || f.data["toolName"] != "confirm" {
			return // a contract-only client ignores approval.* events
		}
		confirm = f
		code, env := h.postJSON("/api/ap/submit", `{"runId":"`+runID+`","toolId":"`+f.data["toolId"].(string)+
			`","params":{"confirmed":true,"comment":"looks right"}}`)
		if data, _ := env["data"].(map[string]any); code != 200 || data["status"] != "accepted" {
			t.Errorf("/submit of the confirm form: %d %v", code, env)
		}
	})
	checkStream(t, frames, 1)
	if confirm.data == nil || confirm.data["toolType"] != "html" || confirm.data["toolKey"] != "confirm" {
		t.Fatalf("the approval is not offered as the confirm tool: %v", confirm.data)
	}
	params, _ := confirm.data["toolParams"].(map[string]any)
	edits, _ := params["edits"].([]any)
	if len(edits) != 1 || edits[0].(map[string]any)["pointer"] != "2:1.p1" ||
		!strings.Contains(edits[0].(map[string]any)["after"].(string), "Профессор") {
		t.Errorf("the confirm form does not show the diff: %v", params)
	}
	if last := frames[len(frames)-1]; last.typ() != "run.complete" {
		t.Fatalf("the run ended with %v", last.data)
	}
	var edited bool
	for _, f := range frames {
		edited = edited || f.typ() == "document.edit"
	}
	if !edited {
		t.Error("the confirmed edit was not applied")
	}
	if r := resultPayload(t, toolResult(frames, confirm.data["toolId"].(string))); r["confirmed"] != true || r["decision"] != "approve" {
		t.Errorf("the confirm call's result: %v", r)
	}
	_, raw := h.get("/api/ap/document/raw?documentId=" + h.docID)
	if rev := raw["data"].(map[string]any)["revision"]; rev != float64(1) {
		t.Errorf("revision %v after the confirmed edit", rev)
	}
}
