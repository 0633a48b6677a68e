package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/aitexteditor/aite/internal/agent"
	"github.com/aitexteditor/aite/internal/api"
	"github.com/aitexteditor/aite/internal/store"
	"github.com/aitexteditor/aite/internal/store/postgres"
	"github.com/aitexteditor/aite/internal/store/postgres/pgtest"
	"github.com/aitexteditor/aite/internal/tool"
)

// The cluster tests run two or three run managers (nodes) in this process,
// each over a PostgreSQL store of its own on one schema, as separate
// server processes would.

// node is one node of a test cluster.
type node struct {
	st *postgres.Store
	m  *RunManager
}

// newNodes opens n nodes named a, b, c… on one new schema, with the given
// lease. The managers are closed when the test ends.
func newNodes(t *testing.T, n int, lease time.Duration) (string, []node) {
	t.Helper()
	leakCheck(t)
	dsn := pgtest.DSN(t)
	out := make([]node, n)
	for i := range out {
		st := pgtest.Open(t, dsn, string(rune('a'+i)))
		m := NewRunManager(st, RunOptions{Lease: lease})
		if err := m.RecoverInterrupted(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := m.Close(ctx); err != nil {
				t.Errorf("close node %s: %v", st.Node(), err)
			}
		})
		out[i] = node{st: st, m: m}
	}
	return dsn, out
}

// TestClusterFollowsARunOfAnotherNode: a client of node B follows a run
// executing on node A live, event by event, each one only once A stored
// it, reattaches on B with a Last-Event-ID, and gets the terminal event
// once the run is finished and its chat updated, on both nodes alike.
func TestClusterFollowsARunOfAnotherNode(t *testing.T) {
	_, nodes := newNodes(t, 2, time.Minute)
	a, b := nodes[0], nodes[1]
	mkChat(t, a.st, "c1")
	s := newStepper()
	sp := spec("r1", "c1", s.execute)
	chatUpdated := make(chan bool, 2)
	sp.Finished = func(ctx context.Context, content string) {
		if err := a.st.UpdateChatAfterRun(ctx, "c1", "r1", content, time.Now()); err != nil {
			t.Error(err)
		}
	}
	run, err := a.m.Start(context.Background(), sp)
	if err != nil {
		t.Fatal(err)
	}
	onA, stopA, err := subscribe(t, a.m, "r1", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer stopA()
	onB, stopB, err := subscribe(t, b.m, "r1", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer stopB()
	var gotA, gotB []api.Event
	for range 2 { // request.query, run.start
		gotA, gotB = append(gotA, mustNext(t, onA)), append(gotB, mustNext(t, onB))
	}
	for i := range 20 {
		s.send(t, fmt.Sprintf("d%d ", i))
		eb := mustNext(t, onB)
		stored, err := b.st.LastSeq(context.Background(), "r1")
		if err != nil || stored < eb.Seq {
			t.Fatalf("node B sent seq %d while the store has %d (%v)", eb.Seq, stored, err)
		}
		gotA, gotB = append(gotA, mustNext(t, onA)), append(gotB, eb)
	}
	// A second client of B reattaches after seq 7.
	again, stopAgain, err := subscribe(t, b.m, "r1", 7)
	if err != nil {
		t.Fatal(err)
	}
	defer stopAgain()
	close(s.ch)
	gotA = append(gotA, drain(t, onA)...)
	for _, e := range drain(t, onB) {
		if Terminal(e.Type) {
			chat, err := b.st.GetChat(context.Background(), "c1")
			chatUpdated <- err == nil && chat.LastRunID == "r1"
		}
		gotB = append(gotB, e)
	}
	waitRun(t, run)
	checkSeqs(t, gotA, 0, api.TypeRunComplete)
	equal(t, frames(t, gotB), frames(t, gotA))
	equal(t, frames(t, drain(t, again)), frames(t, gotA[7:]))
	if !<-chatUpdated {
		t.Error("node B sent the terminal event before the chat was updated")
	}
	// A finished run is replayed from the store on either node.
	equal(t, frames(t, drainSub(t, b.m, "r1", 0)), frames(t, gotA))
}

// mustNext receives one event of a subscription that must go on.
func mustNext(t *testing.T, ch <-chan api.Event) api.Event {
	t.Helper()
	e, ok := next(t, ch)
	if !ok {
		t.Fatal("the subscription ended")
	}
	return e
}

// drainSub subscribes and returns every event to the end.
func drainSub(t *testing.T, m *RunManager, runID string, after int64) []api.Event {
	t.Helper()
	ch, stop, err := subscribe(t, m, runID, after)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	return drain(t, ch)
}

// TestClusterOneRunPerChat: while node A runs a run of a chat, node B
// refuses a second one and names A's run; nodes start runs of one chat at
// once and only one starts; once the run ended B may start one.
func TestClusterOneRunPerChat(t *testing.T) {
	_, nodes := newNodes(t, 2, time.Minute)
	a, b := nodes[0], nodes[1]
	ctx := context.Background()
	mkChat(t, a.st, "c1")
	s := newStepper()
	run, err := a.m.Start(ctx, spec("r1", "c1", s.execute))
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.m.Start(ctx, spec("r2", "c1", newStepper().execute))
	if busy, ok := errors.AsType[*BusyError](err); !ok || busy.RunID != "r1" || !errors.Is(err, ErrChatBusy) {
		t.Fatalf("B starting a run of A's busy chat: %v", err)
	}
	if id, ok := b.m.Active(ctx, "c1"); !ok || id != "r1" {
		t.Fatalf("B's Active(c1) = %q, %v", id, ok)
	}
	list, err := b.m.Running(ctx)
	if err != nil || len(list) != 1 || list[0].RunID != "r1" || list[0].ChatID != "c1" {
		t.Fatalf("B's Running = %+v, %v", list, err)
	}
	if len(b.m.List()) != 0 {
		t.Fatal("B runs nothing itself")
	}
	close(s.ch)
	waitRun(t, run)
	if _, ok := b.m.Active(ctx, "c1"); ok {
		t.Fatal("the chat is still busy on B")
	}

	for i := range 10 {
		chat := fmt.Sprintf("race%d", i)
		mkChat(t, a.st, chat)
		var wg sync.WaitGroup
		runs := make([]*Run, 2)
		errs := make([]error, 2)
		steppers := []*stepper{newStepper(), newStepper()}
		for j, n := range nodes {
			wg.Go(func() {
				runs[j], errs[j] = n.m.Start(ctx, spec(fmt.Sprintf("%s-%d", chat, j), chat, steppers[j].execute))
			})
		}
		wg.Wait()
		started := 0
		for j := range runs {
			if errs[j] == nil {
				started++
				close(steppers[j].ch)
				waitRun(t, runs[j])
			} else if !errors.Is(errs[j], ErrChatBusy) {
				t.Fatal(errs[j])
			}
		}
		if started != 1 {
			t.Fatalf("%s: %d runs started at once: %v", chat, started, errs)
		}
	}
}

// TestClusterCancelsARunOfAnotherNode: a cancel on node B stops the run on
// node A; B's client gets run.error run_aborted (canceled).
func TestClusterCancelsARunOfAnotherNode(t *testing.T) {
	_, nodes := newNodes(t, 2, time.Minute)
	a, b := nodes[0], nodes[1]
	ctx := context.Background()
	mkChat(t, a.st, "c1")
	s := newStepper()
	run, err := a.m.Start(ctx, spec("r1", "c1", s.execute))
	if err != nil {
		t.Fatal(err)
	}
	onB, stop, err := subscribe(t, b.m, "r1", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	s.send(t, "partial")
	for range 3 { // request.query, run.start, the delta: B listens by now
		mustNext(t, onB)
	}
	if err := b.m.Cancel(ctx, "r1"); err != nil {
		t.Fatal(err)
	}
	waitRun(t, run)
	got := drain(t, onB)
	if n := len(got); n == 0 || got[n-1].Type != api.TypeRunError {
		t.Fatalf("B got %+v", got)
	}
	var p struct {
		Error api.ErrorInfo `json:"error"`
	}
	_ = json.Unmarshal(got[len(got)-1].Payload.(json.RawMessage), &p)
	if p.Error.Code != api.CodeRunAborted || p.Error.Reason != api.AbortCanceled {
		t.Fatalf("terminal %+v", p.Error)
	}
	if err := b.m.Cancel(ctx, "r1"); !errors.Is(err, ErrRunNotRunning) {
		t.Fatalf("second cancel: %v", err)
	}
	if err := b.m.Cancel(ctx, "nope"); !errors.Is(err, ErrRunNotFound) {
		t.Fatalf("unknown run: %v", err)
	}
}

// TestClusterAbortsTheRunsOfADeadNode: a node that stops renewing its
// lease (here a store that took one lease and started a run, then went
// silent) loses its runs to the live node, which stores run.error
// run_aborted after the last stored event; a client following the run on
// the live node gets it, and the chat is free again.
func TestClusterAbortsTheRunsOfADeadNode(t *testing.T) {
	dsn, nodes := newNodes(t, 1, 300*time.Millisecond)
	live := nodes[0]
	ctx := context.Background()
	dead := pgtest.Open(t, dsn, "dead")
	mkChat(t, dead, "c1")
	if _, err := dead.RenewLease(ctx, 500*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := dead.StartRun(ctx, store.Run{ID: "r1", ChatID: "c1", Query: []byte(`{"message":"Go on"}`), StartedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	e1 := api.Event{Seq: 1, Type: api.TypeContentDelta, Timestamp: 1, Payload: api.ContentDelta{ContentID: "r1_c_1", Delta: "Half"}}
	if err := dead.AppendEvents(ctx, "r1", storeEvent("r1", e1)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if id, ok := live.m.Active(ctx, "c1"); !ok || id != "r1" {
		t.Fatalf("the dead node's run is not active yet: %q %v", id, ok)
	}
	got := drainSub(t, live.m, "r1", 0)
	took := time.Since(start)
	if len(got) != 2 || got[1].Type != api.TypeRunError || got[1].Seq != 2 {
		t.Fatalf("events %+v", got)
	}
	if !strings.Contains(string(got[1].Payload.(json.RawMessage)), `"code":"run_aborted"`) {
		t.Fatalf("terminal %s", got[1].Payload)
	}
	run, err := live.st.GetRun(ctx, "r1")
	if err != nil || run.Status != store.RunError || run.ErrorCode != api.CodeRunAborted {
		t.Fatalf("run %+v %v", run, err)
	}
	chat, err := live.st.GetChat(ctx, "c1")
	if err != nil || chat.LastRunID != "r1" || chat.LastRunContent != "Half" {
		t.Fatalf("chat %+v %v", chat, err)
	}
	if _, ok := live.m.Active(ctx, "c1"); ok {
		t.Fatal("the chat is still busy")
	}
	s := newStepper()
	r2, err := live.m.Start(ctx, spec("r2", "c1", s.execute))
	if err != nil {
		t.Fatal(err)
	}
	close(s.ch)
	waitRun(t, r2)
	t.Logf("aborted %v after the dead node's lease of 500 ms began", took)
}

// TestClusterFencesALostRun: when node A's lease expires while its run is
// running, node B takes the run over and aborts it; A can no longer store
// the run's events, stops it, and A's client goes on with B's run.error,
// without a gap, a duplicate or a second terminal event.
func TestClusterFencesALostRun(t *testing.T) {
	dsn, nodes := newNodes(t, 1, 300*time.Millisecond)
	b := nodes[0]
	ctx := context.Background()
	stA := pgtest.Open(t, dsn, "victim")
	a := NewRunManager(stA, RunOptions{Lease: time.Hour}) // renews every 20 minutes: not in this test
	defer func() { _ = a.Close(ctx) }()
	mkChat(t, stA, "c1")
	s := newStepper()
	run, err := a.Start(ctx, spec("r1", "c1", s.execute))
	if err != nil {
		t.Fatal(err)
	}
	onA, stop, err := subscribe(t, a, "r1", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	s.send(t, "before")
	for range 4 { // request.query, run.start, content.start, content.delta
		mustNext(t, onA)
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `UPDATE nodes SET lease_until = now() - interval '1 second' WHERE node_id = 'victim'`); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		r, err := b.st.GetRun(ctx, "r1")
		return err == nil && r.Status == store.RunError
	})
	// A's next event is refused: A stops the run, its client reads on.
	select {
	case s.ch <- agentDelta("after"):
	case <-run.Done():
	}
	waitRun(t, run)
	rest := drain(t, onA)
	if len(rest) != 1 || rest[0].Seq != 5 || rest[0].Type != api.TypeRunError {
		t.Fatalf("A's client after the takeover: %+v", rest)
	}
	stored, err := b.st.ListEvents(ctx, "r1", 0)
	if err != nil || len(stored) != 5 {
		t.Fatalf("stored %d events, %v", len(stored), err)
	}
	if _, ok := a.Active(ctx, "c1"); ok {
		t.Fatal("the chat is still busy on A")
	}
}

// waitFor polls cond for at most 10 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 10 s")
		}
	}
}

// TestClusterDocumentEdits: two nodes edit one document in turn and at
// once; each edit is made on the current text (a node reloads a copy
// another node made stale) and none is lost.
func TestClusterDocumentEdits(t *testing.T) {
	_, nodes := newNodes(t, 2, time.Minute)
	ctx := context.Background()
	docsA, docsB := NewDocuments(nodes[0].st, time.Now), NewDocuments(nodes[1].st, time.Now)
	doc, err := docsA.Create(ctx, "book", []byte("# Book\n\nFirst.\n"), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	toolsA, err := docsA.BookTools(ctx, doc.ID, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	toolsB, err := docsB.BookTools(ctx, doc.ID, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	insert := func(tools map[string]tool.Tool, text string) error {
		res, err := tools["editor-insert_after"].Call(ctx, json.RawMessage(`{"pointer":"2","markdown":"`+text+`"}`))
		if err != nil {
			return err
		}
		if res.IsError || len(res.Edits) != 1 {
			return fmt.Errorf("insert %s: %s", text, res.Text)
		}
		return nil
	}
	// In turn: B's copy is stale after A's edit.
	if err := insert(toolsA, "From A."); err != nil {
		t.Fatal(err)
	}
	if err := insert(toolsB, "From B."); err != nil {
		t.Fatal(err)
	}
	// At once: 20 inserts through both nodes.
	var wg sync.WaitGroup
	for i := range 20 {
		tools := []map[string]tool.Tool{toolsA, toolsB}[i%2]
		wg.Go(func() {
			if err := insert(tools, fmt.Sprintf("Parallel %d.", i)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got, err := nodes[0].st.GetDocument(ctx, doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Revision != 22 {
		t.Fatalf("revision %d, want 22", got.Revision)
	}
	for _, want := range []string{"First.", "From A.", "From B."} {
		if !strings.Contains(got.Markdown, want) {
			t.Errorf("lost %q:\n%s", want, got.Markdown)
		}
	}
	for i := range 20 {
		if want := fmt.Sprintf("Parallel %d.", i); !strings.Contains(got.Markdown, want) {
			t.Errorf("lost %q", want)
		}
	}
	edits, err := nodes[1].st.ListDocumentEdits(ctx, doc.ID, 0)
	if err != nil || len(edits) != 22 {
		t.Fatalf("%d edits, %v", len(edits), err)
	}
	for i, e := range edits {
		if e.Revision != i+1 {
			t.Fatalf("edit %d has revision %d", i, e.Revision)
		}
	}
	// Both nodes read the same text.
	rawA, errA := docsA.items(ctx, doc.ID, 0, 100, false)
	rawB, errB := docsB.items(ctx, doc.ID, 0, 100, false)
	if errA != nil || errB != nil || rawA.Revision != 22 || rawB.Revision != 22 || len(rawA.Items) != len(rawB.Items) {
		t.Fatalf("A %+v %v\nB %+v %v", rawA.Revision, errA, rawB.Revision, errB)
	}
	// A revert is an edit too: B's copy is stale after A's insert, so B
	// reverts the current text (revision 23), and A's next edit is made on
	// the reverted text.
	if err := insert(toolsA, "Undone."); err != nil {
		t.Fatal(err)
	}
	reverted, err := docsB.Revert(ctx, doc.ID, 22)
	if err != nil || reverted.Revision != 24 {
		t.Fatalf("revert on B: revision %d, %v", reverted.Revision, err)
	}
	if stored, err := nodes[0].st.GetDocument(ctx, doc.ID); err != nil || stored.Markdown != got.Markdown {
		t.Fatalf("revert on B: %v\n%s", err, stored.Markdown)
	}
	if err := insert(toolsA, "After the revert."); err != nil {
		t.Fatal(err)
	}
	last, err := nodes[1].st.GetDocument(ctx, doc.ID)
	if err != nil || last.Revision != 25 || strings.Contains(last.Markdown, "Undone.") ||
		!strings.Contains(last.Markdown, "After the revert.") || !strings.Contains(last.Markdown, "Parallel 19.") {
		t.Fatalf("revision %d, %v:\n%s", last.Revision, err, last.Markdown)
	}
	text23, _, err := docsB.textAt(ctx, doc.ID, 23)
	if err != nil || !strings.Contains(text23, "Undone.") {
		t.Fatalf("revision 23 rebuilt on B: %v\n%s", err, text23)
	}
}

// agentDelta is a content delta of the agent loop.
func agentDelta(text string) agent.Event { return agent.Event{Type: agent.ContentDelta, Delta: text} }

// failingOnce is a PostgreSQL store whose first event append fails.
type failingOnce struct {
	*postgres.Store
	failed atomic.Bool
}

func (f *failingOnce) AppendEvents(ctx context.Context, runID string, events ...store.Event) error {
	if f.failed.CompareAndSwap(false, true) {
		return errors.New("injected: the database went away")
	}
	return f.Store.AppendEvents(ctx, runID, events...)
}

// TestClusterRetriesAFailedAbort: a claimed run whose abort fails (the
// store failing once) stays the claiming node's and is aborted at its next
// round, not left running.
func TestClusterRetriesAFailedAbort(t *testing.T) {
	leakCheck(t)
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	dead := pgtest.Open(t, dsn, "dead")
	mkChat(t, dead, "c1")
	if _, err := dead.RenewLease(ctx, 300*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := dead.StartRun(ctx, store.Run{ID: "r1", ChatID: "c1", StartedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	st := &failingOnce{Store: pgtest.Open(t, dsn, "live")}
	m := NewRunManager(st, RunOptions{Lease: 300 * time.Millisecond})
	defer func() { _ = m.Close(ctx) }()
	if err := m.RecoverInterrupted(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		r, err := st.GetRun(ctx, "r1")
		return err == nil && r.Status == store.RunError
	})
	if !st.failed.Load() {
		t.Fatal("the abort never failed: the test tested nothing")
	}
	if events, _ := st.ListEvents(ctx, "r1", 0); len(events) != 1 || events[0].Type != api.TypeRunError {
		t.Fatalf("events %+v", events)
	}
}
