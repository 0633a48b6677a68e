package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/pointer"
	"github.com/aitexteditor/aite/internal/reading"
)

// EditOpNames lists the operation names of `aite edit`, in help order.
var EditOpNames = []string{"replace", "insert-before", "insert-after", "delete", "append"}

var editOps = map[string]document.Op{
	"replace":       document.OpReplace,
	"insert-before": document.OpInsertBefore,
	"insert-after":  document.OpInsertAfter,
	"delete":        document.OpDelete,
	"append":        document.OpAppend,
}

// ParseEditOp maps a command-line operation name (`insert-before`, also
// the domain spelling `insert_before`) to the domain operation.
func ParseEditOp(name string) (document.Op, error) {
	if op, ok := editOps[strings.ReplaceAll(strings.ToLower(name), "_", "-")]; ok {
		return op, nil
	}
	return "", reading.Usagef("unknown operation %q; valid operations: %s", name, strings.Join(EditOpNames, ", "))
}

// EditRequest describes one edit of a book file.
type EditRequest struct {
	Book    string
	Op      document.Op
	Pointer string // unused by append
	Text    string // the new Markdown; unused by delete
	Out     string // where to write; "" writes back to Book
	DryRun  bool
	Backup  bool
	Force   bool      // write a read-only book
	Log     io.Writer // notes about the book's IDs and pointers; may be nil
}

// EditOutcome reports an applied edit.
type EditOutcome struct {
	Result  document.EditResult
	Diff    string // unified diff of the book, "" when nothing changed
	Written bool
	Path    string // the file written (or that would be written)
	Backup  string // the backup made, "" when none
	// Pointer is the affected item's pointer in the edited book (for a
	// delete, the deleted item's pointer). The IDs are recorded with the
	// book, so the next command reads it the same.
	Pointer pointer.Pointer
	// Anchor is the target's current pointer in the edited book (an insert
	// can shift its label); zero after a delete.
	Anchor pointer.Pointer
}

// Edit opens the book, applies the operation, diffs the result and, unless
// it is a dry run, writes it atomically with its IDs recorded, journaled so
// `aite undo` restores the version before. A refused edit writes nothing.
// An edit that changes no byte does not rewrite the book in place.
func Edit(req EditRequest) (EditOutcome, error) {
	log := req.Log
	if log == nil {
		log = io.Discard
	}
	defer reading.LimitMemory(req.Book)() // the edit and the write too, not only the open
	b, err := Open(req.Book, log)
	if err != nil {
		return EditOutcome{}, err
	}
	defer b.Close()
	if n := b.LabelNote(req.Pointer); n != "" && req.Op != document.OpAppend {
		fmt.Fprintln(log, n)
	}
	res, err := b.apply(req)
	if err != nil {
		return EditOutcome{}, b.WithNearest(err)
	}
	out, err := b.outcome(req, res)
	if err != nil || req.DryRun || (req.Out == "" && out.Diff == "") {
		return out, err
	}
	return out, b.save(&out, req)
}

// apply runs the operation; a stale pointer is refused first.
func (b *Book) apply(req EditRequest) (document.EditResult, error) {
	if req.Op == document.OpAppend {
		return b.s.Edit(b.id, req.Op, "", req.Text)
	}
	if err := b.Stale(req.Pointer); err != nil {
		return document.EditResult{}, err
	}
	return b.s.Edit(b.id, req.Op, req.Pointer, req.Text)
}

// outcome describes an applied edit.
func (b *Book) outcome(req EditRequest, res document.EditResult) (EditOutcome, error) {
	diff, err := b.s.Diff(b.id)
	if err != nil {
		return EditOutcome{}, err
	}
	out := EditOutcome{Result: res, Path: req.Book, Pointer: res.Pointer, Diff: renameDiff(diff, b.id)}
	if req.Out != "" {
		out.Path = req.Out
	}
	if it, ok := b.ByID(res.Target.ID); ok {
		out.Anchor = it.Pointer
	}
	return out, nil
}

// save writes the edited book to out.Path (the book's own file unless
// --output) and records what was written.
func (b *Book) save(out *EditOutcome, req EditRequest) error {
	bak := ""
	if req.Backup {
		bak = backupPath(out.Path) // next to a symlink's target, unlike SaveResult.Backup
	}
	res, err := b.s.Save(b.id, editor.SaveOptions{Path: req.Out, Backup: req.Backup, ForceReadOnly: req.Force,
		Record: editLabel(req, *out)})
	if err != nil {
		return writeError(out.Path, err)
	}
	if res.Warning != "" && req.Log != nil {
		fmt.Fprintf(req.Log, "aite: warning: %s\n", res.Warning)
	}
	out.Written = res.Written
	if res.Written {
		out.Backup = bak
	}
	return nil
}

// editLabel names an edit in the book's journal, e.g. "aite edit replace
// 24:1.1.p21".
func editLabel(req EditRequest, out EditOutcome) string {
	name := strings.ReplaceAll(string(req.Op), "_", "-")
	if req.Op == document.OpAppend {
		return "aite edit append"
	}
	return "aite edit " + name + " " + out.Result.Target.String()
}

// writeError reports a failed write of path: a read-only book says how to
// go on.
func writeError(path string, err error) error {
	if errors.Is(err, editor.ErrReadOnly) {
		return ioErrorf("%s is read-only: nothing was written. Make it writable (chmod u+w %s) or pass --force to replace it anyway", path, path)
	}
	return ioErrorf("cannot write %s: %w", path, ioCause(err))
}

// renameDiff replaces the file names of the session's diff headers (the
// book ID as given) with diffName's.
func renameDiff(diff, id string) string {
	old := filepath.ToSlash(id)
	head := "--- a/" + old + "\n+++ b/" + old + "\n"
	rest, ok := strings.CutPrefix(diff, head)
	if !ok {
		return diff
	}
	name := diffName(id)
	return "--- a/" + name + "\n+++ b/" + name + "\n" + rest
}

// diffName is the book path as diff headers show it: slash-separated,
// without a leading slash or "./".
func diffName(path string) string {
	p := filepath.ToSlash(filepath.Clean(path))
	return strings.TrimLeft(p, "/")
}

// EditJSON is the JSON shape of an edit report.
type EditJSON struct {
	Op             document.Op     `json:"op"`
	Target         pointer.Pointer `json:"target"`
	Pointer        pointer.Pointer `json:"pointer"`
	MarkdownBefore string          `json:"markdownBefore"`
	MarkdownAfter  string          `json:"markdownAfter"`
	Diff           string          `json:"diff"`
	Written        bool            `json:"written"`
	Path           string          `json:"path"`
	Backup         string          `json:"backup,omitempty"`
}

// NewEditJSON returns the JSON shape of an outcome.
func NewEditJSON(o EditOutcome) EditJSON {
	r := o.Result
	return EditJSON{Op: r.Op, Target: r.Target, Pointer: o.Pointer, MarkdownBefore: r.MarkdownBefore,
		MarkdownAfter: r.MarkdownAfter, Diff: o.Diff, Written: o.Written, Path: o.Path, Backup: o.Backup}
}

// WriteEditStatus writes the one-line summary of an edit, e.g.
// `replaced 24:1.1.p21 → wrote BOOK.md (backup BOOK.md.bak)`.
func WriteEditStatus(w io.Writer, o EditOutcome, dryRun bool) {
	what := describeEdit(o.Result.Op, o.Result.Target, o.Pointer, o.Anchor)
	switch {
	case dryRun:
		fmt.Fprintf(w, "dry run: %s → nothing written\n", what)
	case !o.Written:
		fmt.Fprintf(w, "%s → no change, nothing written\n", what)
	case o.Backup != "":
		fmt.Fprintf(w, "%s → wrote %s (backup %s)\n", what, o.Path, o.Backup)
	default:
		fmt.Fprintf(w, "%s → wrote %s (no backup)\n", what, o.Path)
	}
}

func describeEdit(op document.Op, target, ptr, anchor pointer.Pointer) string {
	if anchor.IsZero() {
		anchor = target
	}
	switch op {
	case document.OpReplace:
		return "replaced " + ptr.String()
	case document.OpInsertBefore:
		return fmt.Sprintf("inserted %s before %s", ptr, anchor)
	case document.OpInsertAfter:
		return fmt.Sprintf("inserted %s after %s", ptr, anchor)
	case document.OpDelete:
		return "deleted " + target.String()
	case document.OpAppend:
		return "appended " + ptr.String()
	}
	return string(op) + " " + target.String()
}
