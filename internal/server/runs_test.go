package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/aitexteditor/aite/internal/agent"
	"github.com/aitexteditor/aite/internal/agentdef"
	"github.com/aitexteditor/aite/internal/api"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
	"github.com/aitexteditor/aite/internal/store"
	"github.com/aitexteditor/aite/internal/store/memory"
	"github.com/aitexteditor/aite/internal/store/sqlite"
)

// leakCheck fails the test if goroutines started during it are still alive
// at its end (registered first, so it runs after every other cleanup).
func leakCheck(t *testing.T) {
	t.Helper()
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
}

// backends runs f against the memory and the SQLite store.
func backends(t *testing.T, f func(t *testing.T, st store.Store)) {
	t.Run("memory", func(t *testing.T) {
		leakCheck(t)
		f(t, memory.New())
	})
	t.Run("sqlite", func(t *testing.T) {
		leakCheck(t)
		f(t, openSQLite(t, filepath.Join(t.TempDir(), "aite.db")))
	})
}

// openSQLite opens a database closed at the end of the test.
func openSQLite(t *testing.T, path string) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// mkChat stores a chat.
func mkChat(t *testing.T, st store.Store, id string) {
	t.Helper()
	now := time.Now()
	if err := st.CreateChat(context.Background(), store.Chat{ID: id, Name: "c", AgentKey: "a", CreatedAt: now, UpdatedAt: now}); err != nil {
		t.Fatal(err)
	}
}

// stepper is an Execute fed one agent event at a time; closing ch returns
// nil, the run context's end returns its error.
type stepper struct{ ch chan agent.Event }

func newStepper() *stepper { return &stepper{ch: make(chan agent.Event)} }

func (s *stepper) execute(ctx context.Context, a *Assembler) error {
	for {
		select {
		case e, ok := <-s.ch:
			if !ok {
				return nil
			}
			a.Event(e)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// send feeds one content delta.
func (s *stepper) send(t *testing.T, delta string) {
	t.Helper()
	select {
	case s.ch <- agent.Event{Type: agent.ContentDelta, Delta: delta}:
	case <-time.After(5 * time.Second):
		t.Fatal("the run does not take events")
	}
}

// spec returns a run spec bootstrapping with request.query and run.start.
func spec(runID, chatID string, exec func(context.Context, *Assembler) error) RunSpec {
	return RunSpec{RunID: runID, ChatID: chatID, RequestID: "req_" + runID, AgentKey: "writer",
		Query: []byte(`{"message":"hi"}`),
		Bootstrap: func(a *Assembler) {
			a.Bootstrap(api.RequestQuery{RequestID: "req_" + runID, ChatID: chatID, Role: "user", Message: "hi"}, nil)
		},
		Execute: exec}
}

// subscribe follows a run through a channel: a goroutine pumps the pull
// Subscription into it (unbuffered, so the subscriber reads at the test's
// pace) and closes it after the last event; cancel stops it early.
func subscribe(t *testing.T, m *RunManager, runID string, after int64) (<-chan api.Event, func(), error) {
	t.Helper()
	sub, err := m.Subscribe(context.Background(), runID, after)
	if err != nil {
		return nil, nil, err
	}
	ch, stop := make(chan api.Event), make(chan struct{})
	go func() {
		defer close(ch)
		defer sub.Close()
		for {
			evs, done, err := sub.Next(context.Background())
			if err != nil {
				t.Errorf("Next: %v", err)
				return
			}
			for _, e := range evs {
				select {
				case ch <- e:
				case <-stop:
					return
				}
			}
			if done {
				return
			}
			if len(evs) == 0 {
				select {
				case <-sub.Ready():
				case <-stop:
					return
				}
			}
		}
	}()
	var once sync.Once
	return ch, func() { once.Do(func() { close(stop) }) }, nil
}

// stepped starts run r1 of chat c1 (which must exist) on m, fed by a
// stepper, and follows it from the start; unsubscribe runs at the test's
// end.
func stepped(t *testing.T, m *RunManager) (*stepper, *Run, <-chan api.Event) {
	t.Helper()
	s := newStepper()
	r, err := m.Start(context.Background(), spec("r1", "c1", s.execute))
	if err != nil {
		t.Fatal(err)
	}
	ch, unsub, err := subscribe(t, m, "r1", 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(unsub)
	return s, r, ch
}

// next receives one event.
func next(t *testing.T, ch <-chan api.Event) (api.Event, bool) {
	t.Helper()
	select {
	case e, ok := <-ch:
		return e, ok
	case <-time.After(5 * time.Second):
		t.Fatal("no event")
	}
	return api.Event{}, false
}

// drain receives until the channel closes.
func drain(t *testing.T, ch <-chan api.Event) []api.Event {
	t.Helper()
	var out []api.Event
	for {
		e, ok := next(t, ch)
		if !ok {
			return out
		}
		out = append(out, e)
	}
}

// waitRun waits for the run to end.
func waitRun(t *testing.T, r *Run) {
	t.Helper()
	select {
	case <-r.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the run does not end")
	}
}

// frames encodes events as SSE frames.
func frames(t *testing.T, evs []api.Event) []string {
	t.Helper()
	out := make([]string, len(evs))
	for i, e := range evs {
		b, err := Frame(e)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = string(b)
	}
	return out
}

// storedFrames returns the frames of the stored log after afterSeq.
func storedFrames(t *testing.T, st store.Store, runID string, afterSeq int64) []string {
	t.Helper()
	evs, err := st.ListEvents(context.Background(), runID, afterSeq)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]api.Event, len(evs))
	for i, e := range evs {
		out[i] = StoredEvent(e)
	}
	return frames(t, out)
}

// checkSeqs checks that evs are numbered from+1, from+2, … and end with a
// terminal event of type last.
func checkSeqs(t *testing.T, evs []api.Event, from int64, last string) {
	t.Helper()
	for i, e := range evs {
		if e.Seq != from+int64(i)+1 {
			t.Fatalf("event %d has seq %d, want %d", i, e.Seq, from+int64(i)+1)
		}
		if Terminal(e.Type) != (i == len(evs)-1) {
			t.Fatalf("event %d (%s): terminal only at the end", i, e.Type)
		}
	}
	if len(evs) == 0 || evs[len(evs)-1].Type != last {
		t.Fatalf("stream does not end with %s: %v", last, evs)
	}
}

func equal(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d frames, want %d:\n%q\n%q", len(got), len(want), got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("frame %d:\n got %q\nwant %q", i, got[i], want[i])
		}
	}
}

func TestRunPersistsInOrderBeforeTerminal(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store) {
		mkChat(t, st, "c1")
		s, r, ch := stepped(t, NewRunManager(st, RunOptions{}))
		for _, d := range []string{"a", "b", "c", "d", "e"} {
			s.send(t, d)
		}
		close(s.ch)
		var got []api.Event
		for {
			e, ok := next(t, ch)
			if !ok {
				t.Fatal("closed before the terminal event")
			}
			got = append(got, e)
			// Durable before sent: an event a subscriber has is stored.
			if last, err := st.LastSeq(context.Background(), "r1"); err != nil || last < e.Seq {
				t.Fatalf("seq %d was sent before it was stored (last stored %d, %v)", e.Seq, last, err)
			}
			if Terminal(e.Type) {
				// The whole log is durable when the terminal event arrives.
				equal(t, storedFrames(t, st, "r1", 0), frames(t, got))
				run, err := st.GetRun(context.Background(), "r1")
				if err != nil || run.Status != store.RunCompleted || run.FinishReason != api.FinishStop || run.EndedAt == nil {
					t.Fatalf("stored run %+v, %v", run, err)
				}
				break
			}
		}
		if _, ok := next(t, ch); ok {
			t.Fatal("an event after the terminal one")
		}
		// request.query run.start content.start 5×delta content.end run.complete
		checkSeqs(t, got, 0, api.TypeRunComplete)
		if len(got) != 10 {
			t.Fatalf("%d events", len(got))
		}
		waitRun(t, r)
	})
}

func TestRunReattachMidRun(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store) {
		mkChat(t, st, "c1")
		m := NewRunManager(st, RunOptions{})
		s := newStepper()
		r, err := m.Start(context.Background(), spec("r1", "c1", s.execute))
		if err != nil {
			t.Fatal(err)
		}
		first, unsub1, err := subscribe(t, m, "r1", 0)
		if err != nil {
			t.Fatal(err)
		}
		defer unsub1()
		var seen []api.Event
		for range 2 { // bootstrap
			e, _ := next(t, first)
			seen = append(seen, e)
		}
		s.send(t, "a") // content.start, delta
		s.send(t, "b")
		for range 3 {
			e, _ := next(t, first)
			seen = append(seen, e)
		}
		// The client of first goes away after seq 5 and comes back with
		// Last-Event-ID 4 while the run keeps producing.
		unsub1()
		unsub1()
		s.send(t, "c")
		second, unsub2, err := subscribe(t, m, "r1", 4)
		if err != nil {
			t.Fatal(err)
		}
		defer unsub2()
		s.send(t, "d")
		s.send(t, "e")
		close(s.ch)
		got := drain(t, second)
		checkSeqs(t, got, 4, api.TypeRunComplete)
		waitRun(t, r)
		equal(t, frames(t, append(seen[:4:4], got...)), storedFrames(t, st, "r1", 0))
	})
}

func TestRunSurvivesRequestContext(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store) {
		mkChat(t, st, "c1")
		m := NewRunManager(st, RunOptions{})
		runner := &agent.Runner{Models: scriptedModels{llmtest.NewScripted(llmtest.Chunks("Hello ", "there."))}, Memory: st}
		ag := agentdef.AgentDef{Key: "writer", Mode: agentdef.ModeOneshot,
			Plain: &agentdef.Stage{ModelConfig: agentdef.ModelConfig{ModelKey: "m"}}}
		started := make(chan struct{})
		exec := func(ctx context.Context, a *Assembler) error {
			<-started // the request context is already canceled
			return a.Run(runner.Run(ctx, agent.Spec{RunID: "r1", ChatID: "c1", Agent: ag, Defs: &agentdef.Snapshot{}, Message: "hi"}))
		}
		ctx, cancel := context.WithCancel(context.Background())
		r, err := m.Start(ctx, spec("r1", "c1", exec))
		if err != nil {
			t.Fatal(err)
		}
		cancel()
		close(started)
		waitRun(t, r)
		ch, _, err := subscribe(t, m, "r1", 0)
		if err != nil {
			t.Fatal(err)
		}
		got := drain(t, ch)
		checkSeqs(t, got, 0, api.TypeRunComplete)
		var text string
		for _, e := range got {
			if e.Type == api.TypeContentDelta {
				var p api.ContentDelta
				if err := json.Unmarshal(e.Payload.(json.RawMessage), &p); err != nil {
					t.Fatal(err)
				}
				text += p.Delta
			}
		}
		if text != "Hello there." {
			t.Fatalf("content %q", text)
		}
		if run, err := st.GetRun(context.Background(), "r1"); err != nil || run.Status != store.RunCompleted {
			t.Fatalf("stored run %+v, %v", run, err)
		}
	})
}

func TestRunCancelActiveList(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store) {
		mkChat(t, st, "c1")
		mkChat(t, st, "c2")
		m := NewRunManager(st, RunOptions{})
		s1, s2 := newStepper(), newStepper()
		r1, err := m.Start(context.Background(), spec("r1", "c1", s1.execute))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Start(context.Background(), spec("r9", "c1", s1.execute)); !errors.Is(err, ErrChatBusy) {
			t.Fatalf("second run of a chat: %v", err)
		}
		r2, err := m.Start(context.Background(), spec("r2", "c2", s2.execute))
		if err != nil {
			t.Fatal(err)
		}
		if id, ok := m.Active(context.Background(), "c1"); !ok || id != "r1" {
			t.Fatalf("Active(c1) = %q, %v", id, ok)
		}
		if l := m.List(); len(l) != 2 || l[0].RunID != "r1" || l[1].RunID != "r2" || l[0].ChatID != "c1" || l[0].AgentKey != "writer" {
			t.Fatalf("List = %+v", l)
		}
		ch, unsub, err := subscribe(t, m, "r1", 0)
		if err != nil {
			t.Fatal(err)
		}
		defer unsub()
		s1.send(t, "partial")
		if err := m.Cancel(context.Background(), "r1"); err != nil {
			t.Fatal(err)
		}
		got := drain(t, ch)
		checkSeqs(t, got, 0, api.TypeRunError)
		if p := got[len(got)-1].Payload.(api.RunError); p.Error.Code != api.CodeRunAborted || !p.Error.Retriable {
			t.Fatalf("terminal %+v", p)
		}
		waitRun(t, r1)
		run, err := st.GetRun(context.Background(), "r1")
		if err != nil || run.Status != store.RunError || run.ErrorCode != api.CodeRunAborted {
			t.Fatalf("stored run %+v, %v", run, err)
		}
		if _, ok := m.Active(context.Background(), "c1"); ok {
			t.Fatal("c1 still active")
		}
		if l := m.List(); len(l) != 1 || l[0].RunID != "r2" {
			t.Fatalf("List = %+v", l)
		}
		if err := m.Cancel(context.Background(), "r1"); !errors.Is(err, ErrRunNotRunning) {
			t.Fatalf("Cancel of an ended run: %v", err)
		}
		if err := m.Cancel(context.Background(), "nope"); !errors.Is(err, ErrRunNotFound) {
			t.Fatalf("Cancel of an unknown run: %v", err)
		}
		// Close cancels the rest and waits.
		if err := m.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		waitRun(t, r2)
		if _, err := m.Start(context.Background(), spec("r3", "c1", s1.execute)); !errors.Is(err, ErrManagerClosed) {
			t.Fatalf("Start after Close: %v", err)
		}
	})
}

func TestRunExecuteEndings(t *testing.T) {
	cases := []struct {
		name string
		exec func(context.Context, *Assembler) error
		code string
	}{
		{"error", func(context.Context, *Assembler) error { return errors.New("boom") }, api.CodeInternalError},
		{"failure", func(context.Context, *Assembler) error {
			return &RunFailure{Info: api.ErrorInfo{Code: api.CodeBudgetExceeded, Message: "Budget exceeded"}}
		}, api.CodeBudgetExceeded},
		{"panic", func(context.Context, *Assembler) error { panic("oops") }, api.CodeInternalError},
		{"timeout", func(_ context.Context, a *Assembler) error { a.Complete(api.FinishTimeout); return nil }, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			leakCheck(t)
			st := memory.New()
			mkChat(t, st, "c1")
			m := NewRunManager(st, RunOptions{})
			r, err := m.Start(context.Background(), spec("r1", "c1", c.exec))
			if err != nil {
				t.Fatal(err)
			}
			waitRun(t, r)
			run, err := st.GetRun(context.Background(), "r1")
			if err != nil {
				t.Fatal(err)
			}
			if c.code == "" {
				if run.Status != store.RunTimeout || run.FinishReason != api.FinishTimeout {
					t.Fatalf("stored run %+v", run)
				}
				return
			}
			if run.Status != store.RunError || run.ErrorCode != c.code {
				t.Fatalf("stored run %+v", run)
			}
		})
	}
}

func TestRunReplayAfterRestart(t *testing.T) {
	leakCheck(t)
	path := filepath.Join(t.TempDir(), "aite.db")
	st, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	mkChat(t, st, "c1")
	m := NewRunManager(st, RunOptions{})
	s := newStepper()
	r, err := m.Start(context.Background(), spec("r1", "c1", s.execute))
	if err != nil {
		t.Fatal(err)
	}
	ch, _, err := subscribe(t, m, "r1", 0)
	if err != nil {
		t.Fatal(err)
	}
	s.send(t, `<b>&"é"`)
	s.send(t, "\n")
	close(s.ch)
	live := drain(t, ch)
	waitRun(t, r)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	m2 := NewRunManager(openSQLite(t, path), RunOptions{})
	for _, after := range []int64{0, 3, int64(len(live))} {
		ch, unsub, err := subscribe(t, m2, "r1", after)
		if err != nil {
			t.Fatal(err)
		}
		equal(t, frames(t, drain(t, ch)), frames(t, live[after:]))
		unsub()
	}
	if _, _, err := subscribe(t, m2, "nope", 0); !errors.Is(err, ErrRunNotFound) {
		t.Fatalf("unknown run: %v", err)
	}
}

// TestRecoverFinishesARunWhoseEndIsStored: a process that stopped after
// storing a run's terminal event but before finishing the run leaves a
// complete log; recovery finishes the run as that event says and adds no
// second terminal event.
func TestRecoverFinishesARunWhoseEndIsStored(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		mkChat(t, st, "c1")
		for _, id := range []string{"r1", "r2", "r3"} {
			if err := st.CreateRun(ctx, store.Run{ID: id, ChatID: "c1", StartedAt: time.Now()}); err != nil {
				t.Fatal(err)
			}
		}
		ends := map[string]api.Event{
			"r1": {Seq: 2, Type: api.TypeRunComplete, Timestamp: 5, Payload: api.RunComplete{RunID: "r1", FinishReason: api.FinishStop}},
			"r2": {Seq: 2, Type: api.TypeRunComplete, Timestamp: 5, Payload: api.RunComplete{RunID: "r2", FinishReason: api.FinishTimeout}},
			"r3": {Seq: 2, Type: api.TypeRunError, Timestamp: 5, Payload: api.RunError{RunID: "r3", Error: api.ErrorInfo{Code: api.CodeModelError}}},
		}
		for id, end := range ends {
			start := api.Event{Seq: 1, Type: api.TypeContentDelta, Timestamp: 4, Payload: api.ContentDelta{ContentID: id + "_c_1", Delta: "Done."}}
			if err := st.AppendEvents(ctx, id, storeEvent(id, start), storeEvent(id, end)); err != nil {
				t.Fatal(err)
			}
		}
		m := NewRunManager(st, RunOptions{})
		if err := m.RecoverInterrupted(ctx); err != nil {
			t.Fatal(err)
		}
		want := map[string][3]string{"r1": {string(store.RunCompleted), "stop", ""},
			"r2": {string(store.RunTimeout), "timeout", ""}, "r3": {string(store.RunError), "", api.CodeModelError}}
		for id, w := range want {
			run, err := st.GetRun(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if got := [3]string{string(run.Status), run.FinishReason, run.ErrorCode}; got != w {
				t.Errorf("%s finished as %v, want %v", id, got, w)
			}
			if last, _ := st.LastSeq(ctx, id); last != 2 {
				t.Errorf("%s: %d events, want the 2 stored", id, last)
			}
		}
		chat, err := st.GetChat(ctx, "c1")
		if err != nil || chat.LastRunContent != "Done." {
			t.Fatalf("chat after recovery: %+v, %v", chat, err)
		}
	})
}

func TestRecoverInterrupted(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		mkChat(t, st, "c1")
		if err := st.CreateRun(ctx, store.Run{ID: "r0", ChatID: "c1", StartedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
		e1 := api.Event{Seq: 1, Type: api.TypeRunStart, Timestamp: 5, Payload: api.RunStart{RunID: "r0", ChatID: "c1", AgentKey: "a"}}
		if err := st.AppendEvents(ctx, "r0", store.Event{Seq: 1, Type: e1.Type, Timestamp: 5, Body: marshalEvent(e1)}); err != nil {
			t.Fatal(err)
		}
		clock := func() time.Time { return time.UnixMilli(1770863186548) }
		m := NewRunManager(st, RunOptions{Clock: clock})
		if err := m.RecoverInterrupted(ctx); err != nil {
			t.Fatal(err)
		}
		run, err := st.GetRun(ctx, "r0")
		if err != nil || run.Status != store.RunError || run.ErrorCode != api.CodeRunAborted || run.EndedAt == nil {
			t.Fatalf("stored run %+v, %v", run, err)
		}
		want := `id:2` + "\nevent:message\n" + `data:{"seq":2,"type":"run.error","timestamp":1770863186548,"runId":"r0","error":{"code":"run_aborted","message":"the server stopped while the run was executing","retriable":true}}` + "\n\n"
		equal(t, storedFrames(t, st, "r0", 1), []string{want})
		if running, _ := st.RunningRuns(ctx); len(running) != 0 {
			t.Fatalf("still running: %+v", running)
		}
		if err := m.RecoverInterrupted(ctx); err != nil { // nothing left
			t.Fatal(err)
		}
	})
}

// A subscriber that reads nothing while the run emits thousands of events is
// not dropped (issue 14: it was, at 256 unsent events, and its stream ended
// without a terminal event): it reads on from the store, beyond the events
// kept in memory, then follows live, and the run never waits for it.
func TestRunSlowSubscriberCatchesUp(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store) {
		mkChat(t, st, "c1")
		m := NewRunManager(st, RunOptions{})
		const deltas = 5000
		release := make(chan struct{})
		r, err := m.Start(context.Background(), spec("r1", "c1", func(ctx context.Context, a *Assembler) error {
			for range deltas {
				a.content("x")
			}
			<-release
			a.content("live")
			return nil
		}))
		if err != nil {
			t.Fatal(err)
		}
		slow, err := m.Subscribe(context.Background(), "r1", 0)
		if err != nil {
			t.Fatal(err)
		}
		defer slow.Close()
		// Wait (without reading) until the run has stored everything so far.
		for {
			if last, _ := st.LastSeq(context.Background(), "r1"); last >= deltas+3 {
				break
			}
			<-slow.Ready()
		}
		var got []api.Event
		released := false
		for {
			evs, done, err := slow.Next(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, evs...)
			if done {
				break
			}
			if len(evs) == 0 {
				if len(got) == deltas+3 && !released {
					close(release) // caught up: the rest comes live
					released = true
				}
				<-slow.Ready()
			}
		}
		waitRun(t, r)
		// request.query run.start content.start 5001 deltas content.end run.complete
		if len(got) != deltas+6 {
			t.Fatalf("the slow subscriber got %d events", len(got))
		}
		checkSeqs(t, got, 0, api.TypeRunComplete)
		equal(t, frames(t, got), storedFrames(t, st, "r1", 0))
	})
}

func TestStoredEventForeignBody(t *testing.T) {
	e := StoredEvent(store.Event{Seq: 3, Type: api.TypeToolEnd, Timestamp: 9, Body: []byte(`{"type":"tool.end","toolId":"t1","seq":3,"timestamp":9}`)})
	b, err := Frame(e)
	if err != nil {
		t.Fatal(err)
	}
	if want := "id:3\nevent:message\ndata:{\"seq\":3,\"type\":\"tool.end\",\"timestamp\":9,\"toolId\":\"t1\"}\n\n"; string(b) != want {
		t.Fatalf("got %q", b)
	}
	e = StoredEvent(store.Event{Seq: 1, Type: "x", Timestamp: 2, Body: []byte(`{"seq":1,"type":"x","timestamp":2}`)})
	if e.Payload != nil {
		t.Fatalf("payload %v", e.Payload)
	}
}

// A Last-Event-ID beyond what the run has reached skips the live events up
// to it: no event is sent twice to a client that has it.
func TestSubscribeAfterAheadOfTheRun(t *testing.T) {
	leakCheck(t)
	st := memory.New()
	m := NewRunManager(st, RunOptions{})
	mkChat(t, st, "c1")
	release := make(chan struct{})
	r, err := m.Start(context.Background(), RunSpec{RunID: "r1", ChatID: "c1",
		Bootstrap: func(a *Assembler) {
			a.Bootstrap(api.RequestQuery{RequestID: "r1", ChatID: "c1", Role: "user", Message: "m"}, nil)
		},
		Execute: func(ctx context.Context, a *Assembler) error {
			<-release
			for _, d := range []string{"a", "b", "c"} {
				a.content(d)
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	ch, cancel, err := subscribe(t, m, "r1", 5) // the run is at seq 2 or 3
	if err != nil {
		t.Fatal(err)
	}
	defer cancel()
	close(release)
	var seqs []int64
	for e := range ch {
		seqs = append(seqs, e.Seq)
	}
	<-r.Done()
	// 1 request.query, 2 run.start, 3 content.start, 4-6 deltas, 7 content.end, 8 run.complete
	if !slices.Equal(seqs, []int64{6, 7, 8}) {
		t.Errorf("seqs after 5: %v", seqs)
	}
}

// flakyStore fails its first event writes: fail of them refused, then lost
// answers (stored, yet an error).
type flakyStore struct {
	*memory.Store
	fail, lost atomic.Int32
}

func (f *flakyStore) AppendEventLogs(ctx context.Context, events ...store.Event) error {
	if f.fail.Add(-1) >= 0 {
		return errors.New("disk unavailable")
	}
	if f.lost.Add(-1) >= 0 {
		if err := f.Store.AppendEventLogs(ctx, events...); err != nil {
			return err
		}
		return errors.New("the answer got lost")
	}
	return f.Store.AppendEventLogs(ctx, events...)
}

func (f *flakyStore) AppendEvents(ctx context.Context, runID string, events ...store.Event) error {
	if f.fail.Load() >= 0 {
		return errors.New("disk unavailable")
	}
	return f.Store.AppendEvents(ctx, runID, events...)
}

// Events that cannot be stored are not sent; they are retried until the
// store takes them, a commit whose answer was lost is not stored twice, and
// the run ends normally with every event sent once.
func TestRunEventsWaitForTheStore(t *testing.T) {
	leakCheck(t)
	st := &flakyStore{Store: memory.New()}
	mkChat(t, st, "c1")
	st.fail.Store(3)
	st.lost.Store(2)
	s, r, ch := stepped(t, NewRunManager(st, RunOptions{}))
	var got []api.Event
	for _, d := range []string{"a", "b", "c"} {
		s.send(t, d)
	}
	close(s.ch)
	for e := range ch {
		if last, _ := st.LastSeq(context.Background(), "r1"); last < e.Seq {
			t.Fatalf("seq %d sent before it was stored (last stored %d)", e.Seq, last)
		}
		got = append(got, e)
	}
	waitRun(t, r)
	checkSeqs(t, got, 0, api.TypeRunComplete)
	equal(t, frames(t, got), storedFrames(t, st, "r1", 0))
}

// Issue 14: an edit is saved before its document.edit event is emitted, so
// a crash in between left saved edits without their event in the chat
// history. Recovery adds the missing events (after the stored log, before
// run_aborted); an edit whose event was stored, and another run's edit,
// are left alone.
func TestRecoverAddsLostDocumentEdits(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		now := time.UnixMilli(1770863186000)
		_, err := st.CreateDocument(ctx, store.Document{ID: "d1", Name: "book", Markdown: "# A\n", ItemCount: 1, CreatedAt: now, UpdatedAt: now})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.CreateChat(ctx, store.Chat{ID: "c1", Name: "c", AgentKey: "a", DocumentID: "d1", CreatedAt: now, UpdatedAt: now}); err != nil {
			t.Fatal(err)
		}
		mkChat(t, st, "c2")
		for _, r := range []store.Run{{ID: "r0", ChatID: "c1"}, {ID: "r1", ChatID: "c2"}} {
			r.StartedAt, r.Query = now, []byte(`{"message":"edit"}`)
			if err := st.CreateRun(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		edit := func(rev int, run, tool string) api.DocumentEdit {
			_, err := st.ApplyDocumentEdit(ctx, "d1", store.DocumentContent{Markdown: fmt.Sprintf("# A%d\n", rev), ItemCount: 1},
				store.DocumentEdit{DocumentID: "d1", Revision: rev, RunID: run, ToolID: tool, Op: "replace", Pointer: "1:1",
					NewPointer: "1:1", Before: "# A", After: fmt.Sprintf("# A%d", rev), At: now.Add(time.Duration(rev) * time.Second)})
			if err != nil {
				t.Fatal(err)
			}
			return api.DocumentEdit{DocumentID: "d1", RunID: run, ToolID: tool, Revision: rev, Op: "replace", Pointer: "1:1",
				NewPointer: "1:1", Before: "# A", After: fmt.Sprintf("# A%d", rev)}
		}
		shown := edit(1, "r0", "call_1")
		edit(2, "r1", "call_x") // another run's (another chat on the same book)
		lost := edit(3, "r0", "call_2")
		logged := []api.Event{
			{Seq: 1, Type: api.TypeRunStart, Timestamp: now.UnixMilli(), Payload: api.RunStart{RunID: "r0", ChatID: "c1", AgentKey: "a"}},
			{Seq: 2, Type: api.TypeDocumentEdit, Timestamp: now.UnixMilli() + 1000, Payload: shown},
		}
		for _, e := range logged {
			if err := st.AppendEvents(ctx, "r0", storeEvent("r0", e)); err != nil {
				t.Fatal(err)
			}
		}
		m := NewRunManager(st, RunOptions{Clock: func() time.Time { return now.Add(time.Minute) }})
		if err := m.RecoverInterrupted(ctx); err != nil {
			t.Fatal(err)
		}
		evs, err := st.ListEvents(ctx, "r0", 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) != 2 || evs[0].Type != api.TypeDocumentEdit || evs[1].Type != api.TypeRunError {
			t.Fatalf("after recovery: %v", evs)
		}
		want := storeEvent("r0", api.Event{Seq: 3, Type: api.TypeDocumentEdit, Timestamp: now.UnixMilli() + 3000, Payload: lost})
		if string(evs[0].Body) != string(want.Body) {
			t.Errorf("recovered edit event\n%s\nwant\n%s", evs[0].Body, want.Body)
		}
		if evs[1].Seq != 4 {
			t.Errorf("run_aborted seq %d", evs[1].Seq)
		}
		if other, _ := st.ListEvents(ctx, "r1", 0); len(other) != 1 || other[0].Type != api.TypeRunError {
			t.Errorf("the other run got %v", other)
		}
	})
}
