package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/aitexteditor/aite/internal/agent"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/reading"
	"github.com/aitexteditor/aite/internal/textdiff"
)

// AskRequest is one plain-language command on a book.
type AskRequest struct {
	Book, Command string
	Model         Model
	// Agent is the key of the agent to run (DefaultAgent when empty): any
	// agent the server runs, built-in or from the definition directories
	// of the server's configuration (Config, else $AITE_CONFIG or
	// ./aite.json).
	Agent, Config string
	Yes, DryRun   bool
	In            io.Reader
	Out, Log      io.Writer
	Interactive   bool // standard input is a terminal
	// MaxSteps bounds the agent's model turns with tools (REACT steps, a
	// protocol agent's maxTurns); 0 keeps the agent's own.
	MaxSteps int
	Force    bool // write a read-only book
	JSON     bool // print the outcome as JSON (AskJSON) instead of the answer and the diff
	Context  int  // characters of context in long diff lines (textdiff.Trim); 0: the default
}

// CheckAsk validates a command and its flags before any model is loaded or
// contacted.
func CheckAsk(command string, yes, dryRun bool, maxSteps int) error {
	switch {
	case strings.TrimSpace(command) == "":
		return reading.Usagef("the COMMAND is empty: say what to do with the book, e.g. aite ask book.md \"where does Varya first appear?\"")
	case yes && dryRun:
		return reading.Usagef("--yes writes the edits and --dry-run never writes: give one of them")
	case maxSteps < 1 || maxSteps > 100:
		return reading.Usagef("--max-steps must be between 1 and 100 (got %d)", maxSteps)
	}
	return nil
}

// AskJSON is the JSON shape of `aite ask --json`.
type AskJSON struct {
	Answer string        `json:"answer"`
	Edits  []RunEditJSON `json:"edits"`
	Diff   string        `json:"diff"`
	// Written says whether the edits were written to the book.
	Written bool `json:"written"`
	// OutOfSteps: the model used all its turns with tools (--max-steps);
	// nothing is written then.
	OutOfSteps bool     `json:"outOfSteps,omitempty"`
	Error      string   `json:"error,omitempty"`
	Usage      AskUsage `json:"usage"`
}

// RunEditJSON is one edit of a run: the pointer it named before and the
// pointer of the affected item after.
type RunEditJSON struct {
	Op         string `json:"op"`
	Pointer    string `json:"pointer"`
	NewPointer string `json:"newPointer,omitempty"`
	Before     string `json:"before,omitempty"`
	After      string `json:"after,omitempty"`
}

// AskUsage is what a run spent.
type AskUsage struct {
	InputTokens  int     `json:"inputTokens"`
	OutputTokens int     `json:"outputTokens"`
	Cost         float64 `json:"cost,omitempty"`
}

// askOutcome collects the JSON shape of a run from its events.
func askOutcome(evs []agent.Event) AskJSON {
	out := AskJSON{Edits: []RunEditJSON{}}
	for _, e := range evs {
		switch {
		case e.Type == agent.DocumentEdit && e.Edit != nil:
			out.Edits = append(out.Edits, RunEditJSON{Op: e.Edit.Op, Pointer: e.Edit.Pointer, NewPointer: e.Edit.NewPointer,
				Before: e.Edit.Before, After: e.Edit.After})
		case e.Type == agent.RunComplete || e.Type == agent.RunError:
			out.Answer, out.OutOfSteps = e.End.Answer, e.End.OutOfSteps
			u := e.End.Usage
			out.Usage = AskUsage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, Cost: u.Cost}
		}
	}
	return out
}

// ErrNotWritten is returned when edits were made but not written because
// nobody could confirm them.
var ErrNotWritten = errors.New("edits not written")

// RunCommand runs the agent of req once over an open book, showing the
// run with a printer (the answer goes to Out unless JSON), and returns the
// run's events.
func RunCommand(ctx context.Context, b *Book, req AskRequest) ([]agent.Event, error) {
	term := newTerminal(req.In, req.Log, req.Interactive, req.Yes)
	s, err := newAgentSession(b, req, term)
	if err != nil {
		return nil, err
	}
	defer s.close()
	return s.run(ctx, req.Command, newPrinterFor(req))
}

// newPrinterFor returns the printer of a command: no answer on Out with
// --json.
func newPrinterFor(req AskRequest) *Printer {
	answer := req.Out
	if req.JSON {
		answer = io.Discard
	}
	return NewPrinter(answer, req.Log)
}

// Ask runs one command on a book file and, when it edited the book, shows
// the diff and writes the book only after confirmation (or --yes). A run
// that failed, was canceled or used up its --max-steps writes nothing and
// is an error (exit 1), and so are edits nobody could confirm.
func Ask(ctx context.Context, req AskRequest) error {
	if err := CheckAsk(req.Command, req.Yes, req.DryRun, max(req.MaxSteps, 1)); err != nil {
		return err
	}
	b, err := Open(req.Book, req.Log)
	if err != nil {
		return err
	}
	defer b.Close()
	term := newTerminal(req.In, req.Log, req.Interactive, req.Yes)
	s, err := newAgentSession(b, req, term)
	if err != nil {
		return err
	}
	defer s.close()
	evs, err := s.run(ctx, req.Command, newPrinterFor(req))
	out := askOutcome(evs)
	if err == nil && out.OutOfSteps {
		err = fmt.Errorf("the model ran out of steps (%d turns with tools) before it finished; run again with a larger --max-steps",
			maxSteps(s.agent))
		fmt.Fprintf(req.Log, "aite: %v\n", err)
	}
	if err != nil {
		err = fmt.Errorf("nothing written: %w", err)
		out.Error = err.Error()
		out.Diff, _ = b.s.Diff(b.id)
	} else {
		err = b.confirmAndSave(ctx, req, term, req.Command, &out)
	}
	if req.JSON {
		if werr := reading.WriteJSON(req.Out, out); werr != nil {
			return werr
		}
	}
	return err
}

// confirmAndSave shows the diff of the session's edits and writes them when
// allowed, recording what happened in out.
func (b *Book) confirmAndSave(ctx context.Context, req AskRequest, term *terminal, label string, out *AskJSON) error {
	diff, err := b.s.Diff(b.id)
	if err != nil || diff == "" {
		return err
	}
	out.Diff = diff
	if !req.JSON {
		fmt.Fprint(req.Out, "\n"+textdiff.Trim(diff, req.Context))
	}
	n := b.unsavedEdits()
	switch {
	case req.DryRun:
		fmt.Fprintf(req.Log, "dry run: %d edit(s) not written\n", n)
		return nil
	case req.Yes:
	case !req.Interactive:
		err := &reading.UsageError{Err: fmt.Errorf("%w: standard input is not a terminal, so nobody could confirm the %d edit(s); run again with --yes to write them (or --dry-run to only see them)", ErrNotWritten, n)}
		out.Error = err.Error()
		return err
	default:
		if ok, _ := term.yesNo(ctx, fmt.Sprintf("Write %d edit(s) to %s?", n, req.Book)); !ok {
			fmt.Fprintln(req.Log, "not written")
			return nil
		}
	}
	res, err := b.s.Save(b.id, editor.SaveOptions{Backup: true, Record: label, ForceReadOnly: req.Force})
	if err != nil {
		err = writeError(req.Book, err)
		out.Error = err.Error()
		return err
	}
	out.Written = true
	fmt.Fprintf(req.Log, "wrote %s (backup %s); `aite undo %s` restores the previous version\n", res.Path, res.Backup, req.Book)
	return nil
}

func (b *Book) unsavedEdits() int {
	for _, info := range b.s.Books() {
		if info.ID == b.id {
			return info.Unsaved
		}
	}
	return 0
}
