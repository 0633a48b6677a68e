package store

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sync"
)

// The Validate functions hold the record rules every backend applies before writing, so the
// backends agree on what is rejected; each returns an error wrapping ErrInvalid (or
// ErrConflict for the order of event seqs).

// ValidateChat checks a chat to be created.
func ValidateChat(c Chat) error {
	if c.ID == "" {
		return fmt.Errorf("%w: chat id is empty", ErrInvalid)
	}
	if c.ReadStatus != 0 && c.ReadStatus != 1 {
		return fmt.Errorf("%w: chat %q: read status %d is neither 0 nor 1", ErrInvalid, c.ID, c.ReadStatus)
	}
	return nil
}

// ValidateNewRun checks a run to be created: an id, a chat, no terminal state.
func ValidateNewRun(r Run) error {
	switch {
	case r.ID == "":
		return fmt.Errorf("%w: run id is empty", ErrInvalid)
	case r.ChatID == "":
		return fmt.Errorf("%w: run %q: chat id is empty", ErrInvalid, r.ID)
	case r.Status != "" && r.Status != RunRunning:
		return fmt.Errorf("%w: run %q: a new run must be running, not %q", ErrInvalid, r.ID, r.Status)
	case r.EndedAt != nil:
		return fmt.Errorf("%w: run %q: a new run has no end time", ErrInvalid, r.ID)
	}
	return validJSON(r.Query, true, "run %q query", r.ID)
}

// ValidateFinish checks the status given to FinishRun.
func ValidateFinish(runID string, status RunStatus) error {
	if !status.Terminal() {
		return fmt.Errorf("%w: run %q: %q is not a terminal status", ErrInvalid, runID, status)
	}
	return nil
}

// ValidateMessages checks messages to be appended to run runID.
func ValidateMessages(runID string, msgs []Message) error {
	for i, m := range msgs {
		if m.RunID != "" && m.RunID != runID {
			return fmt.Errorf("%w: message %d names run %q, appended to run %q", ErrInvalid, i, m.RunID, runID)
		}
		if err := validJSON(m.Body, false, "run %q message %d", runID, i); err != nil {
			return err
		}
	}
	return nil
}

// ValidateSystem checks a system snapshot body.
func ValidateSystem(runID string, body json.RawMessage) error {
	return validJSON(body, false, "run %q system snapshot", runID)
}

// ValidateEvents checks a batch of events for run runID whose last stored seq is lastSeq:
// valid fields (ErrInvalid), then seqs strictly increasing above lastSeq (ErrConflict).
func ValidateEvents(runID string, lastSeq int64, events []Event) error {
	prev := lastSeq
	for i, e := range events {
		switch {
		case e.RunID != "" && e.RunID != runID:
			return fmt.Errorf("%w: event %d names run %q, appended to run %q", ErrInvalid, i, e.RunID, runID)
		case e.Seq < 1:
			return fmt.Errorf("%w: run %q event %d: seq %d is below 1", ErrInvalid, runID, i, e.Seq)
		case e.Type == "":
			return fmt.Errorf("%w: run %q event seq %d: empty type", ErrInvalid, runID, e.Seq)
		}
		if err := validJSON(e.Body, false, "run %q event seq %d", runID, e.Seq); err != nil {
			return err
		}
		if e.Seq <= prev {
			return fmt.Errorf("%w: run %q: event seq %d does not follow seq %d", ErrConflict, runID, e.Seq, prev)
		}
		prev = e.Seq
	}
	return nil
}

// EventsByRun splits the events of AppendEventLogs by run, in the order the runs first
// appear, keeping each run's events in order; an event without RunID is ErrInvalid. A run's
// events that come together (as the server's group commit gives them) are a part of events,
// not a copy.
func EventsByRun(events []Event) (runIDs []string, byRun map[string][]Event, err error) {
	byRun = map[string][]Event{}
	for i := 0; i < len(events); {
		id := events[i].RunID
		if id == "" {
			return nil, nil, fmt.Errorf("%w: event %d (seq %d) names no run", ErrInvalid, i, events[i].Seq)
		}
		j := i + 1
		for j < len(events) && events[j].RunID == id {
			j++
		}
		if prev, ok := byRun[id]; ok {
			byRun[id] = append(slices.Clip(prev), events[i:j]...) // a copy: events stays as it is
		} else {
			runIDs = append(runIDs, id)
			byRun[id] = events[i:j:j]
		}
		i = j
	}
	return runIDs, byRun, nil
}

// ValidatePlan checks a plan to be saved.
func ValidatePlan(p Plan) error {
	switch {
	case p.ID == "":
		return fmt.Errorf("%w: plan id is empty", ErrInvalid)
	case p.ChatID == "" || p.RunID == "":
		return fmt.Errorf("%w: plan %q needs a chat and a run", ErrInvalid, p.ID)
	}
	return validJSON(p.Tasks, false, "plan %q tasks", p.ID)
}

// ValidateNewDocument checks a document to be created.
func ValidateNewDocument(d Document) error {
	switch {
	case d.ID == "":
		return fmt.Errorf("%w: document id is empty", ErrInvalid)
	case d.Revision != 0:
		return fmt.Errorf("%w: document %q: a new document has revision 0, not %d", ErrInvalid, d.ID, d.Revision)
	case d.ItemCount < 0:
		return fmt.Errorf("%w: document %q: negative item count", ErrInvalid, d.ID)
	}
	return ValidateItemIDs(d.ID, d.ItemCount, d.ItemIDs, d.NextItemID)
}

// ValidateItemIDs checks the item IDs of document docID with itemCount items (see
// Document): next 0 with no IDs (not recorded), or one ID per item, each positive, unique
// and below next.
func ValidateItemIDs(docID string, itemCount int, ids []int, next int) error {
	switch {
	case next < 0:
		return fmt.Errorf("%w: document %q: negative next item id %d", ErrInvalid, docID, next)
	case next == 0 && len(ids) > 0:
		return fmt.Errorf("%w: document %q: %d item ids without a next item id", ErrInvalid, docID, len(ids))
	case next == 0:
		return nil
	case len(ids) != itemCount:
		return fmt.Errorf("%w: document %q: %d item ids for %d items", ErrInvalid, docID, len(ids), itemCount)
	}
	seen := make(map[int]struct{}, len(ids))
	for i, id := range ids {
		if id < 1 || id >= next {
			return fmt.Errorf("%w: document %q: item %d has id %d, outside 1..%d", ErrInvalid, docID, i, id, next-1)
		}
		if _, dup := seen[id]; dup {
			return fmt.Errorf("%w: document %q: item id %d is repeated", ErrInvalid, docID, id)
		}
		seen[id] = struct{}{}
	}
	return nil
}

// ValidateTask checks a task state to be saved.
func ValidateTask(id string, body json.RawMessage) error {
	if id == "" {
		return fmt.Errorf("%w: task id is empty", ErrInvalid)
	}
	return validJSON(body, false, "task %q state", id)
}

// validJSON checks that b is one well-formed JSON value; optional allows an empty b.
func validJSON(b json.RawMessage, optional bool, format string, args ...any) error {
	if len(b) == 0 && optional {
		return nil
	}
	if !json.Valid(b) {
		return fmt.Errorf("%w: %s is not valid JSON", ErrInvalid, fmt.Sprintf(format, args...))
	}
	return nil
}

// dataName is the form of a DocumentData name.
var dataName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`) })

// ValidateDocumentData checks a DocumentData name.
func ValidateDocumentData(docID, name string) error {
	if docID == "" {
		return fmt.Errorf("%w: document id is empty", ErrInvalid)
	}
	if !dataName().MatchString(name) {
		return fmt.Errorf("%w: document data name %q (1 to 64 letters, digits, '.', '-' or '_')", ErrInvalid, name)
	}
	return nil
}
