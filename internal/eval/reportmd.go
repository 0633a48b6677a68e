package eval

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// WriteMarkdown writes the report for people: what was measured, the
// summary table per family, the relay, every task, and how to read it.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# aite eval: %s on %s\n\n", r.Model, r.Book)
	r.writeHeader(&b)
	b.WriteString("\n## Summary\n\n")
	b.WriteString("| family | tasks | exact | wrong | failed | mean calls | ρ | cost | tokens in / out | time |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, f := range r.Families {
		writeRow(&b, f, f.Name)
	}
	writeRow(&b, r.Total, "**all**")
	r.writeRelay(&b)
	if len(r.Notes) > 0 {
		b.WriteString("\nNotes:\n\n")
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}
	r.writeTasks(&b)
	b.WriteString(howToRead)
	_, err := io.WriteString(w, b.String())
	return err
}

func (r *Report) writeHeader(b *strings.Builder) {
	prices := "unknown (cost is not shown; ρ compares tokens)"
	if p := r.Pricing; p != nil {
		prices = fmt.Sprintf("%g in / %g out per 1K tokens", p.InputPer1K, p.OutputPer1K)
	}
	fmt.Fprintf(b, "- Model: `%s` (%s); prices: %s.\n", r.Model, r.ModelID, prices)
	fmt.Fprintf(b, "- Book: `%s`, %d bytes, ~%d tokens (%s); one prompt with the whole book costs %s.\n",
		r.Book, r.BookBytes, r.BookTokens, r.TokenEstimator, costText(r.BookCost))
	fmt.Fprintf(b, "- Plan: seed %d, %d tasks per family", r.Seed, r.PerFamily)
	if r.RelayPairs > 0 {
		fmt.Fprintf(b, ", a relay of %d pairs", r.RelayPairs)
	}
	b.WriteString(".\n")
	basis := "cost of the tokens a command used ÷ cost of one prompt holding the whole book"
	if r.RhoBasis == "tokens" {
		basis = "tokens a command used (input + output) ÷ the whole book's tokens"
	}
	fmt.Fprintf(b, "- ρ: %s (mean per command; below 1 is cheaper than sending the book).\n", basis)
	if r.Total.EstimatedCalls > 0 {
		fmt.Fprintf(b, "- Tokens of %d of the calls are estimated (%s): the provider did not report usage for them.\n",
			r.Total.EstimatedCalls, r.TokenEstimator)
	}
	if r.ResultsDir != "" {
		fmt.Fprintf(b, "- Results and logs: `%s` (running the same command again goes on from there).\n", r.ResultsDir)
	}
}

func writeRow(b *strings.Builder, f FamilyRow, name string) {
	if f.Tasks == 0 {
		fmt.Fprintf(b, "| %s | 0 | – | – | – | – | – | – | – | – |\n", name)
		return
	}
	pct := ""
	if f.Tasks > 0 {
		pct = fmt.Sprintf(" (%.0f %%)", 100*float64(f.Exact)/float64(f.Tasks))
	}
	fmt.Fprintf(b, "| %s | %d | %d%s | %d | %d | %.1f | %.3f | %s | %s / %s | %s |\n", name, f.Tasks, f.Exact, pct,
		f.Wrong, f.Failed, f.Calls, f.Rho, costText(f.Cost), Tokens(f.InputTokens), Tokens(f.OutputTokens), seconds(f.Seconds))
}

func (r *Report) writeRelay(b *strings.Builder) {
	for _, t := range r.Tasks {
		if t.Family != Relay || t.BytesDiffer == nil {
			continue
		}
		fmt.Fprintf(b, "\nRelay %s: %s. ", t.ID, t.Reason)
		fmt.Fprintf(b, "The book it left: `%s`.\n", t.FinalBook)
	}
}

func (r *Report) writeTasks(b *strings.Builder) {
	b.WriteString("\n## Tasks\n\n")
	b.WriteString("| task | result | answer | gold | calls | tokens | cost | time | why |\n")
	b.WriteString("|---|---|---|---|--:|--:|--:|--:|---|\n")
	estimated := false
	for _, t := range r.Tasks {
		est := ""
		if t.EstimatedCalls > 0 {
			est, estimated = "*", true
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %d | %s%s | %s | %s | %s |\n", t.ID, t.Result, cell(t.Answer, 60), cell(t.Gold, 60),
			t.Calls, Tokens(t.InputTokens+t.OutputTokens), est, costText(t.Cost), seconds(t.Seconds), cell(t.Reason, 120))
	}
	b.WriteString("\n")
	if estimated {
		b.WriteString("`*`: tokens estimated. ")
	}
	b.WriteString("Each task's prompt and what the agents did are in its log in the results directory.\n")
}

// cell makes a value fit a table cell: one line, no pipes, at most n runes.
func cell(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.ReplaceAll(s, "|", `\|`)
	if utf8.RuneCountInString(s) > n {
		s = string([]rune(s)[:n-1]) + "…"
	}
	return s
}

func costText(c *float64) string {
	if c == nil {
		return "unknown"
	}
	return fmt.Sprintf("%.4f", *c)
}

// Tokens writes a number of tokens for people: 950, 3.2k, 41k, 1.3M.
func Tokens(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.0fk", float64(n)/1e3)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

func seconds(s float64) string {
	if s >= 100 {
		return fmt.Sprintf("%.0f s", s)
	}
	return fmt.Sprintf("%.1f s", s)
}

const howToRead = `
## How to read this report

- **exact**: the answer names exactly the gold item(s) or count, or the book after an edit is byte
  for byte the book with the right edit (right target, nothing else changed) and ` + "`aite undo`" + `
  restores it. **wrong**: a confident answer that is not the gold, an edit of the wrong item or of
  anything else, or "done" with nothing changed: what the model would have told you falsely.
  **failed**: the agent said it did not finish (an error, out of steps, an incomplete cursor-agent
  walk, ` + "`ANSWER: none`" + `, no answer line, nothing written): the model let you down, but openly.
  Trust a model on your book when wrong stays at 0; failed costs you time, wrong costs you the book.
- The gold comes from the book's own index: the paragraphs that hold a name in any of its forms (the
  same matching as ` + "`aite find`" + `), its chapters, and the edit applied by the editor itself.
- **mean calls** counts every model call of a task, the cursor agent's included; **ρ** below 1 means
  the agents spent less than one prompt holding the whole book would have.
- The **relay** chains edit commands on one copy of the book, each followed by its inverse; "bytes
  differ" measures what the chain damaged for good (0 is perfect).
`
