package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/store"
)

var messageTests = []test{
	{"Messages/AppendList", testMessagesAppendList},
	{"Messages/Rules", testMessagesRules},
	{"Messages/RecentWindow", testRecentMessages},
	{"Systems/StoredWhenChanged", testSystems},
}

func msg(text string) store.Message {
	return store.Message{Stage: "react", MsgID: "m_0000abcd",
		Body: json.RawMessage(`{"role":"assistant","content":[{"type":"text","text":"` + text + `"}],"_msgId":"m_0000abcd"}`)}
}

func testMessagesAppendList(t *testing.T, s store.Store) {
	addChatRun(t, s)
	user := store.Message{Stage: "", Body: json.RawMessage(`{"role":"user","content":[{"type":"text","text":"hi"}],"ts":1}`)}
	require.NoError(t, s.AppendMessages(bg, "r1", user))
	tool := store.Message{RunID: "r1", Ord: 99, Stage: "execute", TaskID: "0a1b2c3d", MsgID: "m_00000001",
		Body: json.RawMessage(`{"role":"tool", "name":"read","tool_call_id":"call_1","content":[]}`)}
	require.NoError(t, s.AppendMessages(bg, "r1", msg("a"), tool))
	require.NoError(t, s.AppendMessages(bg, "r1"), "an empty append is a no-op")

	got, err := s.ListMessages(bg, "r1")
	require.NoError(t, err)
	want := []store.Message{user, msg("a"), tool}
	for i := range want {
		want[i].RunID, want[i].Ord = "r1", i+1
	}
	require.Equal(t, want, got, "ord is assigned in order, given RunID/Ord are ignored")
	require.Equal(t, string(tool.Body), string(got[2].Body))

	addRun(t, s, "c1", "r2")
	got, err = s.ListMessages(bg, "r2")
	require.NoError(t, err)
	require.Empty(t, got)
	_, err = s.ListMessages(bg, "nope")
	requireIs(t, err, store.ErrNotFound)
}

func testMessagesRules(t *testing.T, s store.Store) {
	addChatRun(t, s)
	requireIs(t, s.AppendMessages(bg, "nope", msg("a")), store.ErrNotFound)
	other := msg("b")
	other.RunID = "r2"
	requireIs(t, s.AppendMessages(bg, "r1", msg("a"), other), store.ErrInvalid, "a message naming another run")
	bad := store.Message{Body: json.RawMessage(`{"role":`)}
	requireIs(t, s.AppendMessages(bg, "r1", msg("a"), bad), store.ErrInvalid, "malformed JSON")
	requireIs(t, s.AppendMessages(bg, "r1", store.Message{}), store.ErrInvalid, "an empty body")
	got, err := s.ListMessages(bg, "r1")
	require.NoError(t, err)
	require.Empty(t, got, "a refused batch writes nothing")
}

func testRecentMessages(t *testing.T, s store.Store) {
	addChat(t, s, "c1", 0)
	addChat(t, s, "c2", 0)
	// Runs created out of order; r3 has no messages.
	for _, id := range []string{"r4", "r1", "r2", "r5", "r3"} {
		addRun(t, s, "c1", id)
		if id != "r3" {
			require.NoError(t, s.AppendMessages(bg, id, msg(id+"-1"), msg(id+"-2")))
		}
	}
	addRun(t, s, "c2", "r9")
	require.NoError(t, s.AppendMessages(bg, "r9", msg("other chat")))

	key := func(ms []store.Message) []string {
		out := []string{}
		for _, m := range ms {
			out = append(out, fmt.Sprintf("%s/%d", m.RunID, m.Ord))
		}
		return out
	}
	cases := []struct {
		k    int
		want []string
	}{
		{0, []string{}},
		{-1, []string{}},
		{1, []string{"r5/1", "r5/2"}},
		{2, []string{"r4/1", "r4/2", "r5/1", "r5/2"}},
		{3, []string{"r4/1", "r4/2", "r5/1", "r5/2"}}, // r3 counts as a run of the window
		{20, []string{"r1/1", "r1/2", "r2/1", "r2/2", "r4/1", "r4/2", "r5/1", "r5/2"}},
	}
	for _, tc := range cases {
		got, err := s.RecentMessages(bg, "c1", tc.k)
		require.NoError(t, err)
		require.Equal(t, tc.want, key(got), "k=%d", tc.k)
	}
	got, err := s.RecentMessages(bg, "c1", 1)
	require.NoError(t, err)
	require.Equal(t, string(msg("r5-2").Body), string(got[1].Body))
}

func testSystems(t *testing.T, s store.Store) {
	addChatRun(t, s)
	a := json.RawMessage(`{"model":"m","messages":[{"role":"system","content":"A"}],"tools":[],"stream":true}`)
	b := json.RawMessage(`{"model":"m","messages":[{"role":"system","content":"B"}],"tools":[],"stream":true}`)
	aSpaced := json.RawMessage(`{"model": "m","messages":[{"role":"system","content":"A"}],"tools":[],"stream":true}`)
	steps := []struct {
		stage string
		body  json.RawMessage
		want  bool
	}{
		{"plan", a, true},
		{"plan", a, false}, // same as the previous one
		{"plan", b, true},
		{"plan", a, true},          // same as an older one, not the previous one
		{"execute", a, true},       // new stage
		{"execute", aSpaced, true}, // other bytes
		{"execute", aSpaced, false},
	}
	for i, st := range steps {
		stored, err := s.AppendSystem(bg, "r1", st.stage, st.body)
		require.NoError(t, err)
		require.Equal(t, st.want, stored, "step %d", i)
	}
	got, err := s.ListSystems(bg, "r1")
	require.NoError(t, err)
	require.Len(t, got, 5)
	for i, snap := range got {
		require.Equal(t, "r1", snap.RunID)
		require.Equal(t, i+1, snap.Ord)
	}
	require.Equal(t, "execute", got[4].Stage)
	require.Equal(t, string(aSpaced), string(got[4].Body))

	_, err = s.AppendSystem(bg, "nope", "plan", a)
	requireIs(t, err, store.ErrNotFound)
	_, err = s.AppendSystem(bg, "r1", "plan", json.RawMessage(`nope`))
	requireIs(t, err, store.ErrInvalid)
	_, err = s.ListSystems(bg, "nope")
	requireIs(t, err, store.ErrNotFound)
}

var eventTests = []test{
	{"Events/AppendList", testEventsAppendList},
	{"Events/SeqRules", testEventsSeqRules},
	{"Events/BatchAtomic", testEventsBatchAtomic},
	{"Events/ByteExact", testEventsByteExact},
	{"Events/PerRun", testEventsPerRun},
	{"Events/GroupCommit", testEventLogs},
}

func testEventsAppendList(t *testing.T, s store.Store) {
	addChatRun(t, s)
	last, err := s.LastSeq(bg, "r1")
	require.NoError(t, err)
	require.Zero(t, last)
	require.NoError(t, s.AppendEvents(bg, "r1", evs(1, 20)...))
	require.NoError(t, s.AppendEvents(bg, "r1", evs(21, 25)...))
	require.NoError(t, s.AppendEvents(bg, "r1"), "an empty batch is a no-op")

	all, err := s.ListEvents(bg, "r1", 0)
	require.NoError(t, err)
	want := evs(1, 25)
	for i := range want {
		want[i].RunID = "r1"
	}
	require.Equal(t, want, all)
	for _, after := range []int64{0, 1, 7, 20, 24, 25, 30, -3} {
		got, err := s.ListEvents(bg, "r1", after)
		require.NoError(t, err)
		require.Equal(t, seqRange(max(after, 0)+1, 25), seqs(got), "after %d", after)
	}
	last, err = s.LastSeq(bg, "r1")
	require.NoError(t, err)
	require.Equal(t, int64(25), last)

	_, err = s.ListEvents(bg, "nope", 0)
	requireIs(t, err, store.ErrNotFound)
	_, err = s.LastSeq(bg, "nope")
	requireIs(t, err, store.ErrNotFound)
	requireIs(t, s.AppendEvents(bg, "nope", ev(1)), store.ErrNotFound)
}

func testEventsSeqRules(t *testing.T, s store.Store) {
	addChatRun(t, s)
	require.NoError(t, s.AppendEvents(bg, "r1", evs(1, 5)...))
	cases := map[string]struct {
		batch []store.Event
		want  error
	}{
		"duplicate of a stored seq": {[]store.Event{ev(5)}, store.ErrConflict},
		"below the last seq":        {[]store.Event{ev(3)}, store.ErrConflict},
		"duplicate in the batch":    {[]store.Event{ev(6), ev(6)}, store.ErrConflict},
		"decreasing in the batch":   {[]store.Event{ev(7), ev(6)}, store.ErrConflict},
		"seq zero":                  {[]store.Event{{Seq: 0, Type: "x", Body: json.RawMessage(`{}`)}}, store.ErrInvalid},
		"empty type":                {[]store.Event{{Seq: 6, Body: json.RawMessage(`{}`)}}, store.ErrInvalid},
		"empty body":                {[]store.Event{{Seq: 6, Type: "x"}}, store.ErrInvalid},
		"malformed body":            {[]store.Event{{Seq: 6, Type: "x", Body: json.RawMessage(`{"seq":6`)}}, store.ErrInvalid},
		"another run's event":       {[]store.Event{{RunID: "r2", Seq: 6, Type: "x", Body: json.RawMessage(`{}`)}}, store.ErrInvalid},
	}
	for name, tc := range cases {
		requireIs(t, s.AppendEvents(bg, "r1", tc.batch...), tc.want, name)
	}
	got, err := s.ListEvents(bg, "r1", 0)
	require.NoError(t, err)
	require.Equal(t, seqRange(1, 5), seqs(got), "refused batches wrote nothing")

	same := ev(6)
	same.RunID = "r1"
	require.NoError(t, s.AppendEvents(bg, "r1", same), "an event may name its own run")
	require.NoError(t, s.AppendEvents(bg, "r1", ev(9)), "seqs must increase, gaps are the caller's business")
	last, err := s.LastSeq(bg, "r1")
	require.NoError(t, err)
	require.Equal(t, int64(9), last)
}

func testEventsBatchAtomic(t *testing.T, s store.Store) {
	addChatRun(t, s)
	require.NoError(t, s.AppendEvents(bg, "r1", evs(1, 3)...))
	torn := append(evs(4, 10), ev(10), ev(11)) // the eighth event repeats seq 10
	requireIs(t, s.AppendEvents(bg, "r1", torn...), store.ErrConflict)
	badTail := append(evs(4, 10), store.Event{Seq: 11, Type: "x", Body: json.RawMessage(`[`)})
	requireIs(t, s.AppendEvents(bg, "r1", badTail...), store.ErrInvalid)
	got, err := s.ListEvents(bg, "r1", 0)
	require.NoError(t, err)
	require.Equal(t, seqRange(1, 3), seqs(got), "no part of a refused batch is stored")
	require.NoError(t, s.AppendEvents(bg, "r1", evs(4, 11)...), "the corrected batch goes through")
	got, err = s.ListEvents(bg, "r1", 0)
	require.NoError(t, err)
	require.Equal(t, seqRange(1, 11), seqs(got))
}

// oddBodies are JSON texts whose bytes a re-encoding would change.
var oddBodies = []string{
	`{"seq":1,"type":"content.delta","timestamp":1770863186548,"contentId":"x_c_1","delta":"Hi"}`,
	`{"type":"z","seq":2,"a":1}`,                                    // key order
	"{ \"seq\" : 3 ,\n\t\"delta\" : \"spaced\" }",                   // whitespace
	`{"seq":4,"delta":"\u00e9\u4e2d\ud83d\ude00 \/ \u2028"}`,        // escapes
	`{"seq":5,"delta":"é中😀 raw"}`,                                   // raw UTF-8
	`{"seq":6,"n":12345678901234567890123,"f":1.50e+10,"neg":-0.0}`, // numbers beyond float64
	`{"seq":7,"dup":1,"dup":2}`,                                     // duplicate keys
	"{\"seq\":8,\"bad\":\"\xff\xfe\"}",                              // invalid UTF-8 inside a string
	`{"seq":9,"nested":{"b":[1,{"c":null}],"a":""},"html":"<b>&amp;</b>"}`,
	`[]`,
}

func testEventsByteExact(t *testing.T, s store.Store) {
	addChatRun(t, s)
	var batch []store.Event
	for i, body := range oddBodies {
		batch = append(batch, store.Event{Seq: int64(i + 1), Type: "t", Timestamp: int64(i), Body: json.RawMessage(body)})
	}
	require.NoError(t, s.AppendEvents(bg, "r1", batch...))
	got, err := s.ListEvents(bg, "r1", 0)
	require.NoError(t, err)
	require.Len(t, got, len(oddBodies))
	for i, e := range got {
		require.Equal(t, []byte(oddBodies[i]), []byte(e.Body), "body %d", i)
	}
}

func testEventsPerRun(t *testing.T, s store.Store) {
	addChatRun(t, s)
	addRun(t, s, "c1", "r2")
	require.NoError(t, s.AppendEvents(bg, "r1", evs(1, 4)...))
	require.NoError(t, s.AppendEvents(bg, "r2", evs(1, 2)...), "seqs are per run")
	got, err := s.ListEvents(bg, "r2", 0)
	require.NoError(t, err)
	require.Equal(t, []int64{1, 2}, seqs(got))
	for _, e := range got {
		require.Equal(t, "r2", e.RunID)
	}
	last, err := s.LastSeq(bg, "r1")
	require.NoError(t, err)
	require.Equal(t, int64(4), last)
}

// of returns the events with RunID set.
func of(runID string, events []store.Event) []store.Event {
	out := make([]store.Event, len(events))
	for i, e := range events {
		e.RunID = runID
		out[i] = e
	}
	return out
}

// testEventLogs: AppendEventLogs stores the events of several runs in one transaction (the
// server's group commit), each run keeping AppendEvents' rules; a refused group stores none.
func testEventLogs(t *testing.T, s store.Store) {
	addChatRun(t, s)
	addRun(t, s, "c1", "r2")
	addRun(t, s, "c1", "r3")
	require.NoError(t, s.AppendEvents(bg, "r1", evs(1, 2)...))
	group := slices.Concat(of("r2", evs(1, 1)), of("r1", evs(3, 4)), of("r2", evs(2, 3)), of("r3", evs(1, 1)))
	require.NoError(t, s.AppendEventLogs(bg, group...))
	for run, want := range map[string][]int64{"r1": seqRange(1, 4), "r2": seqRange(1, 3), "r3": {1}} {
		got, err := s.ListEvents(bg, run, 0)
		require.NoError(t, err)
		require.Equal(t, want, seqs(got), run)
		for _, e := range got {
			require.Equal(t, run, e.RunID)
		}
	}
	require.NoError(t, s.AppendEventLogs(bg), "an empty group is fine")

	// One run's conflict, an unknown run or an event without a run refuses the whole group.
	for name, bad := range map[string][]store.Event{
		"conflict":   slices.Concat(of("r3", evs(2, 3)), of("r1", evs(4, 5))),
		"unknown":    slices.Concat(of("r3", evs(2, 3)), of("nope", evs(1, 1))),
		"no run":     slices.Concat(of("r3", evs(2, 3)), evs(5, 5)),
		"bad body":   slices.Concat(of("r3", evs(2, 3)), []store.Event{{RunID: "r1", Seq: 5, Type: "x", Body: json.RawMessage(`{`)}}),
		"out of seq": slices.Concat(of("r3", evs(3, 3)), of("r3", evs(2, 2))),
	} {
		err := s.AppendEventLogs(bg, bad...)
		require.Error(t, err, name)
		require.True(t, errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrInvalid) || errors.Is(err, store.ErrNotFound),
			"%s: %v", name, err)
		last, err := s.LastSeq(bg, "r3")
		require.NoError(t, err)
		require.Equal(t, int64(1), last, "%s: nothing of a refused group is stored", name)
	}
}
