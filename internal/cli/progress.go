package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/aitexteditor/aite/internal/agent"
	"github.com/aitexteditor/aite/internal/cursor"
)

// Printer shows a run as a person can follow it: the answer streams to
// out; tool calls, cursor-agent progress, advice, edits and results go to
// log (standard error), one short line each.
type Printer struct {
	Out, Log io.Writer
	names    map[string]string // tool id → tool name
	args     map[string]*strings.Builder
	midLine  bool
}

// NewPrinter returns a printer writing the answer to out and progress to log.
func NewPrinter(out, log io.Writer) *Printer {
	return &Printer{Out: out, Log: log, names: map[string]string{}, args: map[string]*strings.Builder{}}
}

// Event shows one event.
func (p *Printer) Event(e agent.Event) {
	switch e.Type {
	case agent.ContentDelta:
		fmt.Fprint(p.Out, e.Delta)
		p.midLine = !strings.HasSuffix(e.Delta, "\n")
	case agent.ToolStart:
		p.endLine()
		p.names[e.ToolID] = e.Call.Name
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
		fmt.Fprintf(p.Log, "▸ %s %s\n", p.names[e.ToolID], args)
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
		p.result(e.Result)
	case agent.AdvisorSnapshot:
		fmt.Fprintf(p.Log, "  ◇ %s %s\n", e.Opinion.ID, cursor.Excerpt(opinionText(e), 160))
	case agent.RunComplete, agent.RunError:
		p.endLine()
		p.finish(e.End)
	}
}

// result shows a call's result: its text, or for a failure its message.
func (p *Printer) result(r *agent.Result) {
	if r.Error != nil {
		fmt.Fprintf(p.Log, "  ✗ %s\n", cursor.Excerpt(r.Error.Message, 160))
		return
	}
	fmt.Fprintf(p.Log, "  ✓ %s\n", cursor.Excerpt(r.Text, 160))
}

// opinionText is an advisor's answer as one line of JSON.
func opinionText(e agent.Event) string {
	if e.Opinion.Answer == nil {
		return ""
	}
	b, err := e.Opinion.Answer.MarshalJSON()
	if err != nil {
		return ""
	}
	return string(b)
}

func (p *Printer) finish(end *agent.End) {
	if end.Error != nil {
		fmt.Fprintf(p.Log, "✗ the run ended: %s: %s\n", end.Error.Code, end.Error.Message)
	}
	if t := end.Usage; t.InputTokens > 0 || t.OutputTokens > 0 {
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
