// Package storetest is the conformance suite every store.Store backend must pass: one
// Run call from the backend's tests covers every method and rule of the store package
// (ordering, not-found and conflict errors, atomic event batches, byte-exact JSON bodies,
// read-status resets, document revisions, task upserts, concurrency, nothing deleted).
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/store"
)

// Open returns a new, empty store for one subtest. Subtests run in parallel, so Open is
// called concurrently; Run closes every store it gets.
type Open func(t *testing.T) store.Store

// test is one conformance check, given a fresh store.
type test struct {
	name string
	fn   func(t *testing.T, s store.Store)
}

// Run runs the whole suite against the backend that open creates.
func Run(t *testing.T, open Open) {
	groups := [][]test{chatTests, runTests, messageTests, eventTests, documentTests, generalTests}
	for _, group := range groups {
		for _, tc := range group {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				s := open(t)
				t.Cleanup(func() {
					if err := s.Close(); err != nil {
						t.Errorf("Close: %v", err)
					}
				})
				tc.fn(t, s)
			})
		}
	}
}

// t0 is the suite's base time: not UTC and with nanoseconds, so the store's normalisation
// (UTC, milliseconds) is exercised everywhere.
var t0 = time.Date(2026, 2, 12, 11, 0, 0, 123_456_789, time.FixedZone("CET", 3600))

// at returns t0 plus i minutes.
func at(i int) time.Time { return t0.Add(time.Duration(i) * time.Minute) }

// ms is what a store returns for t.
func ms(t time.Time) time.Time { return store.StoredTime(t) }

func msPtr(t time.Time) *time.Time { m := ms(t); return &m }

var bg = context.Background()

// addChat creates a chat updated at minute i.
func addChat(t *testing.T, s store.Store, id string, i int) store.Chat {
	t.Helper()
	c := store.Chat{ID: id, Name: "chat " + id, AgentKey: "writer", CreatedAt: at(i), UpdatedAt: at(i)}
	require.NoError(t, s.CreateChat(bg, c))
	return c
}

// addRun creates a running run of a chat.
func addRun(t *testing.T, s store.Store, chatID, id string) store.Run {
	t.Helper()
	r := store.Run{ID: id, ChatID: chatID, RequestID: "req-" + id, AgentKey: "writer",
		Query: json.RawMessage(`{"message":"hi ` + id + `"}`), StartedAt: at(0)}
	require.NoError(t, s.CreateRun(bg, r))
	return r
}

// addChatRun creates chat "c1" with run "r1".
func addChatRun(t *testing.T, s store.Store) {
	t.Helper()
	addChat(t, s, "c1", 0)
	addRun(t, s, "c1", "r1")
}

// ev builds event seq of run with a body shaped like an SSE payload.
func ev(seq int64) store.Event {
	ts := int64(1770863186000) + seq
	body := fmt.Sprintf(`{"seq":%d,"type":"content.delta","timestamp":%d,"contentId":"r_c_1","delta":"d%d"}`, seq, ts, seq)
	return store.Event{Seq: seq, Type: "content.delta", Timestamp: ts, Body: json.RawMessage(body)}
}

// evs builds events from..to inclusive.
func evs(from, to int64) []store.Event {
	var out []store.Event
	for seq := from; seq <= to; seq++ {
		out = append(out, ev(seq))
	}
	return out
}

// seqs returns the seqs of events.
func seqs(events []store.Event) []int64 {
	out := make([]int64, 0, len(events))
	for _, e := range events {
		out = append(out, e.Seq)
	}
	return out
}

// seqRange returns from..to inclusive (empty if to < from).
func seqRange(from, to int64) []int64 {
	out := []int64{}
	for seq := from; seq <= to; seq++ {
		out = append(out, seq)
	}
	return out
}

// requireIs fails unless err wraps target.
func requireIs(t *testing.T, err, target error, msgAndArgs ...any) {
	t.Helper()
	require.Error(t, err, msgAndArgs...)
	if !errors.Is(err, target) {
		t.Fatalf("error %q does not wrap %q %v", err, target, msgAndArgs)
	}
}
