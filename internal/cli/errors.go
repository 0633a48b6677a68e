package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/reading"
)

// ioErrorf returns an I/O error (exit code 2) with a formatted message.
func ioErrorf(format string, args ...any) error {
	return &reading.IOError{Err: fmt.Errorf(format, args...)}
}

// ExitCode returns the exit code for an error: ExitOK for nil, ExitIO for
// I/O errors (reading.IOError, editor.ErrIO) and ExitUsage for everything else.
func ExitCode(err error) int {
	var ioe *reading.IOError
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
			e.Error = reading.PointerMessage(pe)
			for _, p := range pe.Nearest {
				e.Nearest = append(e.Nearest, p.String())
			}
		}
		_ = reading.WriteJSON(w, e) // nowhere left to report a failing stderr
		return code
	}
	if isPtr {
		writePointerError(w, err, pe)
		return code
	}
	fmt.Fprintf(w, "aite: %s\n", err)
	var ue *reading.UsageError
	if hint != "" && errors.As(err, &ue) {
		fmt.Fprintln(w, hint)
	}
	return code
}

func writePointerError(w io.Writer, err error, pe *document.PointerError) {
	fmt.Fprintf(w, "aite: %s\n", reading.PointerMessage(pe))
	var ce *reading.PointerError
	if errors.As(err, &ce) && len(ce.Items) > 0 {
		fmt.Fprintln(w, "nearest pointers:")
		reading.WriteItemLines(w, ce.Items, "  ")
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
