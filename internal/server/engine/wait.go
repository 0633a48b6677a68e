package engine

import (
	"encoding/json"
	"fmt"
	"sync"
)

// waits holds the pending frontend waits of all runs, keyed runId#toolId
// (§ 4.1 step 2). Submit may be called from any goroutine.
type waits struct {
	mu sync.Mutex
	m  map[string]chan json.RawMessage
}

// waitKey is the pending key of a frontend call.
func waitKey(runID, toolID string) string { return runID + "#" + toolID }

// register adds a pending wait; an existing key is an error (internal_error).
func (w *waits) register(key string) (<-chan json.RawMessage, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, dup := w.m[key]; dup {
		return nil, fmt.Errorf("engine: frontend wait %s is already pending", key)
	}
	if w.m == nil {
		w.m = map[string]chan json.RawMessage{}
	}
	ch := make(chan json.RawMessage, 1)
	w.m[key] = ch
	return ch, nil
}

// release hands payload to the wait key and removes it; false when no such
// wait is pending.
func (w *waits) release(key string, payload json.RawMessage) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	ch, ok := w.m[key]
	if !ok {
		return false
	}
	delete(w.m, key)
	ch <- append(json.RawMessage{}, payload...) // buffered: never blocks
	return true
}

// drop removes the wait key (timeout, end of run). When a Submit released
// it in the meantime, its payload is returned with true.
func (w *waits) drop(key string, ch <-chan json.RawMessage) (json.RawMessage, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.m[key]; ok {
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
// no such wait is pending (unknown, already answered, timed out).
func (e *Engine) Submit(runID, toolID string, payload json.RawMessage) bool {
	return e.waits.release(waitKey(runID, toolID), payload)
}
