package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/reading"
)

// Undo restores a book file from its command journal.
func Undo(out, log io.Writer, book string, backup, force, asJSON bool) error {
	defer reading.LimitMemory(book)()
	c, err := editor.UndoCommand(book, backup, force)
	switch {
	case errors.Is(err, editor.ErrNoCommand), errors.Is(err, editor.ErrChanged):
		return reading.Usagef("%v", err)
	case errors.Is(err, editor.ErrReadOnly):
		return writeError(book, err)
	case err != nil:
		return &reading.IOError{Err: err}
	}
	if asJSON {
		return json.NewEncoder(out).Encode(map[string]any{"undone": c.Label, "time": c.Time, "edits": c.Edits, "path": book})
	}
	fmt.Fprintf(log, "restored %s as it was before %q (%d edit(s), written %s)\n", book, c.Label, c.Edits, c.Time.Format("2006-01-02 15:04"))
	return nil
}
