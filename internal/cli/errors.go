package cli

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/editor"
)

// IOError marks an error as an I/O failure (exit code 2).
type IOError struct{ Err error }

func (e *IOError) Error() string { return e.Err.Error() }

func (e *IOError) Unwrap() error { return e.Err }

// ioErrorf returns an IOError with a formatted message.
func ioErrorf(format string, args ...any) error {
	return &IOError{Err: fmt.Errorf(format, args...)}
}

// UsageError marks bad flags or arguments; its report points to --help.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }

func (e *UsageError) Unwrap() error { return e.Err }

// Usagef returns a UsageError with a formatted message.
func Usagef(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// PointerError is a document.PointerError together with the items its
// nearest pointers name, so the report can show what they are.
type PointerError struct {
	*document.PointerError
	Items []editor.ItemView
}

// Unwrap gives errors.As access to the document.PointerError.
func (e *PointerError) Unwrap() error { return e.PointerError }

// WithNearest attaches the items named by a pointer error's nearest pointers
// to err; any other error is returned unchanged.
func (b *Book) WithNearest(err error) error {
	var pe *document.PointerError
	if !errors.As(err, &pe) {
		return err
	}
	out := &PointerError{PointerError: pe}
	for _, p := range pe.Nearest {
		if it, ok := b.byID(p.ID); ok {
			out.Items = append(out.Items, it)
		}
	}
	return out
}

// ExitCode returns the exit code for an error: ExitOK for nil, ExitIO for
// I/O errors (IOError, editor.ErrIO) and ExitUsage for everything else.
func ExitCode(err error) int {
	var ioe *IOError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ioe), errors.Is(err, editor.ErrIO):
		return ExitIO
	}
	return ExitUsage
}

// errorJSON is the JSON shape of an error report.
type errorJSON struct {
	Error   string   `json:"error"`
	Nearest []string `json:"nearest,omitempty"`
}

// ReportError writes err to w, as JSON or as text, and returns its exit
// code. hint (may be empty) follows text reports of UsageErrors.
func ReportError(w io.Writer, err error, asJSON bool, hint string) int {
	code := ExitCode(err)
	var pe *document.PointerError
	isPtr := errors.As(err, &pe)
	if asJSON {
		e := errorJSON{Error: err.Error()}
		if isPtr {
			e.Error = pointerMessage(pe)
			for _, p := range pe.Nearest {
				e.Nearest = append(e.Nearest, p.String())
			}
		}
		_ = WriteJSON(w, e) // nowhere left to report a failing stderr
		return code
	}
	if isPtr {
		writePointerError(w, err, pe)
		return code
	}
	fmt.Fprintf(w, "aite: %s\n", err)
	var ue *UsageError
	if hint != "" && errors.As(err, &ue) {
		fmt.Fprintln(w, hint)
	}
	return code
}

// pointerMessage is the error message without the list of nearest pointers.
func pointerMessage(pe *document.PointerError) string {
	q := strconv.Quote(pe.Input)
	return fmt.Sprintf("pointer %s: %s", q, pe.Reason)
}

func writePointerError(w io.Writer, err error, pe *document.PointerError) {
	fmt.Fprintf(w, "aite: %s\n", pointerMessage(pe))
	var ce *PointerError
	if errors.As(err, &ce) && len(ce.Items) > 0 {
		fmt.Fprintln(w, "nearest pointers:")
		WriteItemLines(w, ce.Items, "  ")
		return
	}
	if len(pe.Nearest) > 0 {
		s := make([]string, len(pe.Nearest))
		for i, p := range pe.Nearest {
			s[i] = p.String()
		}
		fmt.Fprintf(w, "nearest pointers: %s\n", strings.Join(s, ", "))
	}
}
