package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/store"
)

var generalTests = []test{
	{"General/ResultsAreCopies", testCopies},
	{"General/NothingDeleted", testNothingDeleted},
	{"General/Concurrency", testConcurrency},
	{"General/CanceledContext", testCanceledContext},
	{"General/AnyText", testAnyText},
}

// odd is text a client or a model may send that some databases refuse in a text column: a NUL
// byte, invalid UTF-8, a lone surrogate's bytes, a BOM.
const odd = "a\x00b \xff\xfe \xed\xa0\x80 \ufeffz"

// testAnyText: names, contents, request ids and document texts keep any bytes.
func testAnyText(t *testing.T, s store.Store) {
	require.NoError(t, s.CreateChat(bg, store.Chat{ID: "c1", Name: odd, LastRunContent: odd}))
	run := store.Run{ID: "r1", ChatID: "c1", RequestID: odd, StartedAt: at(0)}
	require.NoError(t, s.CreateRun(bg, run))
	require.NoError(t, s.UpdateChatAfterRun(bg, "c1", "r1", odd+odd, at(1)))
	chat, err := s.GetChat(bg, "c1")
	require.NoError(t, err)
	require.Equal(t, odd, chat.Name)
	require.Equal(t, odd+odd, chat.LastRunContent)
	got, err := s.GetRun(bg, "r1")
	require.NoError(t, err)
	require.Equal(t, odd, got.RequestID)

	_, err = s.CreateDocument(bg, store.Document{ID: "d1", Name: odd, Markdown: odd, ItemCount: 1})
	require.NoError(t, err)
	e := edit(1, "replace")
	e.Before, e.After = odd, odd+"!"
	_, err = s.ApplyDocumentEdit(bg, "d1", text(odd+odd, 1), e)
	require.NoError(t, err)
	doc, err := s.GetDocument(bg, "d1")
	require.NoError(t, err)
	require.Equal(t, odd, doc.Name)
	require.Equal(t, odd+odd, doc.Markdown)
	require.Equal(t, len(odd+odd), doc.SizeBytes)
	edits, err := s.ListDocumentEdits(bg, "d1", 0)
	require.NoError(t, err)
	require.Equal(t, odd, edits[0].Before)
	require.Equal(t, odd+"!", edits[0].After)
	list, err := s.ListDocuments(bg)
	require.NoError(t, err)
	require.Equal(t, odd, list[0].Name)
}

func testCopies(t *testing.T, s store.Store) {
	addChatRun(t, s)
	body := []byte(`{"seq":1,"type":"x","timestamp":1}`)
	require.NoError(t, s.AppendEvents(bg, "r1", store.Event{Seq: 1, Type: "x", Body: body}))
	body[2] = 'X' // the caller reuses its buffer
	got, err := s.ListEvents(bg, "r1", 0)
	require.NoError(t, err)
	require.Equal(t, `{"seq":1,"type":"x","timestamp":1}`, string(got[0].Body), "the store kept its own copy")
	got[0].Body[2] = 'Y'
	again, err := s.ListEvents(bg, "r1", 0)
	require.NoError(t, err)
	require.Equal(t, `{"seq":1,"type":"x","timestamp":1}`, string(again[0].Body), "results are copies")

	run, err := s.GetRun(bg, "r1")
	require.NoError(t, err)
	run.Query[0] = '['
	run2, err := s.GetRun(bg, "r1")
	require.NoError(t, err)
	require.Equal(t, byte('{'), run2.Query[0])

	require.NoError(t, s.MarkRead(bg, "c1", at(1)))
	chat, err := s.GetChat(bg, "c1")
	require.NoError(t, err)
	*chat.ReadAt = at(99)
	chat2, err := s.GetChat(bg, "c1")
	require.NoError(t, err)
	require.Equal(t, msPtr(at(1)), chat2.ReadAt)

	state := []byte(`{"a":1}`)
	require.NoError(t, s.SaveTask(bg, "t1", state, at(1)))
	state[1] = 'X'
	task, err := s.LoadTask(bg, "t1")
	require.NoError(t, err)
	require.Equal(t, `{"a":1}`, string(task.Body))
}

func testNothingDeleted(t *testing.T, s store.Store) {
	typ := reflect.TypeFor[store.Store]()
	for i := range typ.NumMethod() {
		name := typ.Method(i).Name
		for _, verb := range []string{"Delete", "Remove", "Purge", "Drop", "Truncate", "Clear", "Prune"} {
			require.False(t, strings.HasPrefix(name, verb), "store.Store has a deleting method %s", name)
		}
	}

	// A full life cycle: every later write must leave the earlier rows in place.
	addChatRun(t, s)
	addRun(t, s, "c1", "r2")
	require.NoError(t, s.AppendMessages(bg, "r1", msg("a"), msg("b")))
	require.NoError(t, s.AppendEvents(bg, "r1", evs(1, 10)...))
	_, err := s.AppendSystem(bg, "r1", "plan", json.RawMessage(`{"v":1}`))
	require.NoError(t, err)
	require.NoError(t, s.SavePlan(bg, store.Plan{ID: "plan_r1", ChatID: "c1", RunID: "r1", Tasks: json.RawMessage(`[]`), UpdatedAt: at(1)}))
	addDocument(t, s, "d1", 0)
	_, err = s.ApplyDocumentEdit(bg, "d1", text("one", 1), edit(1, "replace"))
	require.NoError(t, err)

	require.NoError(t, s.FinishRun(bg, "r1", store.RunCompleted, "stop", "", at(2)))
	require.NoError(t, s.UpdateChatAfterRun(bg, "c1", "r1", "a b", at(2)))
	require.NoError(t, s.MarkRead(bg, "c1", at(3)))
	require.NoError(t, s.AppendMessages(bg, "r2", msg("c")))
	require.NoError(t, s.AppendEvents(bg, "r2", evs(1, 3)...))
	_, err = s.AppendSystem(bg, "r1", "plan", json.RawMessage(`{"v":2}`))
	require.NoError(t, err)
	require.NoError(t, s.SavePlan(bg, store.Plan{ID: "plan_r1", ChatID: "c1", RunID: "r2", Tasks: json.RawMessage(`[1]`), UpdatedAt: at(4)}))
	_, err = s.ApplyDocumentEdit(bg, "d1", text("two", 1), edit(2, "replace"))
	require.NoError(t, err)

	count := func(n int, err error) int { require.NoError(t, err); return n }
	runs, err := s.ListRuns(bg, "c1")
	require.Equal(t, 2, count(len(runs), err))
	msgs, err := s.ListMessages(bg, "r1")
	require.Equal(t, 2, count(len(msgs), err))
	events, err := s.ListEvents(bg, "r1", 0)
	require.Equal(t, 10, count(len(events), err))
	systems, err := s.ListSystems(bg, "r1")
	require.Equal(t, 2, count(len(systems), err))
	edits, err := s.ListDocumentEdits(bg, "d1", 0)
	require.Equal(t, 2, count(len(edits), err))
	recent, err := s.RecentMessages(bg, "c1", 20)
	require.Equal(t, 3, count(len(recent), err))
	chats, err := s.ListChats(bg)
	require.Equal(t, 1, count(len(chats), err))
}

func testConcurrency(t *testing.T, s store.Store) {
	const writers, batches, size = 5, 10, 20
	for w := range writers {
		chat := fmt.Sprintf("c%d", w%2)
		if w < 2 {
			addChat(t, s, chat, 0)
		}
		addRun(t, s, chat, fmt.Sprintf("r%d", w))
	}
	var wg sync.WaitGroup
	done := make(chan struct{})
	for w := range writers {
		wg.Go(func() {
			run := fmt.Sprintf("r%d", w)
			for b := range batches {
				from := int64(b*size + 1)
				if err := s.AppendEvents(bg, run, evs(from, from+size-1)...); err != nil {
					t.Errorf("%s batch %d: %v", run, b, err)
					return
				}
				if err := s.AppendMessages(bg, run, msg(fmt.Sprint(b))); err != nil {
					t.Errorf("%s message %d: %v", run, b, err)
				}
			}
			if err := s.SaveTask(bg, run, json.RawMessage(`{}`), at(w)); err != nil {
				t.Errorf("task %s: %v", run, err)
			}
		})
	}
	var readers sync.WaitGroup
	for r := range 3 {
		readers.Go(func() { readWhileWriting(t, s, fmt.Sprintf("r%d", r), size, done) })
	}
	wg.Wait()
	close(done)
	readers.Wait()
	for w := range writers {
		run := fmt.Sprintf("r%d", w)
		got, err := s.ListEvents(bg, run, 0)
		require.NoError(t, err)
		require.Equal(t, seqRange(1, batches*size), seqs(got), run)
		msgs, err := s.ListMessages(bg, run)
		require.NoError(t, err)
		require.Len(t, msgs, batches)
	}
}

// readWhileWriting follows a run until done, reading only what is new each time; every read
// must add whole batches that continue the previous ones.
func readWhileWriting(t *testing.T, s store.Store, run string, size int, done <-chan struct{}) {
	var seen int64
	for {
		select {
		case <-done:
			return
		default:
		}
		got, err := s.ListEvents(bg, run, seen)
		if err != nil {
			t.Errorf("ListEvents: %v", err)
			return
		}
		if n := int64(len(got)); n > 0 {
			if n%int64(size) != 0 || got[0].Seq != seen+1 || got[n-1].Seq != seen+n {
				t.Errorf("after seq %d a reader saw seqs %d..%d of %s: not whole batches", seen, got[0].Seq, got[n-1].Seq, run)
				return
			}
			seen += n
		}
		if _, err := s.LastSeq(bg, run); err != nil {
			t.Errorf("LastSeq: %v", err)
			return
		}
		if _, err := s.ListChats(bg); err != nil {
			t.Errorf("ListChats: %v", err)
			return
		}
	}
}

func testCanceledContext(t *testing.T, s store.Store) {
	addChatRun(t, s)
	ctx, cancel := context.WithCancel(bg)
	cancel()
	requireIs(t, s.AppendEvents(ctx, "r1", evs(1, 3)...), context.Canceled)
	requireIs(t, s.CreateChat(ctx, store.Chat{ID: "c2"}), context.Canceled)
	_, err := s.GetChat(ctx, "c1")
	requireIs(t, err, context.Canceled)
	_, err = s.ListEvents(ctx, "r1", 0)
	requireIs(t, err, context.Canceled)
	last, err := s.LastSeq(bg, "r1")
	require.NoError(t, err)
	require.Zero(t, last, "a canceled append wrote nothing")
	_, err = s.GetChat(bg, "c2")
	requireIs(t, err, store.ErrNotFound)
}
