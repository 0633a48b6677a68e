package reading

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/aitexteditor/aite/internal/bookview"
	"github.com/aitexteditor/aite/internal/cursor"
	"github.com/aitexteditor/aite/internal/document"
)

// CursorRequest describes the one cursor of `aite cursor`.
type CursorRequest struct {
	Keywords    []string // each one keyword: its words ANDed, keywords ORed
	Entry       string   // walk the items naming this codex entry instead
	Targets     string   // or walk the items of this saved target set
	Kinds       []document.Kind
	Regex       string
	Within      string
	MaxElements int // 1..cursor.MaxElementsLimit
	MaxBytes    int // 1..cursor.MaxBytesLimit
	Backward    bool
	StartAfter  string
	NoContent   bool
	NoHeadings  bool
}

// Spec returns the cursor spec: a keyword cursor when keywords are given,
// a filtered one when other filters are, else a full scan.
func (r CursorRequest) Spec() (cursor.Spec, error) {
	t := cursor.FullScan
	switch {
	case btoi(len(r.Keywords) > 0)+btoi(r.Entry != "")+btoi(r.Targets != "") > 1:
		return cursor.Spec{}, Usagef("give one of --keywords, --entry and --targets")
	case len(r.Keywords) > 0:
		t = cursor.Keyword
	case len(r.Kinds) > 0 || r.Regex != "" || r.Within != "":
		t = cursor.Filtered
	}
	// The spec reads 0 as "the default", so the cursor package cannot
	// refuse it: refuse it here, in the cursor package's words.
	for _, f := range []struct {
		name     string
		n, limit int
	}{{"maxElements", r.MaxElements, cursor.MaxElementsLimit}, {"maxBytes", r.MaxBytes, cursor.MaxBytesLimit}} {
		if f.n == 0 {
			return cursor.Spec{}, fmt.Errorf("%w: %s must be between 1 and %d (got 0)", cursor.ErrSpec, f.name, f.limit)
		}
	}
	s := cursor.NewSpec(t)
	s.Keywords, s.Kinds, s.Regex, s.Within = r.Keywords, r.Kinds, r.Regex, r.Within
	s.MaxElements, s.MaxBytes, s.Backward, s.StartAfter = r.MaxElements, r.MaxBytes, r.Backward, r.StartAfter
	s.IncludeContent, s.IncludeHeadings = !r.NoContent, !r.NoHeadings
	return s, nil
}

// Portions creates the cursor and hands each of its portions to emit,
// until the cursor has no more. Pointer errors (of Within or StartAfter)
// carry the nearest items.
func (b *Book) Portions(req CursorRequest, log io.Writer, emit func(cursor.Portion) error) error {
	spec, err := req.Spec()
	if err != nil {
		return err
	}
	var info cursor.Info
	switch {
	case req.Entry != "":
		er, ok := b.r.(EntryReader)
		if !ok {
			return errNoCodex
		}
		info, err = er.EntryCursor(req.Entry, spec)
	case req.Targets != "":
		tr, ok := b.r.(TargetsReader)
		if !ok {
			return errNoTargets
		}
		var gone int
		info, gone, err = tr.TargetsCursor(req.Targets, spec)
		if err == nil {
			NoteGone(log, req.Targets, gone, len(info.IDs))
		}
	default:
		info, err = b.r.CreateCursor(spec)
	}
	if err != nil {
		return b.WithNearest(err)
	}
	for {
		p, err := b.r.Next(info.Name)
		if err != nil {
			return err
		}
		if err := emit(p); err != nil {
			return err
		}
		if !p.HasMore {
			return nil
		}
	}
}

// WriteJSONLine writes v as JSON on one line, without HTML escaping. A
// failed write is an IOError.
func WriteJSONLine(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return &IOError{Err: fmt.Errorf("write output: %w", err)}
	}
	return nil
}

// WritePortion writes the k-th portion (from 1) readably: a header line
// with its item and byte counts, then `POINTER  KIND  excerpt` lines (the
// excerpts only when the portion carries content).
func (b *Book) WritePortion(w io.Writer, k int, p cursor.Portion, content bool) {
	size := 0
	for _, it := range p.Items {
		size += len(it.Markdown)
	}
	fmt.Fprintf(w, "── portion %d: %s, %s ──\n", k, Plural(len(p.Items), "item"), Plural(size, "byte"))
	if !content {
		rows := make([][]string, len(p.Items))
		for i, it := range p.Items {
			rows[i] = []string{it.Pointer.String(), string(it.Kind)}
		}
		WriteColumns(w, rows, "")
		return
	}
	views := make([]bookview.ItemView, 0, len(p.Items))
	for _, it := range p.Items {
		if v, ok := b.ByID(it.Pointer.ID); ok {
			views = append(views, v)
		}
	}
	WriteItemLines(w, views, "")
}
