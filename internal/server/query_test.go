package server

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/agent"
	"github.com/aitexteditor/aite/internal/api"
	"github.com/aitexteditor/aite/internal/server/auth"
	"github.com/aitexteditor/aite/internal/store"
	"github.com/aitexteditor/aite/internal/store/memory"
)

// chFrameRE is one event frame of § 3.1, byte for byte.
var chFrameRE = regexp.MustCompile(`^id:(\d+)\nevent:message\ndata:\{"seq":(\d+),"type":"[a-z.]+","timestamp":\d+[,}][^\n]*\n\n$`)

// Rows 16, 17, 18.
func TestQueryHeadersAndFraming(t *testing.T) {
	e := newChEnv(t, func(ctx context.Context, f *chEngine, spec agent.Spec, em *chEmitter) error {
		em.PlanUpdate("plan_"+spec.RunID, []api.PlanTask{{TaskID: "0a1b2c3d", Description: "Greet", Status: "init"}})
		return chAnswer("Hi", " there")(ctx, f, spec, em)
	}, nil)
	resp := e.do(context.Background(), http.MethodPost, "/api/ap/query", `{"message":"hi","stream":false}`, nil)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "text/event-stream; charset=utf-8", resp.Header.Get("Content-Type"))
	require.Equal(t, "no-cache, no-transform", resp.Header.Get("Cache-Control"))
	require.Equal(t, "no", resp.Header.Get("X-Accel-Buffering"))
	s := &chStream{t: t, resp: resp, br: bufio.NewReader(resp.Body), cancel: func() {}}
	frames := s.rest()
	require.NotEmpty(t, frames)
	for _, f := range frames {
		m := chFrameRE.FindStringSubmatch(f.raw)
		require.NotNil(t, m, "frame %q", f.raw)
		require.Equal(t, m[1], m[2], "id = seq")
	}
	chSeqIDs(t, frames, 1)
	evs := chEvents(t, frames)
	require.Equal(t, []string{"request.query", "chat.start", "run.start", "plan.update", "content.start", "content.delta",
		"content.delta", "content.end", "run.complete"}, chTypes(evs))
}

// Rows 19, 85 and every other failure before streaming: an envelope, zero
// SSE bytes, no chat and no run created.
func TestQueryRejectedBeforeStreaming(t *testing.T) {
	e := newChEnv(t, chAnswer("x"), nil)
	docA, docB := chStoreDocument(t, e.st), chStoreDocument(t, e.st)
	const unknownDoc = "3f2b8c1e-7a4d-4e2f-9b1a-0c5d6e7f8a9b"
	blank := `{"fields":{"message":"must not be blank"}}`
	tests := []struct {
		name, body, msg, data string
	}{
		{"blank message", `{"message":" \n\t"}`, "Validation failed", blank},
		{"missing message", `{"chatId":""}`, "Validation failed", blank},
		{"empty body", ``, "Validation failed", blank},
		{"invalid chatId", `{"message":"hi","chatId":"abc"}`, "chatId must be a valid UUID", `{}`},
		{"chatId without hyphens", `{"message":"hi","chatId":"7c9e6679742540de944be07fc1f90ae7"}`, "chatId must be a valid UUID", `{}`},
		{"malformed JSON", `{"message":`, "Malformed JSON", `{}`},
		{"trailing data", `{"message":"hi"} {}`, "Malformed JSON", `{}`},
		{"wrong type", `{"message":7}`, "Wrong type for field message", `{}`},
		{"scene not an object", `{"message":"hi","scene":"x"}`, "Wrong type for field scene", `{}`},
		{"too large", `{"message":"` + strings.Repeat("a", MaxJSONBody) + `"}`, "Request body too large", `{}`},
		{"unknown agent", `{"message":"hi","agentKey":"nope"}`, "Unknown agentId: nope. Available: [alpha, bookEditor, zeta]", `{}`},
		{"conflicting documents", `{"message":"hi","params":{"documentId":"` + docA + `"},"references":[{"type":"document","id":"` + docB + `"}]}`,
			"Conflicting documentId", `{}`},
		{"two document references", `{"message":"hi","references":[{"type":"document","id":"` + docA + `"},{"type":"document","id":"` + docB + `"}]}`,
			"Conflicting documentId", `{}`},
		{"unknown document", `{"message":"hi","params":{"documentId":"` + unknownDoc + `"}}`, "Unknown documentId: " + unknownDoc, `{}`},
		{"documentId not a string", `{"message":"hi","params":{"documentId":5}}`, "Wrong type for field params.documentId", `{}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := e.do(context.Background(), http.MethodPost, "/api/ap/query", tc.body, nil)
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			require.Equal(t, http.StatusBadRequest, resp.StatusCode, "%s", body)
			require.Equal(t, "application/json; charset=utf-8", resp.Header.Get("Content-Type"))
			chNoSSE(t, body)
			var env chEnvelope
			require.NoError(t, json.Unmarshal(body, &env))
			require.Equal(t, 400, env.Code)
			require.Equal(t, tc.msg, env.Msg)
			require.JSONEq(t, tc.data, string(env.Data))
		})
	}
	chats, err := e.st.ListChats(context.Background())
	require.NoError(t, err)
	require.Empty(t, chats, "a rejected query creates no chat")
}

// chStoreDocument stores a document and returns its id.
func chStoreDocument(t *testing.T, st store.Store) string {
	t.Helper()
	id := uuidV4()
	_, err := st.CreateDocument(context.Background(), store.Document{ID: id, Name: "Book", Markdown: "# A\n", ItemCount: 1,
		CreatedAt: chBase, UpdatedAt: chBase})
	require.NoError(t, err)
	return id
}

// Rows 20, 21 and the engine spec.
func TestQueryBootstrapAndEcho(t *testing.T) {
	e := newChEnv(t, chAnswer("x"), nil)
	const upper = "7C9E6679-7425-40DE-944B-E07FC1F90AE7"
	const chatID = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
	evs := e.query(`{"message":"Hello  world","chatId":" ` + upper + `","requestId":" req-1 ","agentKey":"zeta",
		"references":[{"id":"r1","type":"file","name":"a.png","sizeBytes":12}],
		"params":{"__secret":"x","keep":{"a":[1,2]},"n":1.50,"continuePlan":true},
		"scene":{"url":"https://x.test/p?a=1&b=<2>","title":"T"},"stream":false,"unknown":1}`).until(api.TypeRunComplete)
	require.Equal(t, []string{"request.query", "chat.start", "run.start"}, chTypes(evs[:3]))
	runID := chRunID(t, evs)
	require.Equal(t, `{"seq":1,"type":"request.query","timestamp":`+jsonNum(evs[0].Timestamp)+`,"requestId":"req-1","chatId":"`+chatID+
		`","role":"user","message":"Hello  world","agentKey":"zeta","references":[{"id":"r1","type":"file","name":"a.png","sizeBytes":12}],`+
		`"params":{"continuePlan":true,"keep":{"a":[1,2]},"n":1.50},"scene":{"url":"https://x.test/p?a=1&b=<2>","title":"T"},"stream":false}`,
		evs[0].Raw)
	require.JSONEq(t, `{"seq":2,"type":"chat.start","timestamp":`+jsonNum(evs[1].Timestamp)+`,"chatId":"`+chatID+`","chatName":"Hello world"}`, evs[1].Raw)
	require.JSONEq(t, `{"seq":3,"type":"run.start","timestamp":`+jsonNum(evs[2].Timestamp)+`,"runId":"`+runID+`","chatId":"`+chatID+`","agentKey":"zeta"}`, evs[2].Raw)

	spec := e.eng.lastSpec(t)
	require.Equal(t, runID, spec.RunID)
	require.Equal(t, chatID, spec.ChatID)
	require.Equal(t, "req-1", spec.RequestID)
	require.Equal(t, "zeta", spec.Agent.Key)
	require.NotNil(t, spec.Defs)
	require.Equal(t, "Hello  world", spec.Message)
	require.NotContains(t, spec.Params, "__secret")
	require.JSONEq(t, `{"a":[1,2]}`, string(spec.Params["keep"]))
	require.True(t, spec.ContinuePlan)
	require.Empty(t, e.eng.lastDoc(t))
	require.Empty(t, e.eng.lastSubject(t))

	run, err := e.st.GetRun(context.Background(), runID)
	require.NoError(t, err)
	require.Equal(t, "req-1", run.RequestID)
	require.NotContains(t, string(run.Query), "__secret", "internal params are not stored")

	e.waitIdle()
	evs = e.query(`{"message":"again","chatId":"` + chatID + `","role":"assistant"}`).until(api.TypeRunComplete)
	require.Equal(t, []string{"request.query", "run.start"}, chTypes(evs[:2]), "no chat.start in a later run")
	runID = chRunID(t, evs)
	var rq api.RequestQuery
	require.NoError(t, json.Unmarshal([]byte(evs[0].Raw), &rq))
	require.Equal(t, api.RequestQuery{RequestID: runID, ChatID: chatID, Role: "assistant", Message: "again", AgentKey: "zeta"}, rq,
		"requestId defaults to the runId; agentKey names the chat's agent, which runs")
	require.False(t, e.eng.lastSpec(t).ContinuePlan)
}

// Row 15.
func TestQueryChatName(t *testing.T) {
	tests := []struct{ message, want string }{
		{"  Hello\n\t  world  ", "Hello world"},
		{strings.Repeat("Я", 40), strings.Repeat("Я", 30)},
		{strings.Repeat("😀", 31), strings.Repeat("😀", 30)},
		{"a\u00a0\u00a0b", "a b"},
		{strings.Repeat("ab ", 10) + "cd", "ab ab ab ab ab ab ab ab ab ab "},
	}
	e := newChEnv(t, chAnswer("x"), nil)
	for _, tc := range tests {
		evs := e.query(chJSON(t, map[string]string{"message": tc.message})).until(api.TypeRunComplete)
		var name, chatID string
		evs[1].field(t, "chatName", &name)
		evs[1].field(t, "chatId", &chatID)
		require.Equal(t, tc.want, name, tc.message)
		chat, err := e.st.GetChat(context.Background(), chatID)
		require.NoError(t, err)
		require.Equal(t, tc.want, chat.Name)
	}
	require.Equal(t, "New chat", (&preparedQuery{req: api.QueryRequest{Message: " "}}).chatName())
}

// The agent of a run: default rules, the chat's binding, a vanished binding.
func TestQueryAgentResolution(t *testing.T) {
	e := newChEnv(t, chAnswer("x"), nil)
	agentOf := func(body string) (agentKey, chatID string) {
		t.Helper()
		evs := e.query(body).until(api.TypeRunComplete)
		evs[0].field(t, "chatId", &chatID)
		for _, ev := range evs {
			if ev.Type == api.TypeRunStart {
				ev.field(t, "agentKey", &agentKey)
			}
		}
		e.waitIdle()
		return agentKey, chatID
	}
	for key, want := range map[string]string{"": "bookEditor", "auto": "bookEditor", "DEFAULT": "bookEditor", " zeta ": "zeta", "alpha": "alpha"} {
		got, _ := agentOf(`{"message":"hi","agentKey":"` + key + `"}`)
		require.Equal(t, want, got, "agentKey %q", key)
	}

	got, chatID := agentOf(`{"message":"hi","agentKey":"zeta"}`)
	require.Equal(t, "zeta", got)
	got, _ = agentOf(`{"message":"hi","agentKey":"alpha","chatId":"` + chatID + `"}`)
	require.Equal(t, "zeta", got, "the chat's agent wins")
	got, _ = agentOf(`{"message":"hi","agentKey":"nope","chatId":"` + chatID + `"}`)
	require.Equal(t, "zeta", got, "a bound chat ignores the request's agentKey")

	files := map[string]string{"alpha.json": chAgentFiles["alpha.json"], "bookEditor.json": chAgentFiles["bookEditor.json"]}
	e.defs.Store(chLoadAgents(t, files))
	e.fail(http.MethodPost, "/api/ap/query", `{"message":"hi","agentKey":"nope","chatId":"`+chatID+`"}`, 400,
		"Unknown agentId: nope. Available: [alpha, bookEditor]")
	got, _ = agentOf(`{"message":"hi","agentKey":"alpha","chatId":"` + chatID + `"}`)
	require.Equal(t, "alpha", got, "the bound agent is gone: the request decides")
	chat, err := e.st.GetChat(context.Background(), chatID)
	require.NoError(t, err)
	require.Equal(t, "alpha", chat.AgentKey, "and becomes the new binding")

	e2 := newChEnv(t, chAnswer("x"), nil, func(o *Options) { o.DefaultAgent = "missing" })
	evs := e2.query(`{"message":"hi"}`).until(api.TypeRunComplete)
	var key string
	evs[2].field(t, "agentKey", &key)
	require.Equal(t, "alpha", key, "no default agent: the alphabetically first")
	e2.defs.Store(chLoadAgents(t, map[string]string{}))
	e2.fail(http.MethodPost, "/api/ap/query", `{"message":"hi"}`, 400, "Unknown agentId: missing. Available: []")
}

// Document selection and binding [EXT].
func TestQueryDocumentBinding(t *testing.T) {
	e := newChEnv(t, chAnswer("x"), nil)
	docA, docB := chStoreDocument(t, e.st), chStoreDocument(t, e.st)
	run := func(body string) string {
		t.Helper()
		evs := e.query(body).until(api.TypeRunComplete)
		e.waitIdle()
		var chatID string
		evs[0].field(t, "chatId", &chatID)
		return chatID
	}
	chatID := run(`{"message":"hi","params":{"documentId":"` + strings.ToUpper(docA) + `"}}`)
	require.Equal(t, docA, e.eng.lastDoc(t))
	chat, err := e.st.GetChat(context.Background(), chatID)
	require.NoError(t, err)
	require.Equal(t, docA, chat.DocumentID)

	run(`{"message":"hi","chatId":"` + chatID + `"}`)
	require.Equal(t, docA, e.eng.lastDoc(t), "the bound document")
	run(`{"message":"hi","chatId":"` + chatID + `","references":[{"type":"document","id":"` + docB + `"}]}`)
	require.Equal(t, docB, e.eng.lastDoc(t), "a reference selects too")
	run(`{"message":"hi","chatId":"` + chatID + `","params":{"documentId":"` + docB + `"},"references":[{"type":"Document","id":" ` + docB + `"}]}`)
	require.Equal(t, docB, e.eng.lastDoc(t), "agreeing selections")
	chat, err = e.st.GetChat(context.Background(), chatID)
	require.NoError(t, err)
	require.Equal(t, docB, chat.DocumentID, "the latest selection is bound")
	run(`{"message":"hi"}`)
	require.Empty(t, e.eng.lastDoc(t), "a new chat has none")
}

// Row 22.
func TestQueryChatImageTokenAndDone(t *testing.T) {
	issuer := &auth.Issuer{Secret: "s3cret"}
	withSubject := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if sub := r.Header.Get("X-Test-Subject"); sub != "" {
				r = r.WithContext(auth.WithSubject(r.Context(), sub))
			}
			h.ServeHTTP(w, r)
		})
	}
	alice := http.Header{"X-Test-Subject": {"alice"}}
	e := newChEnv(t, chAnswer("x"), withSubject, func(o *Options) { o.ChatTokens = issuer })
	frames := e.open(http.MethodPost, "/api/ap/query", `{"message":"hi"}`, alice).rest()
	evs := chEvents(t, frames)
	var start api.ChatStart
	require.NoError(t, json.Unmarshal([]byte(evs[1].Raw), &start))
	tok, err := issuer.Verify(start.ChatImageToken)
	require.NoError(t, err)
	require.Equal(t, start.ChatID, tok.ChatID)
	require.Equal(t, "alice", tok.Subject)
	require.Equal(t, "alice", e.eng.lastSubject(t))
	for _, f := range frames {
		require.NotEqual(t, "[DONE]", f.data, "no [DONE] by default")
	}
	require.Equal(t, api.TypeRunComplete, evs[len(evs)-1].Type)

	evs = chEvents(t, e.open(http.MethodPost, "/api/ap/query", `{"message":"hi"}`, nil).rest())
	start = api.ChatStart{}
	require.NoError(t, json.Unmarshal([]byte(evs[1].Raw), &start))
	require.Empty(t, start.ChatImageToken, "no subject: no token")

	noSecret := newChEnv(t, chAnswer("x"), withSubject)
	evs = chEvents(t, noSecret.open(http.MethodPost, "/api/ap/query", `{"message":"hi"}`, alice).rest())
	start = api.ChatStart{}
	require.NoError(t, json.Unmarshal([]byte(evs[1].Raw), &start))
	require.Equal(t, api.TypeChatStart, evs[1].Type)
	require.Empty(t, start.ChatImageToken, "no secret: no token")

	done := newChEnv(t, chAnswer("x"), nil, func(o *Options) { o.DoneMarker = true })
	frames = done.open(http.MethodPost, "/api/ap/query", `{"message":"hi"}`, nil).rest()
	n := 0
	for _, f := range frames {
		if f.data == "[DONE]" {
			n++
		}
	}
	require.Equal(t, 1, n, "exactly one [DONE]")
	last := frames[len(frames)-1]
	require.Equal(t, "event:message\ndata:[DONE]\n\n", last.raw)
	require.Equal(t, api.TypeRunComplete, frames[len(frames)-2].ev(t).Type)
}

// Row 23.
func TestQueryHeartbeat(t *testing.T) {
	release := make(chan struct{})
	e := newChEnv(t, chStall(release), nil, func(o *Options) { o.Heartbeat = 20 * time.Millisecond })
	s := e.query(`{"message":"hi"}`)
	s.until(api.TypeContentDelta)
	for range 2 {
		f, ok := s.next()
		require.True(t, ok)
		require.Equal(t, "event:heartbeat\n\n", f.raw, "a heartbeat: no id, no data")
	}
	close(release)
	evs := chEvents(t, s.rest())
	require.Equal(t, api.TypeRunComplete, evs[len(evs)-1].Type)
	require.Equal(t, int64(6), evs[0].Seq, "no event was lost around the heartbeats")
}

// Row 24.
func TestRunIDsUniqueAndIncreasing(t *testing.T) {
	fixed := time.UnixMilli(1770863186548)
	for name, clock := range map[string]func() time.Time{"fixed clock": func() time.Time { return fixed }, "real clock": time.Now} {
		ids := NewRunIDs(clock)
		prev := ""
		for range 1000 {
			id := ids.Next()
			require.Len(t, id, 8, name)
			require.Greater(t, id, prev, name)
			prev = id
		}
	}
}

// Row 25.
func TestQueryBusyChat(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	e := newChEnv(t, chStall(release), nil)
	live := e.query(`{"message":"hi"}`).until(api.TypeContentDelta)
	var chatID string
	live[0].field(t, "chatId", &chatID)
	runID := chRunID(t, live)
	data := e.fail(http.MethodPost, "/api/ap/query", `{"message":"again","chatId":"`+strings.ToUpper(chatID)+`"}`, 400,
		"Chat has an active run: "+runID)
	require.JSONEq(t, `{"activeRunId":"`+runID+`"}`, string(data))
	runs, err := e.st.ListRuns(context.Background(), chatID)
	require.NoError(t, err)
	require.Len(t, runs, 1, "no second run was stored")
}

// Issue 14: a client's Stop button only closed the stream, and the next
// message got 400 "Chat has an active run" for up to 300 s. A query on a
// chat whose running run no client follows supersedes that run: it ends
// with run.error run_aborted, reason superseded, and the new run starts.
// While a client follows it (here a reattached stream) the 400 stays.
func TestQuerySupersedesAnUnfollowedRun(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	streams := make(chan struct{}, 8) // an SSE handler returned: its subscription is closed
	wrap := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.ServeHTTP(w, r)
			if strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
				select {
				case streams <- struct{}{}:
				default:
				}
			}
		})
	}
	e := newChEnv(t, chStall(release), wrap)
	first := e.query(`{"message":"hi"}`)
	live := first.until(api.TypeContentDelta)
	var chatID string
	live[0].field(t, "chatId", &chatID)
	runID := chRunID(t, live)

	follower := e.open(http.MethodGet, "/api/ap/run/stream?runId="+runID, "", nil)
	first.close() // the Stop button: the first client goes away
	follower.until(api.TypeContentDelta)
	e.fail(http.MethodPost, "/api/ap/query", `{"message":"again","chatId":"`+chatID+`"}`, 400, "Chat has an active run: "+runID)

	follower.close() // now nobody follows the run
	<-streams        // the first client's /query
	<-streams        // the follower's /run/stream
	requireClients(t, e.runs, runID, 0)
	second := e.query(`{"message":"again","chatId":"` + chatID + `"}`)
	evs := second.until(api.TypeRunStart)
	require.NotEqual(t, runID, chRunID(t, evs), "a new run")

	ended := e.open(http.MethodGet, "/api/ap/run/stream?runId="+runID, "", nil).rest()
	last := chEvents(t, ended)
	var info api.ErrorInfo
	last[len(last)-1].field(t, "error", &info)
	require.Equal(t, api.ErrorInfo{Code: api.CodeRunAborted, Message: "the run was superseded by a new query in its chat",
		Retriable: true, Reason: api.AbortSuperseded}, info)
	run, err := e.st.GetRun(context.Background(), runID)
	require.NoError(t, err)
	require.Equal(t, api.CodeRunAborted, run.ErrorCode)
}

// requireClients checks that run runID has n clients (or has ended).
func requireClients(t *testing.T, m *RunManager, runID string, n int) {
	t.Helper()
	m.mu.Lock()
	r := m.runs[runID]
	m.mu.Unlock()
	if r != nil {
		require.Equal(t, n, r.Clients(), "clients of run %s", runID)
	}
}

// Row 66.
func TestQueryDisconnectDoesNotStopRun(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store) { testDisconnect(t, st) })
}

func testDisconnect(t *testing.T, st store.Store) {
	release, handled := make(chan struct{}), make(chan struct{})
	notify := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.ServeHTTP(w, r)
			if r.URL.Path == "/api/ap/query" {
				close(handled)
			}
		})
	}
	e := newChEnvOn(t, st, chStall(release), notify)
	s := e.query(`{"message":"hi"}`)
	live := s.until(api.TypeContentDelta)
	var chatID string
	live[0].field(t, "chatId", &chatID)
	s.close()
	select {
	case <-handled: // the /query handler saw the client go and returned
	case <-time.After(5 * time.Second):
		t.Fatal("the /query handler did not return after the disconnect")
	}
	require.Len(t, e.runs.List(), 1, "the run goes on")
	close(release)
	e.waitIdle()
	_, _, evs := e.chatDetail(chatID, "")
	require.Equal(t, []string{"request.query", "chat.start", "run.start", "content.snapshot", "run.complete"}, chTypes(evs))
	var text string
	evs[3].field(t, "text", &text)
	require.Equal(t, "Hi!", text)
}

// Issue 14: request.query.agentKey names the agent that actually runs (the
// request may say "auto", nothing, or another agent than the chat's), and
// internal sub-agents (a flag in the definition) are not listed by /agents,
// not offered in "Available", not chosen as the default and not run by a
// query of their own.
func TestQueryAgentKeyAndInternalAgents(t *testing.T) {
	e := newChEnv(t, chAnswer("ok"), nil)
	files := maps.Clone(chAgentFiles)
	files["aaHelper.json"] = `{"key": "aaHelper", "name": "Helper", "internal": true, "mode": "ONESHOT",
		"modelConfig": {"modelKey": "m1"}, "plain": {"systemPrompt": "h"}}`
	e.defs.Store(chLoadAgents(t, files))

	agentKey := func(evs []chEvent) string {
		var rq api.RequestQuery
		require.NoError(t, json.Unmarshal([]byte(evs[0].Raw), &rq))
		return rq.AgentKey
	}
	evs := e.query(`{"message":"hi","agentKey":"auto"}`).until(api.TypeRunComplete)
	require.Equal(t, "bookEditor", agentKey(evs))
	var chatID string
	evs[0].field(t, "chatId", &chatID)
	e.waitIdle()
	evs = e.query(`{"message":"again","chatId":"` + chatID + `","agentKey":"zeta"}`).until(api.TypeRunComplete)
	require.Equal(t, "bookEditor", agentKey(evs), "the chat stays bound to its agent")

	var list []agentSummary
	e.ok(http.MethodGet, "/api/ap/agents", "", &list)
	for _, a := range list {
		require.NotEqual(t, "aaHelper", a.Key)
	}
	e.fail(http.MethodPost, "/api/ap/query", `{"message":"hi","agentKey":"aaHelper"}`, 400,
		"Unknown agentId: aaHelper. Available: [alpha, bookEditor, zeta]")

	// Without the default agent, the first listed one runs, not an internal one.
	delete(files, "bookEditor.json")
	e.defs.Store(chLoadAgents(t, files))
	e.waitIdle()
	evs = e.query(`{"message":"hi"}`).until(api.TypeRunComplete)
	require.Equal(t, "alpha", agentKey(evs))
}

// countingStore counts the store's lookups of a chat and of its runs.
type countingStore struct {
	store.Store
	mu               sync.Mutex
	getChat, listRun int
}

func (c *countingStore) GetChat(ctx context.Context, id string) (store.Chat, error) {
	c.mu.Lock()
	c.getChat++
	c.mu.Unlock()
	return c.Store.GetChat(ctx, id)
}

func (c *countingStore) ListRuns(ctx context.Context, chatID string) ([]store.Run, error) {
	c.mu.Lock()
	c.listRun++
	c.mu.Unlock()
	return c.Store.ListRuns(ctx, chatID)
}

func (c *countingStore) counts() (int, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.getChat, c.listRun
}

// The chat service looks an existing chat up once: its runs are listed
// (for chat.start) only while none of them has ended.
func TestQueryLooksTheChatUpOnce(t *testing.T) {
	st := &countingStore{Store: memory.New()}
	e := newChEnvOn(t, st, chAnswer("ok"), nil)
	evs := e.query(`{"message":"first"}`).until(api.TypeRunComplete)
	var chatID string
	evs[0].field(t, "chatId", &chatID)
	e.waitIdle()
	g0, l0 := st.counts()
	evs = e.query(`{"message":"second","chatId":"` + chatID + `"}`).until(api.TypeRunComplete)
	require.Equal(t, []string{"request.query", "run.start"}, chTypes(evs[:2]))
	g1, l1 := st.counts()
	require.Equal(t, 1, g1-g0, "one lookup of the chat")
	require.Equal(t, 0, l1-l0, "its runs are not listed once one has ended")
}
