package engine

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
)

// TODO(engine helper): replace this file.

type waits struct {
	mu sync.Mutex
	m  map[string]chan json.RawMessage
}

// Execute runs spec to its end, streaming through em. It returns nil after
// em received its terminal event; an error (a *RunFailure-like value is not
// needed: the engine ends em itself) only for failures before anything
// could be emitted.
func (e *Engine) Execute(ctx context.Context, spec Spec, em Emitter) error {
	return errors.New("engine: not implemented")
}

// Submit releases the frontend wait runID#toolID with payload; false when
// no such wait is pending.
func (e *Engine) Submit(runID, toolID string, payload json.RawMessage) bool { return false }
