package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aitexteditor/aite/internal/api"
	"github.com/aitexteditor/aite/internal/store"
)

// The errors of RunManager.
var (
	// ErrRunNotFound means no run has the id, neither running nor stored.
	ErrRunNotFound = errors.New("server: run not found")
	// ErrRunNotRunning means the run exists but has already ended (Cancel).
	ErrRunNotRunning = errors.New("server: run is not running")
	// ErrChatBusy means the chat already has a running run (§ 3.6: at most one).
	ErrChatBusy = errors.New("server: the chat already has a running run")
	// ErrManagerClosed means Close was called: no new run starts.
	ErrManagerClosed = errors.New("server: run manager closed")
)

// Defaults of RunOptions.
const (
	// DefaultFlushInterval is storage.eventFlushMs's default (§ 3.6).
	DefaultFlushInterval = 200 * time.Millisecond
	// DefaultSubscriberBuffer is the number of live events a subscriber may
	// fall behind before it is dropped.
	DefaultSubscriberBuffer = 256
)

// maxEventBatch bounds the events of one AppendEvents call.
const maxEventBatch = 256

// finalFlushAttempts is how often the flush before the terminal event is
// tried before the run is finished anyway.
const finalFlushAttempts = 5

// RunOptions configures a RunManager; the zero value gives the defaults.
type RunOptions struct {
	// FlushInterval is the longest time an event stays in memory only
	// (storage.eventFlushMs; default 200 ms).
	FlushInterval time.Duration
	// Clock stamps events and run times (default time.Now).
	Clock func() time.Time
	// Logger receives storage failures and dropped subscribers (default:
	// discarded).
	Logger *slog.Logger
	// SubscriberBuffer is how many live events a subscriber may have unread
	// before it is dropped (default 256); the replay at subscription comes
	// on top of it.
	SubscriberBuffer int
}

// RunSpec describes a run to start.
type RunSpec struct {
	RunID     string
	ChatID    string
	RequestID string
	AgentKey  string          // the resolved agent: run.start's agentKey
	Query     json.RawMessage // the request, stored with the run (optional)
	// Bootstrap emits the bootstrap events (a.Bootstrap, plan.update…); it is
	// called by Start, before Start returns. Optional.
	Bootstrap func(a *Assembler)
	// Execute runs the agent, typically feeding agent.Config.Run's events to
	// a.Agent until a.Ended(). It runs in the run's own goroutine on the run's
	// own context (see RunManager.Start). Returning without ending the
	// assembler ends the run: nil with run.complete "stop", an error with
	// run.error (internal_error, or the Info of a *RunFailure).
	Execute func(ctx context.Context, a *Assembler) error
	// Finished is called by the run's goroutine once the run has ended, after
	// its whole log is stored and the run is finished in the store, and
	// before the terminal event reaches any subscriber; log is every event
	// of the run, the terminal one last. The server records the end of the
	// run on the chat here (§ 5.1). ctx has no deadline. Optional.
	Finished func(ctx context.Context, log []api.Event)
}

// RunFailure is an Execute error that names the run.error to emit.
type RunFailure struct {
	Info api.ErrorInfo
}

// Error implements error.
func (f *RunFailure) Error() string { return f.Info.Code + ": " + f.Info.Message }

// RunInfo describes a running run (List).
type RunInfo struct {
	RunID     string
	ChatID    string
	AgentKey  string
	StartedAt time.Time
}

// RunManager executes runs detached from HTTP requests (§ 3.6): each run has
// its own goroutine and context, keeps its events in memory while it runs,
// persists them in seq order at most FlushInterval apart, and makes the whole
// log durable (and the run finished in the store) before its terminal event
// reaches any subscriber. Subscribers replay and then follow a run without
// gaps or duplicates. One RunManager serves the whole server; it is safe for
// concurrent use.
type RunManager struct {
	st   store.Store
	opts RunOptions

	mu     sync.Mutex
	runs   map[string]*Run   // running runs by id
	chats  map[string]string // chat id → running run id
	closed bool
}

// NewRunManager returns the run manager over st.
func NewRunManager(st store.Store, opts RunOptions) *RunManager {
	if opts.FlushInterval <= 0 {
		opts.FlushInterval = DefaultFlushInterval
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.SubscriberBuffer <= 0 {
		opts.SubscriberBuffer = DefaultSubscriberBuffer
	}
	return &RunManager{st: st, opts: opts, runs: map[string]*Run{}, chats: map[string]string{}}
}

// Run is one run started by a RunManager.
type Run struct {
	id, chatID, agentKey string
	started              time.Time
	m                    *RunManager
	cancel               context.CancelFunc
	canceled             atomic.Bool
	done                 chan struct{}

	mu       sync.Mutex
	log      []logEntry // every event so far, the terminal one last once published
	terminal *logEntry  // the terminal event, held back until the log is durable
	subs     map[*subscriber]struct{}
	finished bool // the terminal event was published

	persisted int64 // last stored seq; used by the flusher, then by the runner
}

// logEntry is one event and its JSON exactly as sent.
type logEntry struct {
	ev   api.Event
	body []byte
}

// subscriber is one follower of a running run.
type subscriber struct {
	ch     chan api.Event
	after  int64 // Last-Event-ID: events up to this seq are not sent
	closed bool
}

// ID returns the run id.
func (r *Run) ID() string { return r.id }

// ChatID returns the run's chat id.
func (r *Run) ChatID() string { return r.chatID }

// Done is closed once the run has ended: its log is stored, the run is
// finished in the store and the terminal event was published.
func (r *Run) Done() <-chan struct{} { return r.done }

// Start stores the run (status running), creates its assembler, calls
// spec.Bootstrap and runs spec.Execute in a new goroutine. The run's context
// keeps ctx's values but not its cancellation, so the HTTP request that
// started the run may go away (§ 3.6); only Cancel and Close stop it. Start
// fails with ErrChatBusy when the chat has a running run, ErrManagerClosed
// after Close, and the store's error when the run cannot be stored.
func (m *RunManager) Start(ctx context.Context, spec RunSpec) (*Run, error) {
	if spec.RunID == "" || spec.ChatID == "" || spec.Execute == nil {
		return nil, fmt.Errorf("server: start run: run id, chat id and Execute are required")
	}
	m.mu.Lock()
	switch {
	case m.closed:
		m.mu.Unlock()
		return nil, ErrManagerClosed
	case m.chats[spec.ChatID] != "":
		m.mu.Unlock()
		return nil, ErrChatBusy
	case m.runs[spec.RunID] != nil:
		m.mu.Unlock()
		return nil, fmt.Errorf("server: run %q: %w", spec.RunID, store.ErrExists)
	}
	m.chats[spec.ChatID] = spec.RunID // reserved while the run is stored
	m.mu.Unlock()

	now := m.opts.Clock()
	err := m.st.CreateRun(ctx, store.Run{ID: spec.RunID, ChatID: spec.ChatID, RequestID: spec.RequestID,
		AgentKey: spec.AgentKey, Query: spec.Query, Status: store.RunRunning, StartedAt: now})
	if err != nil {
		m.mu.Lock()
		delete(m.chats, spec.ChatID)
		m.mu.Unlock()
		return nil, fmt.Errorf("server: start run %q: %w", spec.RunID, err)
	}

	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r := &Run{id: spec.RunID, chatID: spec.ChatID, agentKey: spec.AgentKey, started: now, m: m,
		cancel: cancel, done: make(chan struct{}), subs: map[*subscriber]struct{}{}}
	a := NewAssembler(spec.RunID, spec.ChatID, m.opts.Clock, r.emit)
	a.AgentKey = spec.AgentKey

	m.mu.Lock()
	m.runs[r.id] = r
	closed := m.closed
	m.mu.Unlock()
	if closed {
		cancel() // Close came while the run was being stored: it ends at once
	}
	if spec.Bootstrap != nil {
		spec.Bootstrap(a)
	}
	go r.execute(runCtx, context.WithoutCancel(ctx), a, spec)
	return r, nil
}

// execute runs Execute, ends the assembler if needed, makes the log durable,
// finishes the run in the store, calls Finished and then publishes the
// terminal event.
func (r *Run) execute(ctx, storeCtx context.Context, a *Assembler, spec RunSpec) {
	defer r.cancel()
	stop, flusherDone := make(chan struct{}), make(chan struct{})
	go r.flushLoop(storeCtx, stop, flusherDone)

	err := r.safeExecute(ctx, a, spec.Execute)
	if !a.Ended() {
		var f *RunFailure
		switch {
		case err == nil:
			a.Complete(api.FinishStop)
		case errors.As(err, &f):
			a.Fail(f.Info)
		default:
			a.Fail(api.ErrorInfo{Code: api.CodeInternalError, Message: err.Error()})
		}
	} else if err != nil {
		r.m.opts.Logger.Warn("run: Execute failed after the run ended", "run", r.id, "err", err)
	}
	close(stop)
	<-flusherDone

	r.mu.Lock()
	term := r.terminal
	r.mu.Unlock()
	if term == nil { // cannot happen: the assembler ended
		e := api.Event{Seq: int64(len(r.log)) + 1, Type: api.TypeRunError, Timestamp: r.m.opts.Clock().UnixMilli(),
			Payload: api.RunError{RunID: r.id, Error: api.ErrorInfo{Code: api.CodeInternalError, Message: "the run ended without a terminal event"}}}
		term = &logEntry{ev: e, body: marshalEvent(e)}
		r.mu.Lock()
		r.terminal = term
		r.mu.Unlock()
	}
	for i := range finalFlushAttempts {
		if err = r.flush(storeCtx, true); err == nil {
			break
		}
		time.Sleep(time.Duration(i+1) * 20 * time.Millisecond)
	}
	if err != nil {
		r.m.opts.Logger.Error("run: the event log could not be stored", "run", r.id, "err", err)
	}
	status, reason, code := terminalStatus(term.ev)
	if err := r.m.st.FinishRun(storeCtx, r.id, status, reason, code, r.m.opts.Clock()); err != nil {
		r.m.opts.Logger.Error("run: finishing the stored run failed", "run", r.id, "err", err)
	}
	if spec.Finished != nil {
		r.callFinished(storeCtx, spec.Finished)
	}
	r.publishTerminal()
}

// callFinished hands the whole log, the held-back terminal event last, to
// the Finished hook; a panic in the hook is logged, never fatal.
func (r *Run) callFinished(ctx context.Context, fin func(context.Context, []api.Event)) {
	defer func() {
		if p := recover(); p != nil {
			r.m.opts.Logger.Error("run: Finished panicked", "run", r.id, "panic", p)
		}
	}()
	r.mu.Lock()
	log := make([]api.Event, 0, len(r.log)+1)
	for _, e := range r.log {
		log = append(log, e.ev)
	}
	if r.terminal != nil {
		log = append(log, r.terminal.ev)
	}
	r.mu.Unlock()
	fin(ctx, log)
}

// safeExecute calls exec and turns a panic into an error.
func (r *Run) safeExecute(ctx context.Context, a *Assembler, exec func(context.Context, *Assembler) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			r.m.opts.Logger.Error("run: Execute panicked", "run", r.id, "panic", p)
			err = &RunFailure{Info: api.ErrorInfo{Code: api.CodeInternalError, Message: fmt.Sprintf("panic: %v", p)}}
		}
	}()
	return exec(ctx, a)
}

// terminalStatus returns the stored status, finish reason and error code of
// a terminal event.
func terminalStatus(e api.Event) (store.RunStatus, string, string) {
	switch p := e.Payload.(type) {
	case api.RunComplete:
		if p.FinishReason == api.FinishTimeout {
			return store.RunTimeout, p.FinishReason, ""
		}
		return store.RunCompleted, p.FinishReason, ""
	case api.RunError:
		return store.RunError, "", p.Error.Code
	}
	return store.RunError, "", api.CodeInternalError
}

// emit is the assembler's emit: it appends the event to the log and hands it
// to every subscriber, except the terminal event, which is held back until
// the log is durable. After Cancel the terminal event becomes run.error
// run_aborted.
func (r *Run) emit(e api.Event) {
	if Terminal(e.Type) && r.canceled.Load() {
		e.Type = api.TypeRunError
		e.Payload = api.RunError{RunID: r.id, Error: canceledInfo}
	}
	entry := logEntry{ev: e, body: marshalEvent(e)}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.terminal != nil || r.finished {
		return
	}
	if Terminal(e.Type) {
		r.terminal = &entry
		return
	}
	r.log = append(r.log, entry)
	r.broadcast(e)
}

// canceledInfo is the error of a canceled run.
var canceledInfo = api.ErrorInfo{Code: api.CodeRunAborted, Message: "the run was canceled", Retriable: true}

// marshalEvent returns the event's JSON as sent; an event that cannot be
// encoded (a bug) keeps its seq, type and timestamp.
func marshalEvent(e api.Event) []byte {
	b, err := e.MarshalJSON()
	if err != nil {
		b, _ = api.Event{Seq: e.Seq, Type: e.Type, Timestamp: e.Timestamp}.MarshalJSON()
	}
	return b
}

// broadcast hands e to every subscriber without blocking; a subscriber whose
// buffer is full is dropped (its channel closed). Call with r.mu held.
func (r *Run) broadcast(e api.Event) {
	for s := range r.subs {
		if e.Seq <= s.after {
			continue // the client named a later Last-Event-ID than the run had reached
		}
		select {
		case s.ch <- e:
		default:
			r.m.opts.Logger.Info("run: slow subscriber dropped", "run", r.id, "seq", e.Seq)
			r.drop(s)
		}
	}
}

// drop closes a subscriber's channel and forgets it. Call with r.mu held.
func (r *Run) drop(s *subscriber) {
	if !s.closed {
		s.closed = true
		close(s.ch)
	}
	delete(r.subs, s)
}

// publishTerminal sends the terminal event, closes every subscriber and
// retires the run from the manager, in one step for Subscribe.
func (r *Run) publishTerminal() {
	m := r.m
	m.mu.Lock()
	r.mu.Lock()
	t := *r.terminal
	r.log = append(r.log, t)
	r.broadcast(t.ev)
	for s := range r.subs {
		r.drop(s)
	}
	r.finished = true
	r.mu.Unlock()
	delete(m.runs, r.id)
	if m.chats[r.chatID] == r.id {
		delete(m.chats, r.chatID)
	}
	m.mu.Unlock()
	close(r.done)
}

// flushLoop stores the new events every FlushInterval until stop closes.
func (r *Run) flushLoop(ctx context.Context, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(r.m.opts.FlushInterval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if err := r.flush(ctx, false); err != nil {
				r.m.opts.Logger.Warn("run: storing events failed; retrying", "run", r.id, "err", err)
			}
		}
	}
}

// flush stores the events above the last stored seq, in batches, in seq
// order; with final it includes the held-back terminal event. After a failed
// batch it re-reads the stored last seq, so a batch is never stored twice.
// Only one goroutine flushes at a time (the flusher, then the runner).
func (r *Run) flush(ctx context.Context, final bool) error {
	r.mu.Lock()
	var pending []store.Event
	add := func(e logEntry) {
		if e.ev.Seq > r.persisted {
			pending = append(pending, store.Event{RunID: r.id, Seq: e.ev.Seq, Type: e.ev.Type, Timestamp: e.ev.Timestamp, Body: e.body})
		}
	}
	for _, e := range r.log {
		add(e)
	}
	if final && r.terminal != nil {
		add(*r.terminal)
	}
	r.mu.Unlock()
	for batch := range slices.Chunk(pending, maxEventBatch) {
		if err := r.m.st.AppendEvents(ctx, r.id, batch...); err != nil {
			if last, lerr := r.m.st.LastSeq(ctx, r.id); lerr == nil && last > r.persisted {
				r.persisted = last
			}
			return err
		}
		r.persisted = batch[len(batch)-1].Seq
	}
	return nil
}

// Subscribe follows run runID from seq afterSeq (Last-Event-ID; 0 for the
// whole log): the channel first gets every event with a greater seq exactly
// as first sent, then the live events, without gaps or duplicates, and is
// closed after the terminal event. For a run that is not running here the
// stored events are replayed and the channel closed (a run still marked
// running in the store, i.e. not yet recovered, then ends without terminal
// event). Unknown runs give ErrRunNotFound.
//
// A subscriber that lets more than RunOptions.SubscriberBuffer live events
// pile up is dropped: its channel is closed without a terminal event, and it
// may re-subscribe with the seq of the last event it received. The run never
// waits for a subscriber. Call the returned function to unsubscribe (it
// closes the channel; calling it again or after the end does nothing).
func (m *RunManager) Subscribe(runID string, afterSeq int64) (<-chan api.Event, func(), error) {
	m.mu.Lock()
	r := m.runs[runID]
	if r != nil {
		r.mu.Lock()
		var replay []api.Event
		for _, e := range r.log {
			if e.ev.Seq > afterSeq {
				replay = append(replay, e.ev)
			}
		}
		s := &subscriber{ch: make(chan api.Event, len(replay)+m.opts.SubscriberBuffer), after: afterSeq}
		for _, e := range replay {
			s.ch <- e
		}
		r.subs[s] = struct{}{}
		r.mu.Unlock()
		m.mu.Unlock()
		return s.ch, func() {
			r.mu.Lock()
			r.drop(s)
			r.mu.Unlock()
		}, nil
	}
	m.mu.Unlock()

	stored, err := m.st.ListEvents(context.Background(), runID, afterSeq)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, fmt.Errorf("%w: %q", ErrRunNotFound, runID)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("server: replay run %q: %w", runID, err)
	}
	ch := make(chan api.Event, len(stored))
	for _, e := range stored {
		ch <- StoredEvent(e)
	}
	close(ch)
	return ch, func() {}, nil
}

// StoredEvent turns a stored event back into the event that was sent: its
// Payload is the stored JSON without seq, type and timestamp, so the event
// encodes to the same bytes (Frame) as when it was first sent.
func StoredEvent(e store.Event) api.Event {
	out := api.Event{Seq: e.Seq, Type: e.Type, Timestamp: e.Timestamp}
	head, _ := out.MarshalJSON() // {"seq":…,"type":…,"timestamp":…}
	head = head[:len(head)-1]
	body := bytes.TrimSpace(e.Body)
	if rest, ok := bytes.CutPrefix(body, head); ok {
		if len(rest) > 1 && rest[0] == ',' {
			out.Payload = json.RawMessage("{" + string(rest[1:]))
		}
		return out
	}
	// Not written by this package: drop the common keys, keep the rest.
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) == nil {
		for _, k := range []string{"seq", "type", "timestamp"} {
			delete(fields, k)
		}
		if len(fields) > 0 {
			b, _ := json.Marshal(fields)
			out.Payload = json.RawMessage(b)
		}
	}
	return out
}

// Cancel stops a running run: its Execute sees its context done and the run
// ends with run.error {code:"run_aborted", retriable:true} (PLATFORM_API has
// no cancel code; run.cancel is reserved). It does not wait (see Run.Done).
// It returns ErrRunNotRunning for an ended run, ErrRunNotFound for an
// unknown one.
func (m *RunManager) Cancel(runID string) error {
	m.mu.Lock()
	r := m.runs[runID]
	m.mu.Unlock()
	if r == nil {
		if _, err := m.st.GetRun(context.Background(), runID); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return fmt.Errorf("%w: %q", ErrRunNotFound, runID)
			}
			return err
		}
		return fmt.Errorf("%w: %q", ErrRunNotRunning, runID)
	}
	r.canceled.Store(true)
	r.cancel()
	return nil
}

// Active returns the running run of a chat.
func (m *RunManager) Active(chatID string) (runID string, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	id := m.chats[chatID]
	if m.runs[id] == nil {
		return "", false // reserved by a Start still storing the run
	}
	return id, true
}

// List returns the running runs in run id order.
func (m *RunManager) List() []RunInfo {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]RunInfo, 0, len(m.runs))
	for _, r := range m.runs {
		out = append(out, RunInfo{RunID: r.id, ChatID: r.chatID, AgentKey: r.agentKey, StartedAt: r.started})
	}
	slices.SortFunc(out, func(a, b RunInfo) int { return strings.Compare(a.RunID, b.RunID) })
	return out
}

// Close stops accepting runs, cancels the running ones (as Cancel does) and
// waits until they have ended or ctx is done.
func (m *RunManager) Close(ctx context.Context) error {
	m.mu.Lock()
	m.closed = true
	runs := make([]*Run, 0, len(m.runs))
	for _, r := range m.runs {
		r.canceled.Store(true)
		r.cancel()
		runs = append(runs, r)
	}
	m.mu.Unlock()
	for _, r := range runs {
		select {
		case <-r.done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// RecoverInterrupted closes the runs a previous process left running
// (§ 3.6): each gets a stored run.error {code:"run_aborted",
// retriable:true} with the seq after its last stored one and is finished
// with status error and error code run_aborted. Runs running in this manager
// are left alone. Call it at startup, before serving; it goes on after a
// failing run and returns every error.
func (m *RunManager) RecoverInterrupted(ctx context.Context) error {
	runs, err := m.st.RunningRuns(ctx)
	if err != nil {
		return fmt.Errorf("server: recover interrupted runs: %w", err)
	}
	var errs []error
	for _, run := range runs {
		m.mu.Lock()
		live := m.runs[run.ID] != nil || m.chats[run.ChatID] == run.ID
		m.mu.Unlock()
		if live {
			continue
		}
		if err := m.abort(ctx, run.ID); err != nil {
			errs = append(errs, fmt.Errorf("server: recover run %q: %w", run.ID, err))
		}
	}
	return errors.Join(errs...)
}

// abort stores run.error run_aborted after the run's log and finishes it.
func (m *RunManager) abort(ctx context.Context, runID string) error {
	last, err := m.st.LastSeq(ctx, runID)
	if err != nil {
		return err
	}
	now := m.opts.Clock()
	e := api.Event{Seq: last + 1, Type: api.TypeRunError, Timestamp: now.UnixMilli(), Payload: api.RunError{RunID: runID,
		Error: api.ErrorInfo{Code: api.CodeRunAborted, Message: "the server stopped while the run was executing", Retriable: true}}}
	if err := m.st.AppendEvents(ctx, runID, store.Event{RunID: runID, Seq: e.Seq, Type: e.Type, Timestamp: e.Timestamp, Body: marshalEvent(e)}); err != nil {
		return err
	}
	if err := m.st.FinishRun(ctx, runID, store.RunError, "", api.CodeRunAborted, now); err != nil {
		return err
	}
	return m.recordAborted(ctx, runID, now)
}

// recordAborted stores the end of an aborted run on its chat, as the end of
// every run is (§ 5.1): its content so far, else the user message.
func (m *RunManager) recordAborted(ctx context.Context, runID string, now time.Time) error {
	run, err := m.st.GetRun(ctx, runID)
	if err != nil {
		return err
	}
	stored, err := m.st.ListEvents(ctx, runID, 0)
	if err != nil {
		return err
	}
	log := make([]api.Event, len(stored))
	for i, e := range stored {
		log[i] = StoredEvent(e)
	}
	content := contentText(log)
	if content == "" {
		var q struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(run.Query, &q) // an unreadable query leaves the content empty
		content = q.Message
	}
	return m.st.UpdateChatAfterRun(ctx, run.ChatID, runID, content, now)
}
