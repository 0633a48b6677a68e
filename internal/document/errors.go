package document

import "errors"

// Sentinel errors of refused edits; every refusal wraps one of them (or
// ErrNotFound / pointer.ErrSyntax for bad pointers) with a message that says
// why and what to do instead.
var (
	// ErrEmptyText: the new text is empty where an item needs content.
	ErrEmptyText = errors.New("edit refused (empty text)")
	// ErrHeading: the edit would create, remove or change the level of a heading.
	ErrHeading = errors.New("edit refused (headings)")
	// ErrStructure: the spliced source would not re-parse to the expected
	// items (a merge with a neighbour, a split into several blocks, a change
	// to another item or container).
	ErrStructure = errors.New("edit refused")
	// ErrUnsupported: the operation is not available for this item.
	ErrUnsupported = errors.New("edit refused (not possible here)")
	// ErrNothingToUndo: the journal holds no edit to undo.
	ErrNothingToUndo = errors.New("nothing to undo")
)

// ErrIDs is wrapped by the errors of RestoreIDs: the IDs do not fit the
// document (wrong count, not positive, repeated, not below the next ID) or
// the document has already been edited.
var ErrIDs = errors.New("invalid item IDs")
