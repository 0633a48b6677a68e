package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/aitexteditor/aite/internal/agent/protocol"
)

// waits holds the pending waits of all runs: frontend calls keyed
// runId#toolId (§ 4.1 step 2), scope approvals keyed runId#scope:<toolId>
// (AGENT_PROTOCOL § 5.4) and edit approvals keyed runId#calls:<toolId>. Submit may be called from
// any goroutine.
type waits struct {
	mu sync.Mutex
	m  map[string]*waitEntry
}

// waitEntry is one pending wait. check, when set, validates a submitted
// payload; a payload it rejects leaves the wait pending.
type waitEntry struct {
	ch    chan json.RawMessage
	check func(json.RawMessage) error
}

// waitKey is the pending key of a frontend call.
func waitKey(runID, toolID string) string { return runID + "#" + toolID }

// register adds a pending wait; an existing key is an error (internal_error).
func (w *waits) register(key string) (<-chan json.RawMessage, error) {
	return w.registerChecked(key, nil)
}

// registerChecked adds a pending wait whose payloads check validates.
func (w *waits) registerChecked(key string, check func(json.RawMessage) error) (<-chan json.RawMessage, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, dup := w.m[key]; dup {
		return nil, fmt.Errorf("engine: wait %s is already pending", key)
	}
	if w.m == nil {
		w.m = map[string]*waitEntry{}
	}
	ch := make(chan json.RawMessage, 1)
	w.m[key] = &waitEntry{ch: ch, check: check}
	return ch, nil
}

// release hands payload to the wait key and removes it; false when no such
// wait is pending or the payload is rejected.
func (w *waits) release(key string, payload json.RawMessage) bool {
	ok, err := w.releaseChecked(key, payload)
	return ok && err == nil
}

// releaseChecked is release reporting a rejected payload: matched is false
// when no such wait is pending; a non-nil error means the wait's check
// rejected payload and the wait stays pending.
func (w *waits) releaseChecked(key string, payload json.RawMessage) (matched bool, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	e, ok := w.m[key]
	if !ok {
		return false, nil
	}
	if e.check != nil {
		if err := e.check(payload); err != nil {
			return true, err
		}
	}
	delete(w.m, key)
	e.ch <- append(json.RawMessage{}, payload...) // buffered: never blocks
	return true, nil
}

// drop removes the wait key (timeout, end of run). When a Submit released
// it in the meantime, its payload is returned with true.
func (w *waits) drop(key string, ch <-chan json.RawMessage) (json.RawMessage, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if e, ok := w.m[key]; ok && e.ch == ch {
		delete(w.m, key)
		return nil, false
	}
	select {
	case p := <-ch:
		return p, true
	default:
		return nil, false
	}
}

// Submit releases the frontend wait runID#toolID with payload; false when
// no such wait is pending (unknown, already answered, timed out). A toolID
// "scope:<callId>" answers a scope approval (see SubmitScope); a decision
// it rejects gives false too.
func (e *Engine) Submit(runID, toolID string, payload json.RawMessage) bool {
	return e.waits.release(waitKey(runID, toolID), payload)
}

// SubmitScope answers the scope approval runID#toolID, toolID being
// "scope:<callId>" (AGENT_PROTOCOL § 5.4), with the /submit params
// {decision: approve|deny|narrow, scopes?, reason?, remember?}. matched is
// false when no such approval is pending; an error means params are not a
// valid decision for that request (malformed, or scopes outside it) and the
// approval stays pending.
func (e *Engine) SubmitScope(runID, toolID string, params json.RawMessage) (matched bool, err error) {
	if !strings.HasPrefix(toolID, ScopeApprovalPrefix) {
		return false, nil
	}
	return e.waits.releaseChecked(waitKey(runID, toolID), params)
}

// SubmitCalls answers the edit approval runID#toolID, toolID being the
// approvalId "calls:<first toolId>" of an approval.request (the call
// confirmation extension), with the /submit params {decision:
// approve|deny|partial, approved?: [toolId…], reason?}. matched is false
// when no such approval is pending; an error means params are not a valid
// decision for that request (malformed, or tool ids outside it) and the
// approval stays pending.
func (e *Engine) SubmitCalls(runID, toolID string, params json.RawMessage) (matched bool, err error) {
	if !strings.HasPrefix(toolID, protocol.ConfirmApprovalPrefix) {
		return false, nil
	}
	return e.waits.releaseChecked(waitKey(runID, toolID), params)
}
