package server

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/aitexteditor/aite/internal/agent"
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
			a.Agent(e)
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
		m := NewRunManager(st, RunOptions{FlushInterval: time.Millisecond})
		s := newStepper()
		r, err := m.Start(context.Background(), spec("r1", "c1", s.execute))
		if err != nil {
			t.Fatal(err)
		}
		ch, unsub, err := m.Subscribe("r1", 0)
		if err != nil {
			t.Fatal(err)
		}
		defer unsub()
		for _, d := range []string{"a", "b", "c", "d"} {
			s.send(t, d)
		}
		time.Sleep(10 * time.Millisecond) // let the flusher store a batch mid-run
		s.send(t, "e")
		close(s.ch)
		var got []api.Event
		for {
			e, ok := next(t, ch)
			if !ok {
				t.Fatal("closed before the terminal event")
			}
			got = append(got, e)
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
		m := NewRunManager(st, RunOptions{FlushInterval: 2 * time.Millisecond})
		s := newStepper()
		r, err := m.Start(context.Background(), spec("r1", "c1", s.execute))
		if err != nil {
			t.Fatal(err)
		}
		first, unsub1, err := m.Subscribe("r1", 0)
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
		second, unsub2, err := m.Subscribe("r1", 4)
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
		cfg := agent.Config{Provider: llmtest.NewScripted(llmtest.Chunks("Hello ", "there.")), Model: "m", NewID: AgentIDs("r1")}
		started := make(chan struct{})
		exec := func(ctx context.Context, a *Assembler) error {
			<-started // the request context is already canceled
			for e := range cfg.Run(ctx, nil, "hi") {
				a.Agent(e)
				if a.Ended() {
					break
				}
			}
			return nil
		}
		ctx, cancel := context.WithCancel(context.Background())
		r, err := m.Start(ctx, spec("r1", "c1", exec))
		if err != nil {
			t.Fatal(err)
		}
		cancel()
		close(started)
		waitRun(t, r)
		ch, _, err := m.Subscribe("r1", 0)
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
		if id, ok := m.Active("c1"); !ok || id != "r1" {
			t.Fatalf("Active(c1) = %q, %v", id, ok)
		}
		if l := m.List(); len(l) != 2 || l[0].RunID != "r1" || l[1].RunID != "r2" || l[0].ChatID != "c1" || l[0].AgentKey != "writer" {
			t.Fatalf("List = %+v", l)
		}
		ch, unsub, err := m.Subscribe("r1", 0)
		if err != nil {
			t.Fatal(err)
		}
		defer unsub()
		s1.send(t, "partial")
		if err := m.Cancel("r1"); err != nil {
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
		if _, ok := m.Active("c1"); ok {
			t.Fatal("c1 still active")
		}
		if l := m.List(); len(l) != 1 || l[0].RunID != "r2" {
			t.Fatalf("List = %+v", l)
		}
		if err := m.Cancel("r1"); !errors.Is(err, ErrRunNotRunning) {
			t.Fatalf("Cancel of an ended run: %v", err)
		}
		if err := m.Cancel("nope"); !errors.Is(err, ErrRunNotFound) {
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
	ch, _, err := m.Subscribe("r1", 0)
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
		ch, unsub, err := m2.Subscribe("r1", after)
		if err != nil {
			t.Fatal(err)
		}
		equal(t, frames(t, drain(t, ch)), frames(t, live[after:]))
		unsub()
	}
	if _, _, err := m2.Subscribe("nope", 0); !errors.Is(err, ErrRunNotFound) {
		t.Fatalf("unknown run: %v", err)
	}
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

func TestRunSlowSubscriberDropped(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store) {
		mkChat(t, st, "c1")
		m := NewRunManager(st, RunOptions{SubscriberBuffer: 3})
		s := newStepper()
		r, err := m.Start(context.Background(), spec("r1", "c1", s.execute))
		if err != nil {
			t.Fatal(err)
		}
		slow, unsubSlow, err := m.Subscribe("r1", 0) // 2 replayed + 3 live fit
		if err != nil {
			t.Fatal(err)
		}
		defer unsubSlow()
		fast, unsubFast, err := m.Subscribe("r1", 0)
		if err != nil {
			t.Fatal(err)
		}
		defer unsubFast()
		var fastGot []api.Event
		for range 2 { // bootstrap
			e, _ := next(t, fast)
			fastGot = append(fastGot, e)
		}
		for i := range 20 {
			s.send(t, "x")
			n := 1
			if i == 0 {
				n = 2 // content.start comes with the first delta
			}
			for range n {
				e, _ := next(t, fast)
				fastGot = append(fastGot, e)
			}
		}
		close(s.ch)
		waitRun(t, r) // never blocked by slow
		fastGot = append(fastGot, drain(t, fast)...)
		checkSeqs(t, fastGot, 0, api.TypeRunComplete)
		slowGot := drain(t, slow)
		if len(slowGot) != 5 {
			t.Fatalf("the slow subscriber got %d events", len(slowGot))
		}
		// It re-attaches from where it stopped and gets the rest from the store.
		rest, _, err := m.Subscribe("r1", slowGot[4].Seq)
		if err != nil {
			t.Fatal(err)
		}
		equal(t, frames(t, append(slowGot, drain(t, rest)...)), frames(t, fastGot))
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
	m := NewRunManager(st, RunOptions{FlushInterval: time.Millisecond})
	mkChat(t, st, "c1")
	release := make(chan struct{})
	r, err := m.Start(context.Background(), RunSpec{RunID: "r1", ChatID: "c1",
		Bootstrap: func(a *Assembler) {
			a.Bootstrap(api.RequestQuery{RequestID: "r1", ChatID: "c1", Role: "user", Message: "m"}, nil)
		},
		Execute: func(ctx context.Context, a *Assembler) error {
			<-release
			for _, d := range []string{"a", "b", "c"} {
				a.Content(d)
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	ch, cancel, err := m.Subscribe("r1", 5) // the run is at seq 2
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
