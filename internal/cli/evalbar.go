package cli

import (
	"fmt"
	"io"

	"github.com/aitexteditor/aite/internal/eval"
)

// evalBar shows an evaluation's progress on standard error: a bar redrawn
// in place on a terminal, one line per command otherwise.
type evalBar struct {
	w        io.Writer
	terminal bool
	drawn    bool
}

func newEvalBar(w io.Writer, terminal bool) *evalBar { return &evalBar{w: w, terminal: terminal} }

func (b *evalBar) update(p eval.Progress) {
	what := p.Task
	if p.Step > 0 {
		what = fmt.Sprintf("%s step %d", p.Task, p.Step)
	}
	how := string(p.Result)
	if p.Resumed {
		how += " (kept)"
	}
	spent := fmt.Sprintf("%d calls, %s tokens", p.Calls, eval.Tokens(p.Tokens))
	if p.Cost > 0 {
		spent += fmt.Sprintf(", cost %.4f", p.Cost)
	}
	if !b.terminal {
		fmt.Fprintf(b.w, "[%d/%d] %s: %s (%s so far)\n", p.Done, p.Total, what, how, spent)
		return
	}
	fmt.Fprint(b.w, barLine(p.Done, p.Total, fmt.Sprintf("%d/%d %s: %s · %s", p.Done, p.Total, what, how, spent)))
	b.drawn = true
}

// end finishes the bar's line.
func (b *evalBar) end() {
	if b.drawn {
		fmt.Fprintln(b.w)
	}
}
