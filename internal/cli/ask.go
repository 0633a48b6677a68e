package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/aitexteditor/aite/internal/agent"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/tool/booktools"
)

// AskRequest is one plain-language command on a book.
type AskRequest struct {
	Book, Command  string
	Model          Model
	Yes, DryRun    bool
	In             io.Reader
	Out, Log       io.Writer
	Interactive    bool // standard input is a terminal
	History        []llm.Message
	MaxSteps       int // 0: agent.DefaultMaxSteps
	NoSaveMessages bool
	Force          bool // write a read-only book
}

// ErrNotWritten is returned when edits were made but not written because
// nobody could confirm them.
var ErrNotWritten = errors.New("edits not written")

// AgentConfig is the command agent over a book.
func AgentConfig(b *Book, m Model, maxSteps int) agent.Config {
	env := booktools.Env{Session: b.Session(), Book: b.ID(), Agent: m.CursorAgent(b)}
	return agent.Config{Provider: m.Provider, Model: m.Info.ModelID, System: booktools.SystemPrompt,
		Tools: booktools.Registry(env), MaxSteps: maxSteps}
}

// RunCommand runs the command agent once over an open book, showing the
// run with a printer, and returns the run's events.
func RunCommand(ctx context.Context, b *Book, req AskRequest) ([]agent.Event, error) {
	pr := NewPrinter(req.Out, req.Log)
	var evs []agent.Event
	for e := range AgentConfig(b, req.Model, req.MaxSteps).Run(ctx, req.History, req.Command) {
		pr.Event(e)
		evs = append(evs, e)
	}
	last := evs[len(evs)-1]
	if last.Type == agent.RunError {
		return evs, fmt.Errorf("%s: %s", last.Error.Code, last.Error.Message)
	}
	return evs, nil
}

// Ask runs one command on a book file and, when it edited the book, shows
// the diff and writes the book only after confirmation (or --yes).
func Ask(ctx context.Context, req AskRequest) error {
	b, err := Open(req.Book, req.Log)
	if err != nil {
		return err
	}
	defer b.Close()
	if _, err := RunCommand(ctx, b, req); err != nil {
		return fmt.Errorf("nothing written: %w", err)
	}
	return b.confirmAndSave(req, req.Command)
}

// confirmAndSave shows the diff of the session's edits and writes them when
// allowed.
func (b *Book) confirmAndSave(req AskRequest, label string) error {
	diff, err := b.s.Diff(b.id)
	if err != nil || diff == "" {
		return err
	}
	fmt.Fprint(req.Out, "\n"+diff)
	n := b.unsavedEdits()
	switch {
	case req.DryRun:
		fmt.Fprintf(req.Log, "dry run: %d edit(s) not written\n", n)
		return nil
	case req.Yes:
	case !req.Interactive:
		return &UsageError{Err: fmt.Errorf("%w: standard input is not a terminal, so nobody could confirm the %d edit(s); run again with --yes to write them (or --dry-run to only see them)", ErrNotWritten, n)}
	default:
		if !confirm(req.In, req.Log, fmt.Sprintf("Write %d edit(s) to %s? [y/N] ", n, req.Book)) {
			fmt.Fprintln(req.Log, "not written")
			return nil
		}
	}
	res, err := b.s.Save(b.id, editor.SaveOptions{Backup: true, Record: label, ForceReadOnly: req.Force})
	if err != nil {
		return writeError(req.Book, err)
	}
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

// confirm asks a yes/no question on log and reads the answer from in.
func confirm(in io.Reader, log io.Writer, question string) bool {
	fmt.Fprint(log, question)
	line, _ := bufio.NewReader(in).ReadString('\n')
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes" || a == "д" || a == "да"
}
