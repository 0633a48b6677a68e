package storetest

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/store"
)

var chatTests = []test{
	{"Chats/RoundTrip", testChatRoundTrip},
	{"Chats/CreateRules", testChatCreateRules},
	{"Chats/NotFound", testChatNotFound},
	{"Chats/ListOrder", testChatListOrder},
	{"Chats/UpdateAfterRunResetsRead", testChatUpdateAfterRun},
	{"Chats/MarkRead", testChatMarkRead},
	{"Chats/SetBinding", testChatSetBinding},
}

func testChatRoundTrip(t *testing.T, s store.Store) {
	readAt := at(3)
	c := store.Chat{ID: "0b9f3c1e-8d5a-4f7e-9c2b-1a2b3c4d5e6f", Name: "Kapitel 1 — überarbeiten", AgentKey: "book",
		DocumentID: "d1", CreatedAt: at(1), UpdatedAt: at(2), LastRunID: "r0", LastRunContent: "done ✓",
		ReadStatus: 1, ReadAt: &readAt, Owner: "auth0|writer-7"}
	require.NoError(t, s.CreateChat(bg, c))
	got, err := s.GetChat(bg, c.ID)
	require.NoError(t, err)
	want := c
	want.CreatedAt, want.UpdatedAt, want.ReadAt = ms(at(1)), ms(at(2)), msPtr(readAt)
	require.Equal(t, want, got)
	require.Equal(t, "UTC", got.CreatedAt.Location().String(), "times come back in UTC")

	list, err := s.ListChats(bg)
	require.NoError(t, err)
	require.Equal(t, []store.Chat{want}, list)

	require.NoError(t, s.CreateChat(bg, store.Chat{ID: "zero"}))
	zero, err := s.GetChat(bg, "zero")
	require.NoError(t, err)
	require.Equal(t, store.Chat{ID: "zero"}, zero, "zero times come back as zero times")
}

func testChatCreateRules(t *testing.T, s store.Store) {
	addChat(t, s, "c1", 0)
	requireIs(t, s.CreateChat(bg, store.Chat{ID: "c1", Name: "again"}), store.ErrExists)
	requireIs(t, s.CreateChat(bg, store.Chat{Name: "no id"}), store.ErrInvalid)
	requireIs(t, s.CreateChat(bg, store.Chat{ID: "c2", ReadStatus: 2}), store.ErrInvalid)
	got, err := s.GetChat(bg, "c1")
	require.NoError(t, err)
	require.Equal(t, "chat c1", got.Name, "a refused duplicate leaves the first chat alone")
	list, err := s.ListChats(bg)
	require.NoError(t, err)
	require.Len(t, list, 1)
}

func testChatNotFound(t *testing.T, s store.Store) {
	_, err := s.GetChat(bg, "nope")
	requireIs(t, err, store.ErrNotFound, "GetChat")
	requireIs(t, s.MarkRead(bg, "nope", at(1)), store.ErrNotFound, "MarkRead")
	requireIs(t, s.UpdateChatAfterRun(bg, "nope", "r1", "x", at(1)), store.ErrNotFound, "UpdateChatAfterRun")
	_, err = s.ListRuns(bg, "nope")
	requireIs(t, err, store.ErrNotFound, "ListRuns")
	_, err = s.RecentMessages(bg, "nope", 5)
	requireIs(t, err, store.ErrNotFound, "RecentMessages")
	list, err := s.ListChats(bg)
	require.NoError(t, err)
	require.Empty(t, list)
}

func chatIDs(t *testing.T, s store.Store) []string {
	t.Helper()
	list, err := s.ListChats(bg)
	require.NoError(t, err)
	ids := []string{}
	for _, c := range list {
		ids = append(ids, c.ID)
	}
	return ids
}

func testChatListOrder(t *testing.T, s store.Store) {
	addChat(t, s, "b", 5)
	addChat(t, s, "d", 1)
	addChat(t, s, "a", 5) // same updated_at as b: id ascending
	addChat(t, s, "c", 9)
	require.Equal(t, []string{"c", "a", "b", "d"}, chatIDs(t, s))

	addRun(t, s, "d", "r1")
	require.NoError(t, s.UpdateChatAfterRun(bg, "d", "r1", "answer", at(20)))
	require.Equal(t, []string{"d", "c", "a", "b"}, chatIDs(t, s), "a finished run moves its chat to the top")
}

func testChatUpdateAfterRun(t *testing.T, s store.Store) {
	addChat(t, s, "c1", 0)
	addChat(t, s, "c2", 0)
	addRun(t, s, "c1", "r1")
	addRun(t, s, "c2", "r2")
	require.NoError(t, s.MarkRead(bg, "c1", at(1)))

	require.NoError(t, s.UpdateChatAfterRun(bg, "c1", "r1", "Hello **world**", at(2)))
	got, err := s.GetChat(bg, "c1")
	require.NoError(t, err)
	require.Equal(t, "r1", got.LastRunID)
	require.Equal(t, "Hello **world**", got.LastRunContent)
	require.Equal(t, ms(at(2)), got.UpdatedAt)
	require.Equal(t, ms(at(0)), got.CreatedAt, "created_at never changes")
	require.Equal(t, 0, got.ReadStatus, "a new run result makes the chat unread")
	require.Nil(t, got.ReadAt)

	requireIs(t, s.UpdateChatAfterRun(bg, "c1", "r2", "x", at(3)), store.ErrNotFound, "a run of another chat")
	requireIs(t, s.UpdateChatAfterRun(bg, "c1", "r9", "x", at(3)), store.ErrNotFound, "an unknown run")
	again, err := s.GetChat(bg, "c1")
	require.NoError(t, err)
	require.Equal(t, got, again, "refused updates change nothing")
}

func testChatMarkRead(t *testing.T, s store.Store) {
	addChat(t, s, "c1", 0)
	require.NoError(t, s.MarkRead(bg, "c1", at(4)))
	got, err := s.GetChat(bg, "c1")
	require.NoError(t, err)
	require.Equal(t, 1, got.ReadStatus)
	require.Equal(t, msPtr(at(4)), got.ReadAt)
	require.Equal(t, ms(at(0)), got.UpdatedAt, "reading does not make a chat recent")

	require.NoError(t, s.MarkRead(bg, "c1", at(6)))
	got, err = s.GetChat(bg, "c1")
	require.NoError(t, err)
	require.Equal(t, msPtr(at(6)), got.ReadAt, "reading again moves readAt")
}

func testChatSetBinding(t *testing.T, s store.Store) {
	addChat(t, s, "c1", 0)
	addChat(t, s, "c2", 1)
	addRun(t, s, "c1", "r1")
	require.NoError(t, s.UpdateChatAfterRun(bg, "c1", "r1", "answer", at(2)))
	require.NoError(t, s.MarkRead(bg, "c1", at(3)))
	before, err := s.GetChat(bg, "c1")
	require.NoError(t, err)

	require.NoError(t, s.SetChatBinding(bg, "c1", "editor", "d1", at(4)))
	got, err := s.GetChat(bg, "c1")
	require.NoError(t, err)
	want := before
	want.AgentKey, want.DocumentID, want.UpdatedAt = "editor", "d1", ms(at(4))
	require.Equal(t, want, got, "only the binding and updated_at change")

	require.NoError(t, s.SetChatBinding(bg, "c1", "writer", "", at(5)))
	got, err = s.GetChat(bg, "c1")
	require.NoError(t, err)
	require.Equal(t, "writer", got.AgentKey)
	require.Empty(t, got.DocumentID, "an empty document id unbinds the document")
	require.Equal(t, []string{"c1", "c2"}, chatIDs(t, s), "the new updated_at orders the list")

	requireIs(t, s.SetChatBinding(bg, "nope", "writer", "d1", at(6)), store.ErrNotFound)
	other, err := s.GetChat(bg, "c2")
	require.NoError(t, err)
	require.Equal(t, "writer", other.AgentKey, "other chats are untouched")
	require.Equal(t, ms(at(1)), other.UpdatedAt)
}

var runTests = []test{
	{"Runs/RoundTrip", testRunRoundTrip},
	{"Runs/CreateRules", testRunCreateRules},
	{"Runs/ListOrder", testRunListOrder},
	{"Runs/Finish", testRunFinish},
	{"Runs/RunningRuns", testRunningRuns},
}

func testRunRoundTrip(t *testing.T, s store.Store) {
	addChat(t, s, "c1", 0)
	r := store.Run{ID: "mtoewf3u", ChatID: "c1", RequestID: "q-1", AgentKey: "book",
		Query:     json.RawMessage(`{"role":"user", "message":"Schreib \u00fcber Ä","params":{"z":1,"a":[true,null]}}`),
		StartedAt: at(1)}
	require.NoError(t, s.CreateRun(bg, r))
	got, err := s.GetRun(bg, r.ID)
	require.NoError(t, err)
	want := r
	want.Status, want.StartedAt = store.RunRunning, ms(at(1))
	require.Equal(t, want, got)
	require.Equal(t, string(r.Query), string(got.Query), "the query is kept byte for byte")

	noQuery := store.Run{ID: "mtoewf3v", ChatID: "c1", RequestID: "q-2", Status: store.RunRunning, StartedAt: at(2)}
	require.NoError(t, s.CreateRun(bg, noQuery))
	got, err = s.GetRun(bg, noQuery.ID)
	require.NoError(t, err)
	require.Nil(t, got.Query, "an absent query stays absent")
	require.Equal(t, store.RunRunning, got.Status)

	_, err = s.GetRun(bg, "nope")
	requireIs(t, err, store.ErrNotFound)
}

func testRunCreateRules(t *testing.T, s store.Store) {
	addChatRun(t, s)
	end := at(1)
	cases := map[string]struct {
		run  store.Run
		want error
	}{
		"unknown chat":  {store.Run{ID: "r2", ChatID: "nope"}, store.ErrNotFound},
		"duplicate id":  {store.Run{ID: "r1", ChatID: "c1"}, store.ErrExists},
		"empty id":      {store.Run{ChatID: "c1"}, store.ErrInvalid},
		"empty chat":    {store.Run{ID: "r2"}, store.ErrInvalid},
		"terminal":      {store.Run{ID: "r2", ChatID: "c1", Status: store.RunCompleted}, store.ErrInvalid},
		"bogus status":  {store.Run{ID: "r2", ChatID: "c1", Status: "paused"}, store.ErrInvalid},
		"ended":         {store.Run{ID: "r2", ChatID: "c1", EndedAt: &end}, store.ErrInvalid},
		"invalid query": {store.Run{ID: "r2", ChatID: "c1", Query: json.RawMessage(`{"a":`)}, store.ErrInvalid},
	}
	for name, tc := range cases {
		requireIs(t, s.CreateRun(bg, tc.run), tc.want, name)
	}
	runs, err := s.ListRuns(bg, "c1")
	require.NoError(t, err)
	require.Len(t, runs, 1, "no refused run was stored")
}

func runIDs(runs []store.Run) []string {
	ids := []string{}
	for _, r := range runs {
		ids = append(ids, r.ID)
	}
	return ids
}

func testRunListOrder(t *testing.T, s store.Store) {
	addChat(t, s, "c1", 0)
	addChat(t, s, "c2", 0)
	for _, id := range []string{"mtoe0003", "mtoe0001", "mtoe0010", "mtoe0002"} {
		addRun(t, s, "c1", id)
	}
	addRun(t, s, "c2", "mtoe0005")
	runs, err := s.ListRuns(bg, "c1")
	require.NoError(t, err)
	require.Equal(t, []string{"mtoe0001", "mtoe0002", "mtoe0003", "mtoe0010"}, runIDs(runs))
	runs, err = s.ListRuns(bg, "c2")
	require.NoError(t, err)
	require.Equal(t, []string{"mtoe0005"}, runIDs(runs))
	addChat(t, s, "c3", 0)
	runs, err = s.ListRuns(bg, "c3")
	require.NoError(t, err)
	require.Empty(t, runs)
}

func testRunFinish(t *testing.T, s store.Store) {
	addChatRun(t, s)
	addRun(t, s, "c1", "r2")
	requireIs(t, s.FinishRun(bg, "r1", store.RunRunning, "", "", at(1)), store.ErrInvalid, "running is not terminal")
	requireIs(t, s.FinishRun(bg, "nope", store.RunCompleted, "stop", "", at(1)), store.ErrNotFound)

	require.NoError(t, s.FinishRun(bg, "r1", store.RunCompleted, "stop", "", at(2)))
	require.NoError(t, s.FinishRun(bg, "r2", store.RunError, "", "model_error", at(3)))
	got, err := s.GetRun(bg, "r1")
	require.NoError(t, err)
	require.Equal(t, store.RunCompleted, got.Status)
	require.Equal(t, "stop", got.FinishReason)
	require.Equal(t, msPtr(at(2)), got.EndedAt)
	got, err = s.GetRun(bg, "r2")
	require.NoError(t, err)
	require.Equal(t, store.RunError, got.Status)
	require.Equal(t, "model_error", got.ErrorCode)

	requireIs(t, s.FinishRun(bg, "r1", store.RunTimeout, "timeout", "", at(4)), store.ErrConflict, "a run ends once")
	got, err = s.GetRun(bg, "r1")
	require.NoError(t, err)
	require.Equal(t, store.RunCompleted, got.Status, "the refused finish changed nothing")
	require.Equal(t, msPtr(at(2)), got.EndedAt)
}

func testRunningRuns(t *testing.T, s store.Store) {
	addChat(t, s, "c1", 0)
	addChat(t, s, "c2", 0)
	addRun(t, s, "c2", "r3")
	addRun(t, s, "c1", "r1")
	addRun(t, s, "c1", "r2")
	addRun(t, s, "c2", "r4")
	require.NoError(t, s.FinishRun(bg, "r2", store.RunTimeout, "timeout", "", at(1)))
	running, err := s.RunningRuns(bg)
	require.NoError(t, err)
	require.Equal(t, []string{"r1", "r3", "r4"}, runIDs(running))
	for _, r := range running {
		require.Equal(t, store.RunRunning, r.Status)
	}

	// What a restarted server does with them: store run.error, then close the run.
	for _, r := range running {
		require.NoError(t, s.AppendEvents(bg, r.ID, store.Event{Seq: 1, Type: "run.error", Timestamp: 1,
			Body: json.RawMessage(`{"seq":1,"type":"run.error","timestamp":1,"runId":"` + r.ID + `","error":{"code":"run_aborted"}}`)}))
		require.NoError(t, s.FinishRun(bg, r.ID, store.RunError, "", "run_aborted", at(2)))
	}
	running, err = s.RunningRuns(bg)
	require.NoError(t, err)
	require.Empty(t, running)
}
