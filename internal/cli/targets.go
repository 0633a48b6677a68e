package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/aitexteditor/aite/internal/cursor"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/reading"
)

// SavedSetJSON describes a saved target set.
type SavedSetJSON struct {
	Name  string    `json:"name"`
	Count int       `json:"count"`
	Saved time.Time `json:"saved"`
	Note  string    `json:"note,omitempty"`
}

// WriteTargetSets lists a book's saved target sets.
func WriteTargetSets(w io.Writer, b *Book, asJSON bool) error {
	sets, err := editor.SavedTargetSets(b.id)
	if err != nil {
		return &reading.IOError{Err: err}
	}
	out := []SavedSetJSON{}
	for _, n := range editor.SavedSetNames(sets) {
		s := sets[n]
		out = append(out, SavedSetJSON{Name: n, Count: s.Count, Saved: s.Saved, Note: s.Note})
	}
	if asJSON {
		return reading.WriteJSON(w, out)
	}
	if len(out) == 0 {
		fmt.Fprintln(w, "no saved target sets (aite navigate BOOK TASK --mode collect --save NAME makes one)")
	}
	rows := make([][]string, len(out))
	for i, s := range out {
		rows[i] = []string{s.Name, reading.Plural(s.Count, "item"), s.Saved.Local().Format("2006-01-02 15:04"), s.Note}
	}
	reading.WriteColumns(w, rows, "")
	return nil
}

// TargetSetJSON is a saved target set's items as they are now.
type TargetSetJSON struct {
	Name  string          `json:"name"`
	Items []cursor.Target `json:"items"`
	// Gone counts the saved items that no longer exist (deleted, or
	// rewritten by another program).
	Gone int `json:"gone"`
}

// WriteTargetSet lists the items of one saved target set.
func WriteTargetSet(w io.Writer, b *Book, name string, asJSON bool) error {
	ids, gone, err := b.SavedSet(name)
	if err != nil {
		return err
	}
	out := TargetSetJSON{Name: name, Items: []cursor.Target{}, Gone: gone}
	for _, id := range ids {
		it, _ := b.ByID(id)
		out.Items = append(out.Items, cursor.Target{Pointer: it.Pointer, Kind: it.Kind, Excerpt: reading.Excerpt(it, reading.ExcerptRunes)})
	}
	if asJSON {
		return reading.WriteJSON(w, out)
	}
	rows := make([][]string, len(out.Items))
	for i, t := range out.Items {
		rows[i] = []string{t.Pointer.String(), string(t.Kind), t.Excerpt}
	}
	reading.WriteColumns(w, rows, "")
	if out.Gone > 0 {
		fmt.Fprintf(w, "(%s of the set no longer %s)\n", reading.Plural(out.Gone, "item"), reading.ExistVerb(out.Gone))
	}
	return nil
}
