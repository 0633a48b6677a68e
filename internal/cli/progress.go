package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/aitexteditor/aite/internal/cursor"

	"github.com/aitexteditor/aite/internal/agent"
)

// Printer shows a run as a person can follow it: the answer streams to
// out; tool calls, cursor-agent progress, edits and results go to log
// (standard error), one short line each.
type Printer struct {
	Out, Log io.Writer
	args     map[string]*strings.Builder
	midLine  bool
}

// NewPrinter returns a printer writing the answer to out and progress to log.
func NewPrinter(out, log io.Writer) *Printer {
	return &Printer{Out: out, Log: log, args: map[string]*strings.Builder{}}
}

// Event shows one event.
func (p *Printer) Event(e agent.Event) {
	switch e.Type {
	case agent.ContentDelta:
		fmt.Fprint(p.Out, e.Delta)
		p.midLine = !strings.HasSuffix(e.Delta, "\n")
	case agent.ToolStart:
		p.endLine()
		p.args[e.ToolID] = &strings.Builder{}
	case agent.ToolArgs:
		if b := p.args[e.ToolID]; b != nil {
			b.WriteString(e.Delta)
		}
	case agent.ToolEnd:
		args := ""
		if b := p.args[e.ToolID]; b != nil {
			args = cursor.Excerpt(b.String(), 160)
		}
		fmt.Fprintf(p.Log, "▸ %s %s\n", e.ToolName, args)
	case agent.ToolProgress:
		if e.Progress.Kind == "user_message" {
			fmt.Fprintf(p.Log, "  » %s\n", e.Progress.Message)
		} else {
			fmt.Fprintf(p.Log, "  … %s\n", e.Progress.Message)
		}
	case agent.DocumentEdit:
		to := e.Edit.NewPointer
		if to == "" {
			to = "(deleted)"
		}
		fmt.Fprintf(p.Log, "  ✎ %s %s → %s\n", e.Edit.Op, e.Edit.Pointer, to)
	case agent.ToolResult:
		mark := "✓"
		if e.Result.IsError {
			mark = "✗"
		}
		fmt.Fprintf(p.Log, "  %s %s\n", mark, cursor.Excerpt(e.Result.Text, 160))
	case agent.RunComplete, agent.RunError:
		p.endLine()
		p.finish(e)
	}
}

func (p *Printer) finish(e agent.Event) {
	if e.Error != nil {
		fmt.Fprintf(p.Log, "✗ the run ended: %s: %s\n", e.Error.Code, e.Error.Message)
	}
	if t := e.Total; t != nil && (t.InputTokens > 0 || t.OutputTokens > 0) {
		cost := ""
		if t.Cost > 0 {
			cost = fmt.Sprintf(", cost %.4f", t.Cost)
		}
		fmt.Fprintf(p.Log, "(model: %d input + %d output tokens%s)\n", t.InputTokens, t.OutputTokens, cost)
	}
}

func (p *Printer) endLine() {
	if p.midLine {
		fmt.Fprintln(p.Out)
		p.midLine = false
	}
}
