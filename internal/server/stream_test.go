package server

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/api"
	"github.com/aitexteditor/aite/internal/store"
)

// chRaws returns the raw frames of the message events.
func chRaws(frames []chFrame) []string {
	var out []string
	for _, f := range frames {
		if f.event == "message" {
			out = append(out, f.raw)
		}
	}
	return out
}

// Row 67: replay after Last-Event-ID, then live, without gap or duplicate;
// a finished run replays the remainder and closes.
func TestRunStreamReattach(t *testing.T) {
	release := make(chan struct{})
	e := newChEnv(t, chStall(release), nil)
	s := e.query(`{"message":"hi"}`)
	var first []chFrame
	for len(chEvents(t, first)) < 5 {
		f, ok := s.next()
		require.True(t, ok)
		first = append(first, f)
	}
	runID := chRunID(t, chEvents(t, first))

	path := "/api/ap/run/stream?runId=" + runID
	re := e.open(http.MethodGet, path+"&lastEventId=1", "", http.Header{"Last-Event-ID": {"3"}})
	require.Equal(t, http.StatusOK, re.resp.StatusCode)
	require.Equal(t, "text/event-stream; charset=utf-8", re.resp.Header.Get("Content-Type"))
	var replay []chFrame
	for range 2 {
		f, ok := re.next()
		require.True(t, ok)
		replay = append(replay, f)
	}
	require.Equal(t, chRaws(first)[3:], chRaws(replay), "the header wins; events 4 and 5 exactly as first sent")

	byQuery := e.open(http.MethodGet, path+"&lastEventId=4", "", nil)
	f, ok := byQuery.next()
	require.True(t, ok)
	require.Equal(t, chRaws(first)[4], f.raw, "lastEventId without the header")

	close(release)
	live := re.rest()
	rest := s.rest()
	require.Equal(t, chRaws(rest), chRaws(live), "both subscribers get the same live events")
	chSeqIDs(t, append(replay, live...), 4)
	require.Equal(t, api.TypeRunComplete, chEvents(t, live)[len(chEvents(t, live))-1].Type)
	all := append(chRaws(first), chRaws(rest)...)

	e.waitIdle()
	done := e.open(http.MethodGet, path, "", http.Header{"Last-Event-ID": {"5"}}).rest()
	require.Equal(t, all[5:], chRaws(done), "a finished run: the remainder, then the end")
	done = e.open(http.MethodGet, path, "", nil).rest()
	require.Equal(t, all, chRaws(done), "no Last-Event-ID: everything")
	done = e.open(http.MethodGet, path+"&lastEventId=99", "", nil).rest()
	require.Empty(t, chRaws(done))
}

// Row 68: request errors of /run/stream.
func TestRunStreamErrors(t *testing.T) {
	e := newChEnv(t, chAnswer("x"), nil)
	data := e.fail(http.MethodGet, "/api/ap/run/stream", "", 400, "Validation failed")
	require.JSONEq(t, `{"fields":{"runId":"must not be blank"}}`, string(data))
	e.fail(http.MethodGet, "/api/ap/run/stream?runId=nope", "", 404, "Run not found: nope")
	e.fail(http.MethodGet, "/api/ap/run/stream?runId=nope&lastEventId=1.5", "", 400, "lastEventId must be an integer >= 0")
	e.fail(http.MethodGet, "/api/ap/run/stream?runId=nope&lastEventId=-1", "", 400, "lastEventId must be an integer >= 0")
	for _, bad := range []string{"abc", "-1", "+2", "1e3", "99999999999999999999"} {
		resp := e.do(context.Background(), http.MethodGet, "/api/ap/run/stream?runId=nope", "", http.Header{"Last-Event-ID": {bad}})
		require.Equal(t, http.StatusBadRequest, resp.StatusCode, bad)
		_ = resp.Body.Close()
	}
	resp := e.do(context.Background(), http.MethodGet, "/api/ap/run/stream?runId=nope&lastEventId=x", "", http.Header{"Last-Event-ID": {"2"}})
	require.Equal(t, http.StatusNotFound, resp.StatusCode, "the header wins over a bad parameter")
	_ = resp.Body.Close()
}

// Row 68: a run left running by a previous process reads as run_aborted.
func TestRunStreamAbortedRun(t *testing.T) {
	e := newChEnv(t, chAnswer("x"), nil)
	ctx := context.Background()
	const chatID = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
	require.NoError(t, e.st.CreateChat(ctx, store.Chat{ID: chatID, Name: "old", AgentKey: "alpha", CreatedAt: chBase, UpdatedAt: chBase}))
	require.NoError(t, e.st.CreateRun(ctx, store.Run{ID: "m0000001", ChatID: chatID, RequestID: "q", AgentKey: "alpha", StartedAt: chBase}))
	var stored []store.Event
	for i, ev := range []api.Event{
		{Type: api.TypeRequestQuery, Payload: api.RequestQuery{RequestID: "q", ChatID: chatID, Role: "user", Message: "old"}},
		{Type: api.TypeRunStart, Payload: api.RunStart{RunID: "m0000001", ChatID: chatID, AgentKey: "alpha"}},
	} {
		ev.Seq, ev.Timestamp = int64(i+1), chBase.UnixMilli()+int64(i)
		stored = append(stored, store.Event{Seq: ev.Seq, Type: ev.Type, Timestamp: ev.Timestamp, Body: marshalEvent(ev)})
	}
	require.NoError(t, e.st.AppendEvents(ctx, "m0000001", stored...))
	require.NoError(t, e.runs.RecoverInterrupted(ctx))

	frames := e.open(http.MethodGet, "/api/ap/run/stream?runId=m0000001", "", nil).rest()
	evs := chEvents(t, frames)
	require.Equal(t, []string{"request.query", "run.start", "run.error"}, chTypes(evs))
	var info api.ErrorInfo
	evs[2].field(t, "error", &info)
	require.Equal(t, api.ErrorInfo{Code: api.CodeRunAborted, Message: info.Message, Retriable: true}, info)
	chSeqIDs(t, frames, 1)

	_, _, hist := e.chatDetail(chatID, "")
	require.Equal(t, []string{"request.query", "run.start", "run.error"}, chTypes(hist))
	e.query(`{"message":"next","chatId":"` + chatID + `"}`).until(api.TypeRunComplete)
}

// Rows 40, 41.
func TestSubmitValidationAndUnmatched(t *testing.T) {
	e := newChEnv(t, chAnswer("x"), nil)
	tests := []struct{ body, fields string }{
		{`{"toolId":"t","params":{}}`, `{"runId":"must not be blank"}`},
		{`{"runId":" ","toolId":"t","params":1}`, `{"runId":"must not be blank"}`},
		{`{"runId":"r","params":{}}`, `{"toolId":"must not be blank"}`},
		{`{"runId":"r","toolId":"t"}`, `{"params":"must not be null"}`},
		{`{"runId":"r","toolId":"t","params":null}`, `{"params":"must not be null"}`},
		{`{}`, `{"runId":"must not be blank","toolId":"must not be blank","params":"must not be null"}`},
	}
	for _, tc := range tests {
		data := e.fail(http.MethodPost, "/api/ap/submit", tc.body, 400, "Validation failed")
		require.JSONEq(t, `{"fields":`+tc.fields+`}`, string(data), tc.body)
	}
	e.fail(http.MethodPost, "/api/ap/submit", `{"runId":1,"toolId":"t","params":{}}`, 400, "Wrong type for field runId")

	for _, params := range []string{`{"a":1}`, `false`, `0`, `""`, `[]`} {
		var res SubmitResponse
		e.ok(http.MethodPost, "/api/ap/submit", `{"runId":" r9 ","toolId":"t9","params":`+params+`}`, &res)
		require.Equal(t, SubmitResponse{Accepted: false, Status: "unmatched", RunID: "r9", ToolID: "t9",
			Detail: "No pending frontend tool found for runId=r9, toolId=t9"}, res, params)
	}
}

// The submit payload reaches the engine unchanged.
func TestSubmitReleasesWait(t *testing.T) {
	e := newChEnv(t, chFrontend, nil)
	s := e.query(`{"message":"hi"}`)
	runID := chRunID(t, s.until(api.TypeToolEnd))
	select {
	case key := <-e.eng.waiting:
		require.Equal(t, runID+"#call_1", key)
	case <-time.After(5 * time.Second):
		t.Fatal("no wait registered")
	}
	var res SubmitResponse
	e.ok(http.MethodPost, "/api/ap/submit", `{"runId":"`+runID+`","toolId":"call_1","params":[1, "x"]}`, &res)
	require.True(t, res.Accepted)
	evs := s.until(api.TypeToolResult)
	var result string
	evs[len(evs)-1].field(t, "result", &result)
	require.Equal(t, `[1, "x"]`, result)
	s.until(api.TypeRunComplete)
}
