package protocol

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
)

// Remember values of a ScopeDecision (AP4).
const (
	RememberOnce = "once"
	RememberRun  = "run"
	RememberChat = "chat"
)

// Who decided (ScopeDecision.By).
const (
	ByUser   = "user"
	ByPolicy = "policy"
	ByMemory = "memory"
	ByHook   = "hook"
)

// GrantsKind is the internal data kind under which "chat" grants are stored
// (one push write per grant at its root); never rendered, never scopeable.
const GrantsKind = "_grants"

// Grant is a remembered approval (AP4): later requests of Tool by the agent
// Agent whose requested scopes all lie inside Scopes are approved by memory.
type Grant struct {
	Agent  string   `json:"agent"`
	Tool   string   `json:"tool"`
	Scopes []string `json:"scopes"`
}

// GrantsFromContext returns the chat grants stored as `_grants` messages in
// c (chat memory), in order; entries that are not grants are skipped.
func GrantsFromContext(c agentctx.Context) []Grant {
	f := c.Fold(GrantsKind, "")
	arr, _ := f.Value.([]any)
	var out []Grant
	for _, e := range arr {
		obj, ok := e.(*agentctx.Object)
		if !ok {
			continue
		}
		var g Grant
		g.Agent, _ = getString(obj, "agent")
		g.Tool, _ = getString(obj, "tool")
		raw, _ := obj.Get("scopes")
		list, _ := raw.([]any)
		for _, s := range list {
			if s, ok := s.(string); ok {
				g.Scopes = append(g.Scopes, s)
			}
		}
		if g.Tool != "" {
			out = append(out, g)
		}
	}
	return out
}

func getString(obj *agentctx.Object, key string) (string, bool) {
	v, _ := obj.Get(key)
	s, ok := v.(string)
	return s, ok
}

// grantMessage is the `_grants` write recording one chat grant.
func grantMessage(g Grant, date time.Time) agentctx.Message {
	scopes := make([]any, len(g.Scopes))
	for i, s := range g.Scopes {
		scopes[i] = s
	}
	m := agentctx.Message{
		Type: agentctx.TypeData, Kind: GrantsKind, HasValue: true, OutputMethod: agentctx.MethodPush,
		Value: agentctx.NewObject("agent", g.Agent, "tool", g.Tool, "scopes", scopes),
	}
	if !date.IsZero() {
		m.Date = date.UTC().Format(time.RFC3339Nano)
	}
	return m
}

// grantStore holds the remembered grants of a run tree and serialises the
// approval of each (agent, tool) (AP5).
type grantStore struct {
	mu      sync.Mutex
	locks   map[string]*sync.Mutex
	granted map[string][]string // (agent, tool) → union of remembered scopes
	chat    []Grant             // chat grants decided during this run
	flushed int                 // how many of chat were written to the context
}

func newGrantStore(chat []Grant) *grantStore {
	s := &grantStore{locks: map[string]*sync.Mutex{}, granted: map[string][]string{}}
	for _, g := range chat {
		k := grantKey(g.Agent, g.Tool)
		s.granted[k] = union(s.granted[k], g.Scopes)
	}
	return s
}

func grantKey(agent, tool string) string { return agent + "\x00" + tool }

// lock returns the mutex serialising the approvals of one (agent, tool).
func (s *grantStore) lock(key string) *sync.Mutex {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.locks[key]
	if m == nil {
		m = &sync.Mutex{}
		s.locks[key] = m
	}
	return m
}

func (s *grantStore) covers(key string, requested []string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.granted[key]
	if !ok {
		return false
	}
	for _, r := range requested {
		if !slices.Contains(g, r) {
			return false
		}
	}
	return true
}

func (s *grantStore) remember(g Grant, chat bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := grantKey(g.Agent, g.Tool)
	s.granted[k] = union(s.granted[k], g.Scopes)
	if chat {
		s.chat = append(s.chat, g)
	}
}

// unflushed returns the chat grants not yet written to the context.
func (s *grantStore) unflushed() []Grant {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Clone(s.chat[s.flushed:])
	s.flushed = len(s.chat)
	return out
}

func (s *grantStore) chatDecided() []Grant {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.chat)
}

// flushGrants appends the chat grants decided during the turn (by this run
// or its sub-runs) as `_grants` writes.
func (r *run) flushGrants() {
	for _, g := range r.tree.grants.unflushed() {
		r.append(grantMessage(g, r.tree.rt.now()))
	}
}

// approve decides a call's requested scopes (§4.4) and returns the approved
// subset. A refusal (deny, timeout, an invalid narrow) is a scope_denied or
// scope_narrow_invalid error; an approver failure is approval_failed. The
// call is then not dispatched.
func (r *run) approve(ctx context.Context, snap agentctx.Context, call *Call, t *Tool) ([]string, *CallError) {
	requested := union(nil, call.Scopes)
	req := ScopeRequest{
		RunID: r.tree.runID, ToolID: call.ToolID, ParentToolID: r.parentToolID, Tool: call.Tool,
		Instance: call.Instance, Provisioned: slices.Clone(t.Provisioned), Requested: requested,
		Timeout: r.approvalTimeout(),
	}
	if req.Provisioned == nil {
		req.Provisioned = []string{}
	}
	fail := func(code Code, format string, args ...any) *CallError {
		return &CallError{Index: call.Index, Tool: call.Tool, Instance: call.Instance, Code: code, Message: fmt.Sprintf(format, args...)}
	}
	var dec ScopeDecision
	switch policy := r.a.Approval.RequestedScopes; policy {
	case ApprovalAuto:
		dec = ScopeDecision{Verdict: VerdictApprove, Scopes: requested, By: ByPolicy}
	case ApprovalDeny:
		dec = ScopeDecision{Verdict: VerdictDeny, Reason: "the approval policy denies requested scopes", By: ByPolicy}
	case ApprovalAsk, "":
		key := grantKey(r.a.Key, call.Tool)
		mu := r.tree.grants.lock(key)
		mu.Lock()
		defer mu.Unlock()
		switch {
		case r.tree.grants.covers(key, requested):
			dec = ScopeDecision{Verdict: VerdictApprove, Scopes: requested, By: ByMemory}
		case r.tree.rt.Approver == nil:
			dec = ScopeDecision{Verdict: VerdictDeny, Reason: "no approver", By: ByPolicy}
		default:
			req.Preview = Preview(snap, call.Instance, requested)
			if r.events() {
				rq := req
				r.emit(Event{Type: EvScopeRequest, Turn: call.Turn, ToolID: call.ToolID, ToolName: call.Tool, Instance: call.Instance, Request: &rq})
			}
			var err error
			dec, err = r.decide(ctx, req)
			if err != nil {
				return nil, fail(CodeApprovalFailed, "the approval of %s failed: %v", describe(call), err)
			}
		}
	default:
		return nil, fail(CodeApprovalFailed, "the approval of %s failed: unknown policy %q", describe(call), policy)
	}

	var granted []string
	var cerr *CallError
	switch dec.Verdict {
	case VerdictApprove:
		granted = requested
	case VerdictNarrow:
		if bad := notIn(dec.Scopes, requested); len(bad) > 0 {
			cerr = fail(CodeScopeNarrowInvalid, "the approval of %s narrowed to %s, which were not requested", describe(call), strings.Join(bad, ", "))
			dec = ScopeDecision{Verdict: VerdictDeny, Reason: cerr.Message, By: dec.By}
		} else {
			granted = union(nil, dec.Scopes)
		}
	case VerdictDeny, VerdictTimeout:
		reason := dec.Reason
		if reason == "" && dec.Verdict == VerdictTimeout {
			reason = "no decision before the timeout"
		}
		if reason == "" {
			reason = "denied"
		}
		cerr = fail(CodeScopeDenied, "the scopes %s requested by %s were refused: %s", strings.Join(requested, ", "), describe(call), reason)
		cerr.Details = agentctx.NewObject("decision", dec.Verdict, "reason", reason, "requested", requested)
	default:
		return nil, fail(CodeApprovalFailed, "the approval of %s failed: unknown decision %q", describe(call), dec.Verdict)
	}
	if dec.By == "" {
		dec.By = ByUser
	}
	if cerr == nil && dec.By != ByMemory && (dec.Remember == RememberRun || dec.Remember == RememberChat) {
		r.tree.grants.remember(Grant{Agent: r.a.Key, Tool: call.Tool, Scopes: granted}, dec.Remember == RememberChat)
	}
	effective := dec
	effective.Scopes = union(req.Provisioned, granted)
	if effective.Scopes == nil {
		effective.Scopes = []string{}
	}
	if r.events() {
		d := effective
		r.emit(Event{Type: EvScopeDecision, Turn: call.Turn, ToolID: call.ToolID, ToolName: call.Tool, Instance: call.Instance, Decision: &d})
	}
	if len(r.tree.rt.Hooks.OnScopeDecision) > 0 {
		r.tree.onScopeDecision(req, effective)
	}
	return granted, cerr
}

func (r *run) approvalTimeout() time.Duration {
	if r.a.Approval.Timeout > 0 {
		return r.a.Approval.Timeout
	}
	return DefaultApprovalTimeout
}

// decide asks the approver with the approval timeout (AP6). The approver
// runs on its own goroutine so that one ignoring its context cannot hold the
// run past the timeout.
func (r *run) decide(ctx context.Context, req ScopeRequest) (ScopeDecision, error) {
	return awaitDecision(ctx, req.Timeout, func(tctx context.Context) (ScopeDecision, error) {
		return r.tree.rt.Approver.Decide(tctx, req)
	}, ScopeDecision{Verdict: VerdictTimeout, Reason: "no decision before the timeout", By: ByPolicy})
}

// awaitDecision runs a human-facing interceptor (approver, confirmer) on its
// own goroutine with a timeout, so that one ignoring its context cannot hold
// the run: past the timeout, or when the interceptor fails because of it,
// the answer is timedOut. The caller's own cancellation is returned as its
// error.
func awaitDecision[T any](ctx context.Context, timeout time.Duration, ask func(context.Context) (T, error), timedOut T) (T, error) {
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type answer struct {
		dec T
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		dec, err := callInterceptor(func() (T, error) { return ask(tctx) })
		ch <- answer{dec, err}
	}()
	var zero T
	select {
	case a := <-ch:
		if a.err != nil {
			if ctx.Err() == nil && errors.Is(tctx.Err(), context.DeadlineExceeded) {
				return timedOut, nil
			}
			return zero, a.err
		}
		return a.dec, nil
	case <-tctx.Done():
		if ctx.Err() != nil {
			return zero, ctx.Err()
		}
		return timedOut, nil
	}
}

// notIn returns the elements of a missing from b.
func notIn(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}
