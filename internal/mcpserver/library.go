package mcpserver

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/tool"
)

// ErrNotFound is wrapped by Library.Open for a document that does not
// exist or that the caller may not see.
var ErrNotFound = errors.New("document not found")

// Document describes one document of a library.
type Document struct {
	ID       string `json:"documentId"`
	Name     string `json:"name"`
	Items    int    `json:"items"`
	Revision int    `json:"revision,omitempty"`
}

// Library is the set of documents one caller may work on.
type Library interface {
	// Documents lists them, most recently changed first.
	Documents(ctx context.Context) ([]Document, error)
	// Open returns a document by ID ("" names the only document of a
	// one-book library); an unknown or hidden one wraps ErrNotFound.
	Open(ctx context.Context, id string) (Book, error)
}

// Check runs under an edit's lock, on the session about to be edited,
// before the edit: a non-nil result refuses the edit with it.
type Check func(s *editor.Session, id string) *tool.Result

// Book is one open document.
type Book interface {
	// Call runs the book tool name (booktools.Tools, bound to the
	// document) under the document's lock (booktools.Unlocked tools
	// without it); the edits it applies are committed the host's way (a
	// revision in the server; a save with backup and undo journal for a
	// book file) before it returns. check, when not nil, runs first under
	// the same lock, so nothing changes the document between the check and
	// the call.
	Call(ctx context.Context, name string, args json.RawMessage, check Check) (tool.Result, error)
	// Read runs fn under the document's lock with its editor session and
	// the document's ID in that session.
	Read(ctx context.Context, fn func(s *editor.Session, id string) error) error
	// Name is the document's name for people (a file name, a title).
	Name() string
}
