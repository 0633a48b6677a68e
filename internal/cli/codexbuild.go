package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/aitexteditor/aite/internal/codex"
	"github.com/aitexteditor/aite/internal/codex/assist"
	"github.com/aitexteditor/aite/internal/cursoragent"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/llm/models"
	"github.com/aitexteditor/aite/internal/reading"
)

// CodexBuildRequest is one `aite codex build`.
type CodexBuildRequest struct {
	Book string
	// Model is the configured model; nil with ModelErr saying why (no
	// model configured) or with NoModel (--no-model).
	Model    *Model
	ModelErr error
	NoModel  bool
	// Yes starts the model's part without asking; Estimate only prints
	// what it would spend; Restart drops an interrupted build's plan.
	Yes, Estimate, Restart bool
	// Entries bounds the entries the model reads (0: assist.DefaultEntries);
	// All reads confirmed entries too.
	Entries     int
	All         bool
	Interactive bool // standard input is a terminal
	Progress    bool // standard error is a terminal: draw a progress bar
	In          io.Reader
	Out, Log    io.Writer
	JSON        bool
}

// CodexBuildJSON is the JSON shape of `aite codex build`.
type CodexBuildJSON struct {
	Text     codexTextJSON    `json:"text"`
	Model    string           `json:"model,omitempty"`
	Estimate *assist.Estimate `json:"estimate,omitempty"`
	Resumed  bool             `json:"resumed,omitempty"`
	Report   *assist.Report   `json:"report,omitempty"`
	Entries  int              `json:"entries"`
	// Pending says what is left when the model's part did not run.
	Pending string `json:"pending,omitempty"`
}

type codexTextJSON struct {
	Candidates  int                 `json:"candidates"`
	Added       int                 `json:"added"`
	Updated     int                 `json:"updated"`
	Kept        int                 `json:"kept"`
	Removed     int                 `json:"removed"`
	Skipped     []string            `json:"skipped,omitempty"`
	Suggestions map[string][]string `json:"suggestions,omitempty"`
}

// CodexBuild builds the book's codex: first from the text alone (always;
// stored at once), then, with a model, the model's passes over the
// candidates after an estimate and a confirmation (or --yes). An
// interrupted model part goes on where it stopped the next time.
func CodexBuild(ctx context.Context, req CodexBuildRequest) error {
	b, err := Open(req.Book, req.Log)
	if err != nil {
		return err
	}
	defer b.Close()
	c, rep, err := b.s.BuildCodex(b.id)
	if err != nil {
		return err
	}
	if err := b.storeCodex(c); err != nil {
		return err
	}
	out := CodexBuildJSON{Text: codexTextJSON{Candidates: len(rep.Candidates), Added: rep.Added, Updated: rep.Updated,
		Kept: rep.Kept, Removed: rep.Removed, Skipped: rep.Skipped, Suggestions: rep.Suggestions}, Entries: c.Len()}
	if !req.JSON {
		uses, err := b.s.CodexUses(b.id)
		if err != nil {
			return err
		}
		writeTextBuild(req.Log, rep, c, uses)
	}
	builder := &assist.Builder{Book: b.id, Plans: assist.SessionPlans{Session: b.s, Book: b.id}, MaxEntries: req.Entries, All: req.All,
		Agent: &cursoragent.Agent{Session: b.s, Store: cursoragent.FileStore{Book: req.Book}}}
	if req.Model != nil {
		builder.Agent = req.Model.CursorAgent(b)
		builder.Agent.Store = cursoragent.FileStore{Book: req.Book}
		builder.Pricing = req.Model.Info.Pricing
		out.Model = req.Model.Info.Key
	}
	plan, resumed, err := b.plan(builder, req.Restart)
	if err != nil {
		return err
	}
	est := builder.Estimate(plan, c.Len())
	out.Estimate, out.Resumed = &est, resumed
	if req.Model == nil {
		out.Pending = withoutModel(req, est)
		return finishBuild(req, out)
	}
	if !req.JSON {
		writeEstimate(req.Log, est, resumed, plan, req.Model.Info.Key)
	}
	if est.Entries == 0 || req.Estimate {
		if est.Entries > 0 {
			out.Pending = fmt.Sprintf("run aite codex build %s --yes to read them", req.Book)
		}
		return finishBuild(req, out)
	}
	if !req.Yes {
		ok, err := confirmModel(req)
		if err != nil || !ok {
			out.Pending = fmt.Sprintf("the model's part did not run; aite codex build %s --yes runs it", req.Book)
			if ferr := finishBuild(req, out); ferr != nil {
				return ferr
			}
			return err
		}
	}
	bar := newBar(req.Log, req.Progress && !req.JSON)
	builder.OnProgress = bar.update
	res, err := builder.Run(ctx, plan)
	bar.done()
	out.Report = &res
	if c2, _, cerr := b.s.Codex(b.id); cerr == nil {
		out.Entries = c2.Len()
	}
	if err != nil {
		fmt.Fprintf(req.Log, "the build stopped: %v\nwhat was read is kept; `aite codex build %s` goes on where it stopped\n", err, req.Book)
		return err
	}
	return finishBuild(req, out)
}

// plan resumes an interrupted build or plans a new one.
func (b *Book) plan(builder *assist.Builder, restart bool) (*assist.Plan, bool, error) {
	if !restart {
		p, err := builder.Resume()
		if err != nil {
			return nil, false, &reading.IOError{Err: fmt.Errorf("%w (aite codex build --restart starts over)", err)}
		}
		if p != nil {
			return p, true, nil
		}
	}
	p, err := builder.NewPlan()
	if err != nil {
		return nil, false, &reading.IOError{Err: err}
	}
	return p, false, nil
}

// withoutModel says what a model would add.
func withoutModel(req CodexBuildRequest, est assist.Estimate) string {
	why := "no model is configured"
	if req.NoModel {
		why = "--no-model"
	}
	msg := fmt.Sprintf("%s: a model would read the %d items naming %d of these entries (≈ %d calls, ≈ %d input + %d output tokens) "+
		"to confirm them, set their kinds, link the names the text alone cannot (a nickname, a first name and a title), "+
		"and write descriptions and facts with evidence pointers", why, est.Items, est.Entries, est.Calls, est.InputTokens, est.OutputTokens)
	if !req.JSON {
		fmt.Fprintln(req.Log, msg)
		switch {
		case errors.Is(req.ModelErr, models.ErrNoModel):
			fmt.Fprintf(req.Log, "to add it:\n%s\n", models.HowToConfigure)
		case req.ModelErr != nil:
			fmt.Fprintf(req.Log, "to add it: %v\n", req.ModelErr)
		}
	}
	return msg
}

func finishBuild(req CodexBuildRequest, out CodexBuildJSON) error {
	if req.JSON {
		return reading.WriteJSON(req.Out, out)
	}
	if out.Report != nil {
		r := out.Report
		fmt.Fprintf(req.Out, "the model read %d entries: %d kept, %d merged into others, %d dropped, %d left as they were "+
			"(%d calls, %d input + %d output tokens)\n", r.Done+r.Dropped+r.Failed, r.Done, r.Merged, r.Dropped, r.Failed,
			r.Calls, r.Usage.InputTokens, r.Usage.OutputTokens)
	}
	fmt.Fprintf(req.Out, "the codex of %s has %s: aite codex list %s\n", req.Book, entriesText(out.Entries), req.Book)
	return nil
}

func entriesText(n int) string {
	if n == 1 {
		return "1 entry"
	}
	return fmt.Sprintf("%d entries", n)
}

// writeTextBuild says what the text gave.
// Each entry's items are counted as codex list and show count them (every
// item that names it), not as the name finder saw them.
func writeTextBuild(w io.Writer, rep codex.BuildReport, c *codex.Codex, uses map[string]editor.EntryUses) {
	fmt.Fprintf(w, "from the text: %d characters and places (%d new, %d updated, %d kept as they were, %d no longer in the text)\n",
		len(rep.Candidates), rep.Added, rep.Updated, rep.Kept, rep.Removed)
	for i, cand := range rep.Candidates {
		if i == 8 {
			fmt.Fprintf(w, "  … (aite codex list shows all)\n")
			break
		}
		also := ""
		if len(cand.Entry.Aliases) > 0 {
			also = " — also " + strings.Join(cand.Entry.Aliases, "; ")
		}
		items := cand.Items
		if e, err := c.Find(cand.Entry.Name); err == nil {
			items = uses[e.ID].Items
		}
		fmt.Fprintf(w, "  %-24s %-9s %3d items%s\n", cand.Entry.Name, cand.Entry.Kind, items, also)
	}
	if len(rep.Skipped) > 0 {
		fmt.Fprintf(w, "left out (you removed them): %s\n", strings.Join(rep.Skipped, ", "))
	}
	for _, id := range slices.Sorted(maps.Keys(rep.Suggestions)) {
		names := rep.Suggestions[id]
		if e, err := c.Find(id); err == nil {
			fmt.Fprintf(w, "the text also names %s as %s (aite codex edit BOOK %s --alias NAME adds one)\n", e.Name, strings.Join(names, ", "), id)
		}
	}
}

// writeEstimate says what the model's part will spend.
func writeEstimate(w io.Writer, est assist.Estimate, resumed bool, p *assist.Plan, model string) {
	if resumed {
		fmt.Fprintf(w, "going on with the build started %s: %d of %d entries left\n",
			p.Created.Local().Format("2006-01-02 15:04"), p.Remaining(), len(p.Entries))
	}
	if est.Entries == 0 {
		fmt.Fprintln(w, "the model has nothing to read: every entry is confirmed (--all reads them again)")
		return
	}
	cost := "the price of the model is unknown (give pricing in its models file)"
	if est.Priced {
		cost = fmt.Sprintf("≈ %.4f", est.Cost)
	}
	fmt.Fprintf(w, "the model (%s) will read the %d items naming %d entries: ≈ %d calls, ≈ %d input + %d output tokens, %s\n",
		model, est.Items, est.Entries, est.Calls, est.InputTokens, est.OutputTokens, cost)
}

// confirmModel asks on a terminal; without one it refuses, saying how to
// go on.
func confirmModel(req CodexBuildRequest) (bool, error) {
	if !req.Interactive {
		return false, &reading.UsageError{Err: errors.New("standard input is not a terminal, so nobody could confirm the model's part; run again with --yes (or --estimate to only see the estimate)")}
	}
	return confirmed(req.In, req.Log, "Go on?"), nil
}

// bar draws the progress of a build: a bar redrawn in place on a
// terminal, and one line per finished entry.
type bar struct {
	w   io.Writer
	tty bool
}

func newBar(w io.Writer, tty bool) *bar { return &bar{w: w, tty: tty} }

func (b *bar) update(p assist.Progress) {
	if p.Done {
		b.done()
		fmt.Fprintf(b.w, "✓ %d/%d %s (%d calls, %d tokens so far)\n", p.Entry, p.Entries, p.Name, p.Calls, p.InputTokens+p.OutputTokens)
		return
	}
	if !b.tty {
		return
	}
	done, total := p.Entry-1, p.Entries // entries read, and the batches of this one
	if p.Batches > 0 {
		done, total = done*p.Batches+min(p.Batch, p.Batches), total*p.Batches
	}
	fmt.Fprint(b.w, barLine(done, total, fmt.Sprintf("%d/%d %s: batch %d of ~%d", p.Entry, p.Entries, p.Name, p.Batch, p.Batches)))
}

// count draws a plain count on a terminal ("120/510 items embedded").
func (b *bar) count(done, total int, what string) {
	if !b.tty {
		return
	}
	fmt.Fprint(b.w, barLine(done, total, fmt.Sprintf("%d/%d %s", done, total, what)))
}

func (b *bar) done() {
	if b.tty {
		fmt.Fprint(b.w, clearLine)
	}
}
