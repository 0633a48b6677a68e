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
	// ErrChatBusy means the chat already has a running run (§ 3.6: at most
	// one); Start returns it as a *BusyError.
	ErrChatBusy = errors.New("server: the chat already has a running run")
	// ErrManagerClosed means Close was called: no new run starts.
	ErrManagerClosed = errors.New("server: run manager closed")
)

// BusyError is Start's error for a chat that already has a running run, on
// this node or another; it matches ErrChatBusy.
type BusyError struct {
	RunID string // the running run
}

// Error implements error.
func (e *BusyError) Error() string { return ErrChatBusy.Error() + ": " + e.RunID }

// Is makes the error match ErrChatBusy.
func (e *BusyError) Is(target error) bool { return target == ErrChatBusy }

// tailSize is how many of its latest stored events a run keeps in memory
// for its live subscribers (at least; up to twice as many between trims);
// one that falls further behind reads the store.
const tailSize = 1024

// trimTail keeps the latest tailSize events of tail once it holds twice
// as many, so that keeping the tail costs a constant per event.
func trimTail(tail []logEntry) []logEntry {
	if len(tail) <= 2*tailSize {
		return tail
	}
	return slices.Clone(tail[len(tail)-tailSize:])
}

// RunOptions configures a RunManager; the zero value gives the defaults.
type RunOptions struct {
	// Clock stamps events and run times (default time.Now).
	Clock func() time.Time
	// Logger receives storage failures (default: discarded).
	Logger *slog.Logger
	// Lease is, on a store several nodes share (store.Leases and
	// store.Feed), how long this node's runs stay its own after it stopped
	// renewing its lease (default DefaultLease); other stores ignore it.
	Lease time.Duration
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
	// Execute runs the agent, typically feeding the events of
	// agent.Runner.Run to a.Run until the run or the assembler ends. It runs in the run's own goroutine on the run's
	// own context (see RunManager.Start). Returning without ending the
	// assembler ends the run: nil with run.complete "stop", an error with
	// run.error (internal_error, or the Info of a *RunFailure).
	Execute func(ctx context.Context, a *Assembler) error
	// Finished is called by the run's goroutine once the run has ended, after
	// its whole log is stored and the run is finished in the store, and
	// before the terminal event reaches any subscriber; content is the run's
	// content text (its content deltas joined). The server records the end
	// of the run on the chat here (§ 5.1). ctx has no deadline. Optional.
	Finished func(ctx context.Context, content string)
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
// its own goroutine and context. Every event of a run is stored before any
// subscriber gets it (durable before sent; the committer group-commits the
// events of all runs), so a client never sees an event a crash could lose,
// and the seq after the last stored one, which run_aborted takes after a
// crash, was never sent. The terminal event is sent once the run is also
// finished in the store and its chat updated. Subscribers read on from
// where they are and follow live without gaps or duplicates. One
// RunManager serves the whole server; it is safe for concurrent use.
//
// On a store several server processes share (store/postgres) the manager
// is one node of a cluster (cluster.go): its runs are owned through a
// lease, the runs of dead nodes are aborted, at most one run per chat runs
// across the nodes, and a client may follow a run of another node.
type RunManager struct {
	st     store.Store
	opts   RunOptions
	commit *committer
	cl     *cluster // nil: the only node

	mu     sync.Mutex
	runs   map[string]*Run   // running runs by id
	chats  map[string]string // chat id → running run id
	closed bool
}

// NewRunManager returns the run manager over st.
func NewRunManager(st store.Store, opts RunOptions) *RunManager {
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	m := &RunManager{st: st, opts: opts, commit: &committer{st: st, log: opts.Logger},
		runs: map[string]*Run{}, chats: map[string]string{}}
	if cs, ok := st.(clusterStore); ok {
		m.cl = newCluster(cs, m, opts.Lease)
	}
	return m
}

// Run is one run started by a RunManager.
type Run struct {
	id, chatID, agentKey string
	started              time.Time
	m                    *RunManager
	cancel               context.CancelFunc
	abort                atomic.Pointer[api.ErrorInfo] // set by Cancel: the run.error the run ends with
	done                 chan struct{}
	durable              chan struct{} // closed once the terminal event is stored, or the run is lost
	durableOnce          sync.Once

	mu       sync.Mutex
	pending  []logEntry      // emitted, not stored yet, in seq order
	queued   bool            // in the committer's queue (or being committed)
	visible  int64           // the last seq subscribers get
	tail     []logEntry      // the latest stored events, at most 2×tailSize (trimTail)
	terminal *logEntry       // the terminal event once emitted
	finished bool            // the terminal event is visible
	content  strings.Builder // the content deltas so far (Finished)
	subs     map[*Subscription]struct{}
	lost     bool // another node took the run over (lose)
}

// logEntry is one event and its JSON exactly as sent.
type logEntry struct {
	ev   api.Event
	body []byte
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
		id := m.chats[spec.ChatID]
		m.mu.Unlock()
		return nil, &BusyError{RunID: id}
	case m.runs[spec.RunID] != nil:
		m.mu.Unlock()
		return nil, fmt.Errorf("server: run %q: %w", spec.RunID, store.ErrExists)
	}
	m.chats[spec.ChatID] = spec.RunID // reserved while the run is stored
	m.mu.Unlock()

	now := m.opts.Clock()
	if err := m.storeRun(ctx, store.Run{ID: spec.RunID, ChatID: spec.ChatID, RequestID: spec.RequestID,
		AgentKey: spec.AgentKey, Query: spec.Query, Status: store.RunRunning, StartedAt: now}); err != nil {
		m.mu.Lock()
		delete(m.chats, spec.ChatID)
		m.mu.Unlock()
		if busy, ok := errors.AsType[*store.ChatBusyError](err); ok {
			return nil, &BusyError{RunID: busy.RunID}
		}
		return nil, fmt.Errorf("server: start run %q: %w", spec.RunID, err)
	}

	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r := &Run{id: spec.RunID, chatID: spec.ChatID, agentKey: spec.AgentKey, started: now, m: m,
		cancel: cancel, done: make(chan struct{}), durable: make(chan struct{}), subs: map[*Subscription]struct{}{}}
	a := NewAssembler(spec.RunID, spec.ChatID, m.opts.Clock, r.emit)
	a.AgentKey = spec.AgentKey

	m.mu.Lock()
	m.runs[r.id] = r
	closed := m.closed
	m.mu.Unlock()
	if closed { // Close came while the run was being stored: it ends at once
		r.stop(shutdownInfo)
	}
	if spec.Bootstrap != nil {
		spec.Bootstrap(a)
	}
	go r.execute(runCtx, context.WithoutCancel(ctx), a, spec)
	return r, nil
}

// storeRun stores a new run: as this node's, in a chat without a running
// run on any node, in a cluster.
func (m *RunManager) storeRun(ctx context.Context, run store.Run) error {
	if m.cl == nil {
		return m.st.CreateRun(ctx, run)
	}
	if err := m.cl.join(ctx); err != nil {
		return err
	}
	return m.cl.st.StartRun(ctx, run)
}

// execute runs Execute, ends the assembler if needed, waits until the log is
// durable, finishes the run in the store, calls Finished and then publishes
// the terminal event. A run another node took over (lose) ends without any
// of that: its log is the other node's now.
func (r *Run) execute(ctx, storeCtx context.Context, a *Assembler, spec RunSpec) {
	defer r.cancel()
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
	r.mu.Lock()
	term, lost := r.terminal, r.lost
	r.mu.Unlock()
	if term == nil && !lost { // cannot happen: the assembler ended
		r.emit(api.Event{Seq: a.seq + 1, Type: api.TypeRunError, Timestamp: r.m.opts.Clock().UnixMilli(),
			Payload: api.RunError{RunID: r.id, Error: api.ErrorInfo{Code: api.CodeInternalError, Message: "the run ended without a terminal event"}}})
	}
	<-r.durable
	r.mu.Lock()
	term, lost = r.terminal, r.lost
	r.mu.Unlock()
	if lost {
		r.m.retire(r)
		return
	}
	status, reason, code := terminalStatus(term.ev)
	if err := r.m.st.FinishRun(storeCtx, r.id, status, reason, code, r.m.opts.Clock()); err != nil {
		r.m.opts.Logger.Error("run: finishing the stored run failed", "run", r.id, "err", err)
	}
	if spec.Finished != nil {
		r.callFinished(storeCtx, spec.Finished)
	}
	r.publishTerminal()
	if r.m.cl != nil {
		r.m.cl.announceEnd(storeCtx, r.id)
	}
}

// callFinished hands the content text to the Finished hook; a panic in the
// hook is logged, never fatal.
func (r *Run) callFinished(ctx context.Context, fin func(context.Context, string)) {
	defer func() {
		if p := recover(); p != nil {
			r.m.opts.Logger.Error("run: Finished panicked", "run", r.id, "panic", p)
		}
	}()
	r.mu.Lock()
	content := r.content.String()
	r.mu.Unlock()
	fin(ctx, content)
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

// emit is the assembler's emit: the event joins the run's pending events,
// which the committer stores and then publishes (stored). Nothing follows
// the terminal event. After Cancel the terminal event becomes the
// run.error run_aborted of the cancel.
func (r *Run) emit(e api.Event) {
	if info := r.abort.Load(); info != nil && Terminal(e.Type) {
		e.Type = api.TypeRunError
		e.Payload = api.RunError{RunID: r.id, Error: *info}
	}
	entry := logEntry{ev: e, body: marshalEvent(e)}
	entry.ev.Encoded = entry.body // sent to every client as stored
	r.mu.Lock()
	if r.terminal != nil || r.lost {
		r.mu.Unlock()
		return
	}
	if Terminal(e.Type) {
		r.terminal = &entry
	}
	if d, ok := e.Payload.(api.ContentDelta); ok {
		r.content.WriteString(d.Delta)
	}
	r.pending = append(r.pending, entry)
	enqueue := !r.queued
	r.queued = true
	r.mu.Unlock()
	if enqueue {
		r.m.commit.enqueue(r)
	}
}

// takePending returns up to max of the run's pending events for a commit.
func (r *Run) takePending(max int) []store.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := min(len(r.pending), max)
	out := make([]store.Event, n)
	for i, e := range r.pending[:n] {
		out[i] = store.Event{RunID: r.id, Seq: e.ev.Seq, Type: e.ev.Type, Timestamp: e.ev.Timestamp, Body: e.body}
	}
	return out
}

// stored takes the first n pending events as durable: they join the tail
// and become visible to the subscribers (the terminal event only when the
// run is finished, publishTerminal); a stored terminal event releases
// execute.
func (r *Run) stored(n int) {
	if n == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	done := r.pending[:n]
	r.tail = append(r.tail, done...)
	r.tail = trimTail(r.tail)
	for _, e := range done {
		if Terminal(e.ev.Type) {
			r.durableOnce.Do(func() { close(r.durable) })
			continue
		}
		r.visible = e.ev.Seq
	}
	if n == len(r.pending) {
		// All stored (the usual case): the next events reuse the array
		// (the stored ones are copied into the tail), which a slice moved
		// past them would have to reallocate every few events.
		clear(done)
		r.pending = r.pending[:0]
	} else {
		r.pending = r.pending[n:]
	}
	r.signalLocked()
}

// lose gives the run up to the node that took it over (its events are
// refused with store.ErrNotOwner: this node's lease had expired): the
// events not stored are dropped, Execute is stopped, execute ends without
// finishing the run, and the subscribers go on reading the store, where
// the other node writes the run's end.
func (r *Run) lose() {
	r.mu.Lock()
	if r.lost {
		r.mu.Unlock()
		return
	}
	r.lost = true
	r.pending = nil
	r.signalLocked()
	r.mu.Unlock()
	r.durableOnce.Do(func() { close(r.durable) })
	r.stop(leaseLostInfo)
	r.m.opts.Logger.Error("run: another node took the run over; this node stops it", "run", r.id)
}

// requeue reports whether the run has pending events left after a commit
// (it stays queued); otherwise it leaves the queue.
func (r *Run) requeue() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.queued = len(r.pending) > 0
	return r.queued
}

// signalLocked wakes every subscriber. Call with r.mu held.
func (r *Run) signalLocked() {
	for s := range r.subs {
		s.signal()
	}
}

// Clients returns how many subscriptions follow the run (the SSE streams
// of /query and /run/stream).
func (r *Run) Clients() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.subs)
}

// marshalEvent returns the event's JSON as sent; an event that cannot be
// encoded (a bug) keeps its seq, type and timestamp.
func marshalEvent(e api.Event) []byte {
	b, err := e.MarshalJSON()
	if err != nil {
		b, _ = api.Event{Seq: e.Seq, Type: e.Type, Timestamp: e.Timestamp}.MarshalJSON()
	}
	return b
}

// publishTerminal makes the stored terminal event visible and retires the
// run from the manager, in one step for Subscribe.
func (r *Run) publishTerminal() {
	m := r.m
	m.mu.Lock()
	r.mu.Lock()
	r.visible = r.terminal.ev.Seq
	r.finished = true
	r.signalLocked()
	r.mu.Unlock()
	m.forgetLocked(r)
	m.mu.Unlock()
	close(r.done)
}

// retire removes a run that ended without publishing (lose).
func (m *RunManager) retire(r *Run) {
	m.mu.Lock()
	m.forgetLocked(r)
	m.mu.Unlock()
	close(r.done)
}

// forgetLocked removes r from the running runs. Call with m.mu held.
func (m *RunManager) forgetLocked(r *Run) {
	delete(m.runs, r.id)
	if m.chats[r.chatID] == r.id {
		delete(m.chats, r.chatID)
	}
}

// visibleSeq returns the last seq subscribers of a running run may see;
// ok is false when the run is not running here.
func (m *RunManager) visibleSeq(runID string) (seq int64, ok bool) {
	m.mu.Lock()
	r := m.runs[runID]
	m.mu.Unlock()
	if r == nil {
		return 0, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.visible, true
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

// The run.error infos of a stopped run (run_aborted, retriable).
var (
	canceledInfo = api.ErrorInfo{Code: api.CodeRunAborted, Message: "the run was canceled", Retriable: true,
		Reason: api.AbortCanceled}
	supersededInfo = api.ErrorInfo{Code: api.CodeRunAborted, Message: "the run was superseded by a new query in its chat",
		Retriable: true, Reason: api.AbortSuperseded}
	shutdownInfo = api.ErrorInfo{Code: api.CodeRunAborted, Message: "the server is shutting down", Retriable: true,
		Reason: api.AbortShutdown}
)

// stop cancels the run's context; the run ends with run.error info.
func (r *Run) stop(info api.ErrorInfo) {
	r.abort.CompareAndSwap(nil, &info)
	r.cancel()
}

// Cancel stops a running run: its Execute sees its context done and the run
// ends with run.error {code:"run_aborted", retriable:true, reason:"canceled"}
// (PLATFORM_API has no cancel code; run.cancel is reserved). It does not
// wait (see Run.Done). A run of another node is asked to stop through the
// feed. It returns ErrRunNotRunning for an ended run, ErrRunNotFound for an
// unknown one.
func (m *RunManager) Cancel(ctx context.Context, runID string) error {
	if m.cancelLocal(runID) == nil {
		return nil
	}
	run, err := m.st.GetRun(ctx, runID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return fmt.Errorf("%w: %q", ErrRunNotFound, runID)
	case err != nil:
		return err
	case m.cl == nil || run.Status != store.RunRunning:
		return fmt.Errorf("%w: %q", ErrRunNotRunning, runID)
	}
	return m.cl.st.Announce(ctx, store.Note{RunID: runID, Cancel: true})
}

// cancelLocal stops a run running here; ErrRunNotRunning if none.
func (m *RunManager) cancelLocal(runID string) error {
	m.mu.Lock()
	r := m.runs[runID]
	m.mu.Unlock()
	if r == nil {
		return ErrRunNotRunning
	}
	r.stop(canceledInfo)
	return nil
}

// stopAll stops every run running here with run.error info.
func (m *RunManager) stopAll(info api.ErrorInfo) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range m.runs {
		r.stop(info)
	}
}

// Supersede ends the running run of a chat that no client follows (a client
// that stopped reading, or reloaded, left it behind): it is canceled with
// reason superseded and Supersede waits until it has ended or ctx is done.
// It returns the run id and true when the chat has no running run left; a
// run that a client follows is left alone (false). In a cluster a run of
// another node is left alone too (false): whether a client follows it is
// known only where its clients are, which may be any node.
func (m *RunManager) Supersede(ctx context.Context, chatID string) (string, bool) {
	m.mu.Lock()
	id := m.chats[chatID]
	r := m.runs[id]
	m.mu.Unlock()
	if id == "" {
		if remote, ok := m.Active(ctx, chatID); ok {
			return remote, false
		}
		return "", true
	}
	if r == nil || r.Clients() > 0 {
		return id, false // being stored by Start, or followed
	}
	r.stop(supersededInfo)
	select {
	case <-r.done:
		return id, true
	case <-ctx.Done():
		return id, false
	}
}

// Active returns the running run of a chat: on this node, or in a cluster
// on any node (as the store says, so the run of a dead node until another
// node has aborted it).
func (m *RunManager) Active(ctx context.Context, chatID string) (runID string, ok bool) {
	return m.active(chatID, func() ([]store.Run, error) { return m.st.ListRuns(ctx, chatID) })
}

// ActiveIn is Active for a caller that has just listed the chat's runs
// (store.Store.ListRuns): it reads them instead of the store.
func (m *RunManager) ActiveIn(chatID string, runs []store.Run) (runID string, ok bool) {
	return m.active(chatID, func() ([]store.Run, error) { return runs, nil })
}

// active is Active with the chat's runs read by list, only when needed.
func (m *RunManager) active(chatID string, list func() ([]store.Run, error)) (runID string, ok bool) {
	m.mu.Lock()
	id := m.chats[chatID]
	local := m.runs[id] != nil
	m.mu.Unlock()
	if local {
		return id, true
	}
	if m.cl == nil || id != "" {
		return "", false // reserved by a Start still storing the run
	}
	runs, err := list()
	if err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			m.opts.Logger.Warn("run: reading the runs of a chat failed", "chat", chatID, "err", err)
		}
		return "", false
	}
	for i := len(runs) - 1; i >= 0; i-- {
		if runs[i].Status == store.RunRunning {
			return runs[i].ID, true
		}
	}
	return "", false
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

// Running returns the running runs in run id order: this node's (List), or
// in a cluster every node's, as the store says.
func (m *RunManager) Running(ctx context.Context) ([]RunInfo, error) {
	if m.cl == nil {
		return m.List(), nil
	}
	runs, err := m.st.RunningRuns(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]RunInfo, len(runs))
	for i, r := range runs {
		out[i] = RunInfo{RunID: r.ID, ChatID: r.ChatID, AgentKey: r.AgentKey, StartedAt: r.StartedAt}
	}
	return out, nil
}

// Close stops accepting runs, cancels the running ones (reason shutdown)
// and waits until they have ended or ctx is done; in a cluster it then
// stops keeping the lease and listening to the feed.
func (m *RunManager) Close(ctx context.Context) error {
	m.mu.Lock()
	m.closed = true
	runs := make([]*Run, 0, len(m.runs))
	for _, r := range m.runs {
		r.stop(shutdownInfo)
		runs = append(runs, r)
	}
	m.mu.Unlock()
	if m.cl != nil {
		defer m.cl.close()
	}
	for _, r := range runs {
		select {
		case <-r.done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
