package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/agent"
	"github.com/aitexteditor/aite/internal/api"
	"github.com/aitexteditor/aite/internal/server/auth"
	"github.com/aitexteditor/aite/internal/store"
	"github.com/aitexteditor/aite/internal/tool"
)

var chBase = time.Date(2026, 2, 12, 10, 0, 0, 0, time.UTC)

// chStoreChat stores a chat with lastRunId and an updatedAt minute.
func chStoreChat(t *testing.T, st store.Store, id, lastRunID string, minute int) {
	t.Helper()
	at := chBase.Add(time.Duration(minute) * time.Minute)
	require.NoError(t, st.CreateChat(context.Background(), store.Chat{ID: id, Name: "n " + id, AgentKey: "alpha",
		CreatedAt: chBase, UpdatedAt: at, LastRunID: lastRunID}))
}

// chChatIDs lists the chatIds of GET /chats (with query, e.g. "?lastRunId=x").
func (e *chEnv) chatIDs(query string) []string {
	e.t.Helper()
	var list []ChatSummary
	e.ok(http.MethodGet, "/api/ap/chats"+query, "", &list)
	ids := []string{}
	for _, c := range list {
		ids = append(ids, c.ChatID)
	}
	return ids
}

// Row 9.
func TestChatsOrderAndIncrementalSync(t *testing.T) {
	e := newChEnv(t, chAnswer("x"), nil)
	chStoreChat(t, e.st, "c-old", "m0000001", 9)
	chStoreChat(t, e.st, "c-new", "m0000003", 1)
	chStoreChat(t, e.st, "c-mid-late", "m0000002", 8)
	chStoreChat(t, e.st, "c-mid-early", "m0000002", 2)
	chStoreChat(t, e.st, "c-none", "", 30)

	require.Equal(t, []string{"c-new", "c-mid-late", "c-mid-early", "c-old", "c-none"}, e.chatIDs(""))
	require.Equal(t, []string{"c-mid-early", "c-mid-late", "c-new"}, e.chatIDs("?lastRunId=m0000001"),
		"only newer chats, ascending")
	require.Equal(t, []string{}, e.chatIDs("?lastRunId=m0000003"))
	require.Equal(t, e.chatIDs(""), e.chatIDs("?lastRunId="), "a blank lastRunId is no filter")

	var raw []map[string]json.RawMessage
	e.ok(http.MethodGet, "/api/ap/chats", "", &raw)
	last := raw[len(raw)-1]
	require.Equal(t, "null", string(last["readAt"]), "readAt is an explicit null")
	require.JSONEq(t, `""`, string(last["lastRunId"]))
	require.JSONEq(t, `""`, string(last["lastRunContent"]))
	require.JSONEq(t, `0`, string(last["readStatus"]))
	require.JSONEq(t, `"alpha"`, string(last["agentKey"]))
	require.JSONEq(t, `"n c-none"`, string(last["chatName"]))
	require.JSONEq(t, jsonNum(chBase.UnixMilli()), string(last["createdAt"]))
	require.JSONEq(t, jsonNum(chBase.Add(30*time.Minute).UnixMilli()), string(last["updatedAt"]))
}

func jsonNum(n int64) string { b, _ := json.Marshal(n); return string(b) }

// Row 10.
func TestReadChat(t *testing.T) {
	e := newChEnv(t, chAnswer("x"), nil)
	const id = "0b9f3c1e-8d5a-4f7e-9c2b-1a2b3c4d5e6f"
	chStoreChat(t, e.st, id, "", 0)

	for _, body := range []string{`{"chatId":""}`, `{"chatId":"  "}`, `{}`, ``} {
		data := e.fail(http.MethodPost, "/api/ap/read", body, 400, "Validation failed")
		require.JSONEq(t, `{"fields":{"chatId":"must not be blank"}}`, string(data), body)
	}
	e.fail(http.MethodPost, "/api/ap/read", `{"chatId":"nope"}`, 400, "chatId must be a valid UUID")
	e.fail(http.MethodPost, "/api/ap/read", `{"chatId":42}`, 400, "Wrong type for field chatId")
	e.fail(http.MethodPost, "/api/ap/read", `{"chatId":`, 400, "Malformed JSON")
	e.fail(http.MethodPost, "/api/ap/read", `{"chatId":"7c9e6679-7425-40de-944b-e07fc1f90ae7"}`, 404,
		"Chat not found: 7c9e6679-7425-40de-944b-e07fc1f90ae7")

	before := time.Now().UnixMilli()
	var res ReadResult
	e.ok(http.MethodPost, "/api/ap/read", `{"chatId":"`+strings.ToUpper(id)+`","extra":1}`, &res)
	require.Equal(t, id, res.ChatID)
	require.Equal(t, 1, res.ReadStatus)
	require.GreaterOrEqual(t, res.ReadAt, before)

	var list []ChatSummary
	e.ok(http.MethodGet, "/api/ap/chats", "", &list)
	require.Equal(t, 1, list[0].ReadStatus)
	require.Equal(t, &res.ReadAt, list[0].ReadAt)
}

// Row 11: the chat row is updated before the terminal event is sent.
func TestRunEndMarksChatUnread(t *testing.T) {
	backends(t, testRunEndMarksChatUnread)
}

func testRunEndMarksChatUnread(t *testing.T, st store.Store) {
	var reply atomic.Pointer[[]string]
	e := newChEnvOn(t, st, func(ctx context.Context, f *chEngine, spec agent.Spec, em *chEmitter) error {
		return chAnswer(*reply.Load()...)(ctx, f, spec, em)
	}, nil)

	reply.Store(&[]string{"Hel", "lo"})
	evs := e.query(`{"message":"first question"}`).until(api.TypeRunComplete)
	runID := chRunID(t, evs)
	var chatID string
	evs[0].field(t, "chatId", &chatID)
	var list []ChatSummary
	e.ok(http.MethodGet, "/api/ap/chats", "", &list)
	require.Len(t, list, 1)
	require.Equal(t, runID, list[0].LastRunID, "set before run.complete reached the client")
	require.Equal(t, "Hello", list[0].LastRunContent)
	require.Equal(t, 0, list[0].ReadStatus)
	require.Nil(t, list[0].ReadAt)

	e.ok(http.MethodPost, "/api/ap/read", `{"chatId":"`+chatID+`"}`, nil)
	e.waitIdle()
	reply.Store(&[]string{})
	evs = e.query(`{"message":"second","chatId":"` + chatID + `"}`).until(api.TypeRunComplete)
	e.ok(http.MethodGet, "/api/ap/chats", "", &list)
	require.Equal(t, chRunID(t, evs), list[0].LastRunID)
	require.Equal(t, "second", list[0].LastRunContent, "no content: the user message")
	require.Equal(t, 0, list[0].ReadStatus, "a finished run makes the chat unread again")
	require.Nil(t, list[0].ReadAt)
	require.GreaterOrEqual(t, list[0].UpdatedAt, list[0].CreatedAt)
}

// Row 12.
func TestChatValidation(t *testing.T) {
	e := newChEnv(t, chAnswer("x"), nil)
	data := e.fail(http.MethodGet, "/api/ap/chat", "", 400, "Validation failed")
	require.JSONEq(t, `{"fields":{"chatId":"must not be blank"}}`, string(data))
	e.fail(http.MethodGet, "/api/ap/chat?chatId=abc", "", 400, "chatId must be a valid UUID")
	e.fail(http.MethodGet, "/api/ap/chat?chatId=7c9e6679-7425-40de-944b-e07fc1f90ae7", "", 404,
		"Chat not found: 7c9e6679-7425-40de-944b-e07fc1f90ae7")

	evs := e.query(`{"message":"hi"}`).until(api.TypeRunComplete)
	var chatID string
	evs[0].field(t, "chatId", &chatID)
	e.fail(http.MethodGet, "/api/ap/chat?chatId="+chatID+"&includeRawMessages=maybe", "", 400,
		"includeRawMessages must be a boolean")
	d, raw, _ := e.chatDetail(chatID, "&includeEvents=true")
	require.Equal(t, chatID, d.ChatID)
	require.Contains(t, raw, "events")
	_, raw, _ = e.chatDetail(strings.ToUpper(chatID), "")
	require.JSONEq(t, `"`+chatID+`"`, string(raw["chatId"]), "an uppercase chatId finds the chat")
}

// chMessages is a script that stores a user and an assistant message, then
// answers text.
func chMessages(text string) chScript {
	return func(ctx context.Context, f *chEngine, spec agent.Spec, em *chEmitter) error {
		user := `{"role":"user","content":[{"type":"text","text":` + chJSONString(spec.Message) + `}],"ts":1}`
		err := f.st.AppendMessages(ctx, spec.RunID, store.Message{Body: json.RawMessage(user)},
			store.Message{Body: json.RawMessage(`{"role":"assistant","content":[{"type":"text","text":"ok"}]}`)})
		if err != nil {
			return err
		}
		return chAnswer(text)(ctx, f, spec, em)
	}
}

func chJSONString(s string) string { b, _ := json.Marshal(s); return string(b) }

// Rows 13, 61, 64.
func TestChatEventsAndRawMessages(t *testing.T) {
	e := newChEnv(t, chMessages("Answer"), nil)
	first := e.query(`{"message":"one"}`).until(api.TypeRunComplete)
	var chatID string
	first[0].field(t, "chatId", &chatID)
	e.waitIdle()
	second := e.query(`{"message":"two","chatId":"` + chatID + `"}`).until(api.TypeRunComplete)
	run1, run2 := chRunID(t, first), chRunID(t, second)

	d, raw, evs := e.chatDetail(chatID, "")
	require.NotContains(t, raw, "rawMessages")
	require.NotContains(t, raw, "chatImageToken")
	require.NotContains(t, raw, "activeRunId")
	require.Equal(t, "one", d.ChatName)
	require.Equal(t, []string{
		"request.query", "chat.start", "run.start", "content.snapshot", "run.complete",
		"request.query", "run.start", "content.snapshot", "run.complete",
	}, chTypes(evs))
	var text, contentID string
	evs[3].field(t, "text", &text)
	evs[3].field(t, "contentId", &contentID)
	require.Equal(t, "Answer", text)
	require.Equal(t, run1+"_c_1", contentID, "history ids are the live ones")
	for i, ev := range evs {
		require.Equal(t, int64(i+1), ev.Seq, "seq runs 1.. across the chat")
		if i > 0 {
			require.Greater(t, ev.Timestamp, evs[i-1].Timestamp, "timestamps strictly increase")
		}
	}

	_, raw, _ = e.chatDetail(chatID, "&includeRawMessages=true")
	var msgs []map[string]any
	require.NoError(t, json.Unmarshal(raw["rawMessages"], &msgs))
	require.Len(t, msgs, 4)
	for i, want := range []string{run1, run1, run2, run2} {
		require.Equal(t, want, msgs[i]["runId"])
	}
	require.Equal(t, "user", msgs[2]["role"])
	require.Equal(t, float64(1), msgs[2]["ts"])

	_, raw, _ = e.chatDetail(chatID, "&includeRawMessages=false")
	require.NotContains(t, raw, "rawMessages")
}

// Row 14.
func TestChatReferences(t *testing.T) {
	e := newChEnv(t, chAnswer("x"), nil)
	evs := e.query(`{"message":"one"}`).until(api.TypeRunComplete)
	var chatID string
	evs[0].field(t, "chatId", &chatID)
	_, raw, _ := e.chatDetail(chatID, "")
	require.Equal(t, "[]", string(raw["references"]), "no references: []")

	e.waitIdle()
	e.query(`{"message":"two","chatId":"` + chatID + `","references":[{"id":"a","name":"first","url":"/data/a.png"},{"name":"no id"}]}`).until(api.TypeRunComplete)
	e.waitIdle()
	e.query(`{"message":"three","chatId":"` + chatID + `","references":[{"id":"a","name":"second"},{"id":"b","sizeBytes":0},{"name":"no id"}]}`).until(api.TypeRunComplete)
	_, raw, _ = e.chatDetail(chatID, "")
	require.JSONEq(t, `[{"id":"a","name":"first","url":"/data/a.png"},{"name":"no id"},{"id":"b","sizeBytes":0},{"name":"no id"}]`,
		string(raw["references"]))
}

// chFrontend is a script with a frontend tool call, a submit, a document
// edit and the tool result.
func chFrontend(ctx context.Context, f *chEngine, spec agent.Spec, em *chEmitter) error {
	em.Content("Let me ask.")
	em.CallStart(agent.Call{ID: "call_1", Name: "confirm", Kind: agent.CallFrontend, ToolType: api.ToolTypeHTML,
		ToolKey: "confirm", ToolTimeout: 300000})
	em.CallArgs("call_1", `{"question":`)
	em.CallArgs("call_1", `"Sure?"}`)
	em.TurnEnd()
	payload, err := f.await(ctx, spec.RunID, "call_1")
	if err != nil {
		return err
	}
	em.Submit("call_1", payload)
	em.DocumentEdit("call_1", tool.Edit{Book: "doc-1", Op: "replace", Pointer: "2:p1", NewPointer: "2:p1", Before: "a", After: "b"})
	em.ToolResult("call_1", string(payload))
	em.Content("Done.")
	em.TurnEnd()
	em.Complete(api.FinishStop)
	return nil
}

// Rows 39 (shape), 63: request.submit and document.edit keep their live
// order in history; the frontend tool.snapshot keeps its fields.
func TestChatHistoryFrontendSubmitEdit(t *testing.T) {
	e := newChEnv(t, chFrontend, nil)
	s := e.query(`{"message":"edit"}`)
	live := s.until(api.TypeToolEnd)
	runID := chRunID(t, live)
	<-e.eng.waiting
	var sub SubmitResponse
	e.ok(http.MethodPost, "/api/ap/submit", `{"runId":"`+runID+`","toolId":"call_1","params":{"ok":true}}`, &sub)
	require.Equal(t, SubmitResponse{Accepted: true, Status: "accepted", RunID: runID, ToolID: "call_1",
		Detail: "Frontend submit accepted for runId=" + runID + ", toolId=call_1"}, sub)
	live = append(live, s.until(api.TypeRunComplete)...)
	require.Equal(t, []string{"request.query", "chat.start", "run.start", "content.start", "content.delta", "content.end",
		"tool.start", "tool.args", "tool.args", "tool.end", "request.submit", "document.edit", "tool.result",
		"content.start", "content.delta", "content.end", "run.complete"}, chTypes(live))
	var payload json.RawMessage
	live[10].field(t, "payload", &payload)
	require.JSONEq(t, `{"ok":true}`, string(payload))
	var result string
	live[12].field(t, "result", &result)
	require.JSONEq(t, `{"ok":true}`, result)

	var chatID string
	live[0].field(t, "chatId", &chatID)
	_, _, evs := e.chatDetail(chatID, "")
	require.Equal(t, []string{"request.query", "chat.start", "run.start", "content.snapshot", "tool.snapshot",
		"request.submit", "document.edit", "tool.result", "content.snapshot", "run.complete"}, chTypes(evs))
	var snap api.ToolSnapshot
	require.NoError(t, json.Unmarshal([]byte(evs[4].Raw), &snap))
	require.Equal(t, api.ToolSnapshot{ToolID: "call_1", ToolName: "confirm", Arguments: `{"question":"Sure?"}`,
		ToolType: "html", ToolParams: json.RawMessage(`{"question":"Sure?"}`), ToolKey: "confirm", ToolTimeout: 300000}, snap)
	require.Equal(t, live[10].Raw[strings.Index(live[10].Raw, `"requestId"`):], evs[5].Raw[strings.Index(evs[5].Raw, `"requestId"`):],
		"request.submit is unchanged")
	var ids []string
	for _, i := range []int{3, 8} {
		var id string
		evs[i].field(t, "contentId", &id)
		ids = append(ids, id)
	}
	require.Equal(t, []string{runID + "_c_1", runID + "_c_2"}, ids)

	// Row 40: the wait was answered, a second submit is unmatched.
	e.ok(http.MethodPost, "/api/ap/submit", `{"runId":"`+runID+`","toolId":"call_1","params":{"ok":true}}`, &sub)
	require.Equal(t, SubmitResponse{Accepted: false, Status: "unmatched", RunID: runID, ToolID: "call_1",
		Detail: "No pending frontend tool found for runId=" + runID + ", toolId=call_1"}, sub)
}

// A running run shows its events so far, no terminal event, and activeRunId.
func TestChatWhileRunning(t *testing.T) {
	release := make(chan struct{})
	e := newChEnv(t, chStall(release), nil)
	s := e.query(`{"message":"wait"}`)
	live := s.until(api.TypeContentDelta)
	var chatID string
	live[0].field(t, "chatId", &chatID)
	runID := chRunID(t, live)

	d, raw, evs := e.chatDetail(chatID, "")
	require.JSONEq(t, `"`+runID+`"`, string(raw["activeRunId"]))
	require.Equal(t, "wait", d.ChatName)
	require.Equal(t, []string{"request.query", "chat.start", "run.start", "content.snapshot"}, chTypes(evs))
	var text string
	evs[3].field(t, "text", &text)
	require.Equal(t, "Hi", text)
	require.Len(t, e.runs.List(), 1, "reading the chat leaves the run running")

	close(release)
	s.until(api.TypeRunComplete)
	e.waitIdle()
	_, raw, evs = e.chatDetail(chatID, "")
	require.NotContains(t, raw, "activeRunId")
	require.Equal(t, "run.complete", evs[len(evs)-1].Type)
	evs[3].field(t, "text", &text)
	require.Equal(t, "Hi!", text)
}

// Rows 22 (history part): chatImageToken only with a subject and a secret.
func TestChatImageTokenInDetail(t *testing.T) {
	issuer := &auth.Issuer{Secret: "s3cret"}
	withSubject := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if sub := r.Header.Get("X-Test-Subject"); sub != "" {
				r = r.WithContext(auth.WithSubject(r.Context(), sub))
			}
			h.ServeHTTP(w, r)
		})
	}
	e := newChEnv(t, chAnswer("x"), withSubject, func(o *Options) { o.ChatTokens = issuer })
	evs := e.query(`{"message":"hi"}`).until(api.TypeRunComplete)
	var chatID string
	evs[0].field(t, "chatId", &chatID)
	_, raw, _ := e.chatDetail(chatID, "")
	require.NotContains(t, raw, "chatImageToken", "no subject: no token")

	resp := e.do(context.Background(), http.MethodGet, "/api/ap/chat?chatId="+chatID, "", http.Header{"X-Test-Subject": {"alice"}})
	defer resp.Body.Close()
	var env struct {
		Data struct {
			ChatImageToken string     `json:"chatImageToken"`
			Events         []chEvent  `json:"events"`
			References     []struct{} `json:"references"`
		} `json:"data"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&env))
	tok, err := issuer.Verify(env.Data.ChatImageToken)
	require.NoError(t, err)
	require.Equal(t, auth.ChatToken{ChatID: chatID, Subject: "alice", Expiry: tok.Expiry}, tok)
	require.Equal(t, "chat.start", env.Data.Events[1].Type)
}

// [EXT] GET /runs and POST /run/cancel.
func TestRunsListAndCancel(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	e := newChEnv(t, chStall(release), nil)
	var list []RunSummary
	e.ok(http.MethodGet, "/api/ap/runs", "", &list)
	require.Empty(t, list)
	require.NotNil(t, list)

	s := e.query(`{"message":"wait","agentKey":"zeta"}`)
	live := s.until(api.TypeContentDelta)
	runID := chRunID(t, live)
	var chatID string
	live[0].field(t, "chatId", &chatID)
	e.ok(http.MethodGet, "/api/ap/runs", "", &list)
	require.Len(t, list, 1)
	require.Equal(t, RunSummary{RunID: runID, ChatID: chatID, AgentKey: "zeta", StartedAt: list[0].StartedAt}, list[0])
	require.Positive(t, list[0].StartedAt)

	data := e.fail(http.MethodPost, "/api/ap/run/cancel", `{"runId":" "}`, 400, "Validation failed")
	require.JSONEq(t, `{"fields":{"runId":"must not be blank"}}`, string(data))
	e.fail(http.MethodPost, "/api/ap/run/cancel", `{"runId":"nope"}`, 404, "Run not found: nope")
	var res CancelResult
	e.ok(http.MethodPost, "/api/ap/run/cancel", `{"runId":"`+runID+`"}`, &res)
	require.Equal(t, CancelResult{RunID: runID, Canceled: true}, res)
	end := s.until(api.TypeRunError)
	var info api.ErrorInfo
	end[len(end)-1].field(t, "error", &info)
	require.Equal(t, api.CodeRunAborted, info.Code)
	e.waitIdle()
	e.fail(http.MethodPost, "/api/ap/run/cancel", `{"runId":"`+runID+`"}`, 400, "Run is not running: "+runID)
}

func TestWithRunID(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"role":"user"}`, `{"runId":"r1","role":"user"}`},
		{` { } `, `{"runId":"r1"}`},
		{`{"runId":"old","a":1}`, `{"a":1,"runId":"r1"}`},
	}
	for _, tc := range tests {
		got, err := withRunID(json.RawMessage(tc.in), "r1")
		require.NoError(t, err)
		require.JSONEq(t, tc.want, string(got), tc.in)
		require.True(t, json.Valid(got))
	}
	_, err := withRunID(json.RawMessage(`[1]`), "r1")
	require.Error(t, err)
}
