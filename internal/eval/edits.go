package eval

import (
	"bytes"
	"fmt"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/markdown"
)

// applyEdit returns src with the domain operation applied, its items
// carrying ids and next (nil: 1..N), exactly as the editor applies it for
// an agent: what the book must be after a right edit.
func applyEdit(src []byte, ids []int, next int, op EditOp) ([]byte, error) {
	d := markdown.Parse(bytes.Clone(src))
	if ids != nil {
		if err := d.RestoreIDs(ids, next); err != nil {
			return nil, err
		}
	}
	var err error
	switch document.Op(op.Op) {
	case document.OpReplace:
		_, err = d.ReplaceText(op.Pointer, op.Markdown)
	case document.OpInsertAfter:
		_, err = d.InsertAfter(op.Pointer, op.Markdown)
	case document.OpInsertBefore:
		_, err = d.InsertBefore(op.Pointer, op.Markdown)
	case document.OpDelete:
		_, err = d.Delete(op.Pointer)
	default:
		err = fmt.Errorf("unknown operation %q", op.Op)
	}
	if err != nil {
		return nil, fmt.Errorf("the gold edit %s %s: %w", op.Op, op.Pointer, err)
	}
	return bytes.Clone(d.Source()), nil
}

// withLastSentence replaces the last sentence of md (which starts at
// start) with s.
func withLastSentence(md string, start int, s string) string {
	return md[:start] + s
}
