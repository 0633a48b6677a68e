package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/aitexteditor/aite/internal/api"
	"github.com/aitexteditor/aite/internal/store"
)

// RecoverInterrupted closes the runs a previous process left running
// (§ 3.6). Each first gets the document.edit events of the edits it saved
// whose events the crash lost (repairEdits), then a stored run.error
// {code:"run_aborted", retriable:true} with the seq after its last stored
// one, and is finished with status error and error code run_aborted. As
// every event is stored before it is sent, that seq was never sent to a
// client. Runs running in this manager are left alone. Call it at startup,
// before serving; it goes on after a failing run and returns every error.
//
// On a store several nodes share, the runs still running may be other
// nodes' live runs: the node takes its lease and starts keeping it
// (cluster), and closes only the runs of nodes whose lease has expired, now
// and from then on until Close.
func (m *RunManager) RecoverInterrupted(ctx context.Context) error {
	if m.cl != nil {
		if err := m.cl.join(ctx); err != nil {
			return err
		}
		return m.cl.reap(ctx)
	}
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
		if err := m.abort(ctx, run); err != nil {
			errs = append(errs, fmt.Errorf("server: recover run %q: %w", run.ID, err))
		}
	}
	return errors.Join(errs...)
}

// abort stores the lost document.edit events and run.error run_aborted
// after the run's log and finishes it. A log that already ends with its
// terminal event (the process stopped between storing it and finishing the
// run, or an abort that failed half-way) is only finished, as that event
// says, if not finished yet; so abort may be tried again.
func (m *RunManager) abort(ctx context.Context, run store.Run) error {
	stored, err := m.st.ListEvents(ctx, run.ID, 0)
	if err != nil {
		return err
	}
	now := m.opts.Clock()
	var last, ts int64
	if n := len(stored); n > 0 {
		last, ts = stored[n-1].Seq, stored[n-1].Timestamp
		if end := stored[n-1]; Terminal(end.Type) {
			status, reason, code := storedTerminalStatus(end)
			if err := m.st.FinishRun(ctx, run.ID, status, reason, code, now); err != nil && !errors.Is(err, store.ErrConflict) {
				return err
			}
			return m.recordAborted(ctx, run, now)
		}
	}
	add, err := m.lostEdits(ctx, run, stored, last, ts)
	if err != nil {
		return err
	}
	last += int64(len(add))
	e := api.Event{Seq: last + 1, Type: api.TypeRunError, Timestamp: max(now.UnixMilli(), ts), Payload: api.RunError{RunID: run.ID,
		Error: api.ErrorInfo{Code: api.CodeRunAborted, Message: "the server stopped while the run was executing", Retriable: true}}}
	add = append(add, storeEvent(run.ID, e))
	if err := m.st.AppendEvents(ctx, run.ID, add...); err != nil {
		return err
	}
	if err := m.st.FinishRun(ctx, run.ID, store.RunError, "", api.CodeRunAborted, now); err != nil {
		return err
	}
	return m.recordAborted(ctx, run, now)
}

// storedTerminalStatus is terminalStatus of a stored terminal event; a
// run.error whose body does not decode, or has no code, gives
// internal_error.
func storedTerminalStatus(e store.Event) (store.RunStatus, string, string) {
	ev := api.Event{Type: e.Type}
	if e.Type == api.TypeRunComplete {
		var p api.RunComplete
		_ = json.Unmarshal(e.Body, &p) // a run.complete stays completed
		ev.Payload = p
	} else {
		var p api.RunError
		if json.Unmarshal(e.Body, &p) == nil && p.Error.Code != "" {
			ev.Payload = p
		}
	}
	return terminalStatus(ev)
}

// storeEvent is the stored form of e.
func storeEvent(runID string, e api.Event) store.Event {
	return store.Event{RunID: runID, Seq: e.Seq, Type: e.Type, Timestamp: e.Timestamp, Body: marshalEvent(e)}
}

// lostEdits returns the document.edit events (seq after last, timestamps
// not before ts) of the edits the run saved in its chat's document whose
// events are not in the stored log: an edit is saved before its event is
// emitted, so a crash in between would leave an edit the chat history does
// not show.
func (m *RunManager) lostEdits(ctx context.Context, run store.Run, log []store.Event, last, ts int64) ([]store.Event, error) {
	chat, err := m.st.GetChat(ctx, run.ChatID)
	if err != nil || chat.DocumentID == "" {
		return nil, err
	}
	shown := map[int]bool{}
	after := -1
	for _, e := range log {
		if e.Type != api.TypeDocumentEdit {
			continue
		}
		var p api.DocumentEdit
		if json.Unmarshal(e.Body, &p) == nil && p.DocumentID == chat.DocumentID {
			shown[p.Revision] = true
			after = max(after, p.Revision)
		}
	}
	edits, err := m.st.ListDocumentEdits(ctx, chat.DocumentID, max(after, 0))
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil // the document is gone
	} else if err != nil {
		return nil, err
	}
	var out []store.Event
	for _, ed := range edits {
		if ed.RunID != run.ID || shown[ed.Revision] {
			continue
		}
		ts = max(ts, ed.At.UnixMilli())
		last++
		out = append(out, storeEvent(run.ID, api.Event{Seq: last, Type: api.TypeDocumentEdit, Timestamp: ts,
			Payload: api.DocumentEdit{DocumentID: chat.DocumentID, RunID: run.ID, ToolID: ed.ToolID, Revision: ed.Revision,
				Op: ed.Op, Pointer: ed.Pointer, NewPointer: ed.NewPointer, Before: ed.Before, After: ed.After}}))
	}
	return out, nil
}

// recordAborted stores the end of an interrupted run on its chat, as the end
// of every run is (§ 5.1): its content so far, else the user message.
func (m *RunManager) recordAborted(ctx context.Context, run store.Run, now time.Time) error {
	stored, err := m.st.ListEvents(ctx, run.ID, 0)
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
	return m.st.UpdateChatAfterRun(ctx, run.ChatID, run.ID, content, now)
}
