package bookprotocol

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/agent/protocol"
	"github.com/aitexteditor/aite/internal/cursor"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/pointer"
)

// Batch sizes used when a cursor was created without limits: small batches
// for pre-filtered cursors (keywords, search results), whose items are
// likely matches, larger ones for scans.
const (
	filteredBatchItems = 8
	filteredBatchBytes = 12000
	scanBatchItems     = 24
	scanBatchBytes     = 16000
	maxReasonChars     = 300
)

// walkSeq numbers the private cursors of read_cursor_batch.
var walkSeq atomic.Int64

type batchParams struct {
	CursorName        string  `json:"cursorName"`
	StartAfterPointer *string `json:"startAfterPointer"`
}

// readCursorBatch returns one batch of a cursor as the whole `batch` kind:
// {cursorName, items:[{pointer, kind, markdown}], hasMore, nextAfterPointer,
// position:{startAfterPointer, remaining}}.
//
// Reads are stateless: the position is the startAfterPointer argument (the
// first batch: null, or the task's startAfterPointer; the next ones:
// "†batch.nextAfterPointer"). Each read walks a private copy of the named
// cursor's spec starting there, so the session cursor is never advanced,
// sub-runs over one cursor do not disturb each other and a repeated call
// returns the same batch. After the end the batch is empty, hasMore false,
// and nextAfterPointer stays where the read started.
func (b *binding) readCursorBatch(_ context.Context, call *protocol.Call, _ *protocol.Tool, _ protocol.Scoped) (protocol.Result, error) {
	var p batchParams
	if err := args(call, &p); err != nil {
		return protocol.Result{}, err
	}
	name := strings.TrimSpace(p.CursorName)
	if name == "" {
		return protocol.Result{}, errorf("invalid_arguments", "read_cursor_batch needs cursorName, the name returned when the cursor was created")
	}
	if b.env.Session == nil {
		return protocol.Result{}, errors.New("no book is open for the book tools")
	}
	start := ""
	if p.StartAfterPointer != nil {
		start = strings.TrimSpace(*p.StartAfterPointer)
	}
	info, err := b.env.Session.Cursor(b.env.Book, name)
	if err != nil {
		return protocol.Result{}, domainError(err)
	}
	spec := info.Spec
	spec.Name = "_batch_" + strconv.FormatInt(walkSeq.Add(1), 10)
	spec.IncludeContent = true
	if start != "" {
		spec.StartAfter = start
	}
	if info.DefaultLimits {
		spec.MaxElements, spec.MaxBytes = scanBatchItems, scanBatchBytes
		if len(spec.Keywords) > 0 || spec.Type == cursor.Search {
			spec.MaxElements, spec.MaxBytes = filteredBatchItems, filteredBatchBytes
		}
	}
	if _, err := b.env.Session.CreateCursor(b.env.Book, spec); err != nil {
		return protocol.Result{}, domainError(err)
	}
	defer func() { _ = b.env.Session.DeleteCursor(b.env.Book, spec.Name) }()
	portion, err := b.env.Session.Next(b.env.Book, spec.Name)
	if err != nil {
		return protocol.Result{}, domainError(err)
	}
	items := make([]any, len(portion.Items))
	for i, it := range portion.Items {
		items[i] = agentctx.NewObject("pointer", it.Pointer.String(), "kind", string(it.Kind), "markdown", it.Markdown)
	}
	next := portion.NextAfterPointer
	if len(portion.Items) == 0 {
		next = start
	}
	position := agentctx.NewObject("startAfterPointer", nullable(start), "remaining", json.Number(strconv.Itoa(portion.Remaining)))
	return protocol.Result{Value: agentctx.NewObject("cursorName", name, "items", items, "hasMore", portion.HasMore,
		"nextAfterPointer", next, "position", position)}, nil
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

type evidenceParams struct {
	Pointer string `json:"pointer"`
	Reason  string `json:"reason"`
}

// batchItem is an item of the scoped `batch` kind.
type batchItem struct {
	Pointer  string `json:"pointer"`
	Kind     string `json:"kind"`
	Markdown string `json:"markdown"`
}

// noteEvidence checks one evidence pointer against the scoped `batch` kind
// and returns {pointer, reason, markdown}: the item's canonical pointer, the
// model's reason (trimmed, at most 300 characters) and the item's full
// Markdown, never the model's text. A pointer outside the batch is an error
// the model reads; nothing is written.
func (b *binding) noteEvidence(_ context.Context, call *protocol.Call, _ *protocol.Tool, scoped protocol.Scoped) (protocol.Result, error) {
	var p evidenceParams
	if err := args(call, &p); err != nil {
		return protocol.Result{}, err
	}
	if strings.TrimSpace(p.Pointer) == "" {
		return protocol.Result{}, errorf("invalid_arguments", "note_evidence needs the pointer of a matching item of the current batch")
	}
	var raw json.RawMessage
	ok := false
	if scoped != nil {
		raw, ok = scoped.Kind("batch")
	}
	if !ok {
		return protocol.Result{}, errorf("invalid_arguments", "note_evidence has no batch to check %s against; read one with read_cursor_batch first", p.Pointer)
	}
	var batch struct {
		Items []batchItem `json:"items"`
	}
	if err := json.Unmarshal(raw, &batch); err != nil {
		return protocol.Result{}, fmt.Errorf("the batch is not readable: %w", err)
	}
	it, found := inBatch(batch.Items, p.Pointer)
	if !found {
		return protocol.Result{}, notInBatch(p.Pointer, batch.Items)
	}
	reason := clip(strings.TrimSpace(p.Reason), maxReasonChars)
	return protocol.Result{Value: agentctx.NewObject("pointer", it.Pointer, "reason", reason, "markdown", it.Markdown)}, nil
}

func notInBatch(ptr string, items []batchItem) error {
	if len(items) == 0 {
		return errorf("not_found", "pointer %s is not in the current batch, which is empty; nothing was noted", ptr)
	}
	return errorf("not_found", "pointer %s is not in the current batch (%s … %s); nothing was noted. Note only pointers of the current batch, copied exactly",
		ptr, items[0].Pointer, items[len(items)-1].Pointer)
}

// inBatch finds the batch item a model pointer names, leniently: by ID and
// label, then by label, then by ID alone (a stale label), as the cursor
// agent does.
func inBatch(items []batchItem, s string) (batchItem, bool) {
	q, err := pointer.Parse(s)
	if err != nil {
		return batchItem{}, false
	}
	ps := make([]pointer.Pointer, len(items))
	for i, it := range items {
		ps[i], _ = pointer.Parse(it.Pointer)
	}
	for i, p := range ps {
		if q.ID > 0 && p.ID == q.ID && (q.Label == "" || q.Label == p.Label) {
			return items[i], true
		}
	}
	for i, p := range ps {
		if q.Label != "" && p.Label == q.Label {
			return items[i], true
		}
	}
	for i, p := range ps {
		if q.ID > 0 && p.ID == q.ID {
			return items[i], true
		}
	}
	return batchItem{}, false
}

// domainError classifies an editor or cursor error: failures the model can
// act on become *Error (with booktools' codes), I/O failures stay errors.
func domainError(err error) error {
	var pe *document.PointerError
	switch {
	case errors.Is(err, cursor.ErrSpec), errors.Is(err, cursor.ErrNotDefined), errors.Is(err, cursor.ErrComplete):
		return &Error{Code: "invalid_arguments", Message: err.Error()}
	case errors.As(err, &pe), errors.Is(err, document.ErrNotFound), errors.Is(err, editor.ErrUnknownBook):
		return &Error{Code: "not_found", Message: err.Error()}
	case errors.Is(err, editor.ErrIO):
		return err
	}
	return &Error{Code: "tool_failed", Message: err.Error()}
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
