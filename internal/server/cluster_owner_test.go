package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/agent"
	"github.com/aitexteditor/aite/internal/api"
	"github.com/aitexteditor/aite/internal/store"
	"github.com/aitexteditor/aite/internal/store/postgres/pgtest"
)

// TestClusterOwnership: with auth on, the ownership rule holds across the
// nodes. Alice's run executes on node A and waits for a frontend submit.
// On node B, Bob does not see it (runs list), cannot cancel it (404) and
// his submit is unmatched without reaching A (the wait stays pending);
// Alice sees it on B, a second query of hers on B is busy even once no
// client follows the run (a run of another node is not superseded), and
// her submit on B is forwarded to A, which finishes the run with it.
func TestClusterOwnership(t *testing.T) {
	leakCheck(t)
	dsn := pgtest.DSN(t)
	verifier := ownerVerifier(t)
	script := func(ctx context.Context, f *chEngine, spec agent.Spec, em *chEmitter) error {
		em.Content("Hi")
		p, err := f.await(ctx, spec.RunID, "call_x")
		if err != nil {
			return err
		}
		em.Content(string(p))
		em.TurnEnd()
		em.Complete(api.FinishStop)
		return nil
	}
	withAuth := func(o *Options) { o.Auth = verifier }
	a := newChEnvOn(t, pgtest.Open(t, dsn, "a"), script, nil, withAuth)
	b := newChEnvOn(t, pgtest.Open(t, dsn, "b"), script, nil, withAuth)
	for _, e := range []*chEnv{a, b} { // both listen to the feed before the run starts
		require.NoError(t, e.runs.RecoverInterrupted(context.Background()))
	}
	as := func(e *chEnv, subject, method, path, body string) (int, chEnvelope) {
		t.Helper()
		resp := e.do(context.Background(), method, path, body, http.Header{"Authorization": {"Bearer " + bearer(t, subject, "")}})
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		var env chEnvelope
		require.NoError(t, json.Unmarshal(raw, &env), "%s", raw)
		return resp.StatusCode, env
	}

	s := a.open(http.MethodPost, "/api/ap/query", `{"message":"ask me","agentKey":"alpha"}`,
		http.Header{"Authorization": {"Bearer " + bearer(t, "alice", "")}})
	require.Equal(t, http.StatusOK, s.resp.StatusCode)
	var chatID, runID string
	for chatID == "" || runID == "" {
		f, ok := s.next()
		require.True(t, ok)
		ev := f.ev(t)
		if ev.Type == "chat.start" {
			ev.field(t, "chatId", &chatID)
		}
		if ev.Type == "run.start" {
			ev.field(t, "runId", &runID)
		}
	}
	require.Equal(t, runID+"#call_x", <-a.eng.waiting)

	_, env := as(b, "bob", http.MethodGet, "/api/ap/runs", "")
	require.JSONEq(t, `[]`, string(env.Data), "Bob lists none of Alice's runs")
	_, env = as(b, "alice", http.MethodGet, "/api/ap/runs", "")
	require.Contains(t, string(env.Data), runID, "Alice lists her run of node A on node B")
	status, env := as(b, "bob", http.MethodPost, "/api/ap/run/cancel", `{"runId":"`+runID+`"}`)
	require.Equal(t, http.StatusNotFound, status, env.Msg)
	status, env = as(b, "bob", http.MethodPost, "/api/ap/submit", `{"runId":"`+runID+`","toolId":"call_x","params":{"by":"bob"}}`)
	require.Equal(t, http.StatusOK, status)
	require.Contains(t, string(env.Data), `"status":"unmatched"`, "Bob's submit is not forwarded")
	status, env = as(b, "bob", http.MethodPost, "/api/ap/query", `{"chatId":"`+chatID+`","message":"mine now"}`)
	require.Equal(t, http.StatusNotFound, status, env.Msg)

	s.close()
	waitFor(t, func() bool {
		a.runs.mu.Lock()
		r := a.runs.runs[runID]
		a.runs.mu.Unlock()
		return r != nil && r.Clients() == 0
	})
	status, env = as(b, "alice", http.MethodPost, "/api/ap/query", `{"chatId":"`+chatID+`","message":"again"}`)
	require.Equal(t, http.StatusBadRequest, status)
	require.Equal(t, "Chat has an active run: "+runID, env.Msg, "a run of another node is not superseded")

	status, env = as(b, "alice", http.MethodPost, "/api/ap/submit", `{"runId":"`+runID+`","toolId":"call_x","params":{"by":"alice"}}`)
	require.Equal(t, http.StatusOK, status)
	require.Contains(t, string(env.Data), `"status":"accepted"`, "Alice's submit reaches node A")
	waitFor(t, func() bool { // the run is finished, then its end recorded on the chat
		run, err := b.st.GetRun(context.Background(), runID)
		chat, cerr := b.st.GetChat(context.Background(), chatID)
		return err == nil && run.Status == store.RunCompleted && cerr == nil && chat.LastRunID == runID
	})
	chat, err := b.st.GetChat(context.Background(), chatID)
	require.NoError(t, err)
	require.Equal(t, `Hi{"by":"alice"}`, chat.LastRunContent)
}
