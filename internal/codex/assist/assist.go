// Package assist is the model's part of building a codex: after the text
// gave the candidates (codex.Build), a collect pass of the cursor agent
// reads every item naming a candidate and notes one fact per item with its
// pointer, and one entry call then confirms the candidate, sets its kind,
// groups the names the text alone cannot link (Lizzy and Elizabeth), writes
// a description and keeps facts with evidence pointers.
//
// What the model says is checked before it is kept: a fact's evidence must
// be items the pass collected, an alias must occur in the book, an entry to
// merge must be one of the codex's. The codex is stored after every entry
// and the plan with it, so an interrupted build goes on where it stopped
// (the collect pass of the entry it was reading included: its cursor-agent
// task is resumed). Before a build starts, Estimate says how many calls and
// tokens it will take.
package assist

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aitexteditor/aite/internal/codex"
	"github.com/aitexteditor/aite/internal/cursor"
	"github.com/aitexteditor/aite/internal/cursoragent"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/search"
)

// DefaultEntries is how many entries a build reads by default.
const DefaultEntries = 40

// Builder runs the model's passes over the codex of one book of an editor
// session (the codex is read and stored through the session).
type Builder struct {
	// Agent walks the collect passes; its Provider, Model and JSONSchema
	// serve the entry calls too, and its Store keeps the pass tasks.
	Agent *cursoragent.Agent
	Book  string
	// Plans keeps the plan between runs (in memory when nil).
	Plans PlanStore
	// Pricing prices the estimate (zero: unknown).
	Pricing llm.Pricing
	// MaxEntries bounds the entries read, most named first
	// (DefaultEntries when 0).
	MaxEntries int
	// All reads the entries a model or the user already confirmed too;
	// otherwise only candidates found in the text are read.
	All bool
	// OnProgress, when set, is called after every batch and every entry.
	OnProgress func(Progress)
	// Now is the clock of the plan (time.Now when nil).
	Now func() time.Time
}

// Progress is reported during a build.
type Progress struct {
	Entry   int    `json:"entry"`   // 1-based, of Entries
	Entries int    `json:"entries"` // entries of the plan
	Name    string `json:"name"`
	// Batch and Batches: the collect pass's batch so far and its estimate.
	Batch   int  `json:"batch"`
	Batches int  `json:"batches"`
	Done    bool `json:"done"` // the entry is finished
	// Calls, InputTokens, OutputTokens: spent so far in this run.
	Calls        int `json:"calls"`
	InputTokens  int `json:"inputTokens"`
	OutputTokens int `json:"outputTokens"`
}

// Report says what a build did.
type Report struct {
	Done, Merged, Dropped, Failed int
	Usage                         llm.Usage
	Calls                         int
	// Notes says what happened to each entry, one line each.
	Notes []string
}

// plans returns the plan store.
func (b *Builder) plans() PlanStore {
	if b.Plans == nil {
		b.Plans = &MemPlans{}
	}
	return b.Plans
}

func (b *Builder) now() time.Time {
	if b.Now != nil {
		return b.Now()
	}
	return time.Now()
}

// Resume returns the saved plan when it still has entries to read.
func (b *Builder) Resume() (*Plan, error) {
	p, err := b.plans().LoadPlan()
	if err != nil || p == nil || p.Remaining() == 0 {
		return nil, err
	}
	return p, nil
}

// NewPlan plans a build over the book's codex: its entries found in the
// text and not yet confirmed (all entries but style rules with All), most
// named first, at most MaxEntries; and saves it.
func (b *Builder) NewPlan() (*Plan, error) {
	s := b.Agent.Session
	c, _, err := s.Codex(b.Book)
	if err != nil {
		return nil, err
	}
	uses, err := s.CodexUses(b.Book)
	if err != nil {
		return nil, err
	}
	p := &Plan{Format: PlanFormat, Version: 1, Model: b.Agent.Model, Created: b.now().UTC()}
	for _, e := range c.Entries {
		if e.Kind == codex.Style || !b.All && (e.Confirmed || e.Origin != codex.FromText) || uses[e.ID].Items == 0 {
			continue
		}
		pe := PlanEntry{ID: e.ID, Name: e.Name, Names: e.Names(), Items: uses[e.ID].Items, Status: Pending}
		pe.Bytes = b.bytesOf(e.ID)
		p.Entries = append(p.Entries, pe)
	}
	sortByItems(p.Entries)
	limit := b.MaxEntries
	if limit <= 0 {
		limit = DefaultEntries
	}
	if len(p.Entries) > limit {
		p.Entries = p.Entries[:limit]
	}
	return p, b.plans().SavePlan(p)
}

// bytesOf returns the Markdown bytes of the items naming an entry.
func (b *Builder) bytesOf(id string) int {
	hits, err := b.Agent.Session.FindEntry(b.Book, id, search.Options{IncludeHeadings: true})
	if err != nil {
		return 0
	}
	n := 0
	for _, r := range hits.Results {
		if v, ok := b.Agent.Session.ItemByID(b.Book, r.ID); ok {
			n += len(v.Markdown)
		}
	}
	return n
}

func sortByItems(es []PlanEntry) {
	for i := 1; i < len(es); i++ {
		for j := i; j > 0 && es[j].Items > es[j-1].Items; j-- {
			es[j], es[j-1] = es[j-1], es[j]
		}
	}
}

// Run reads the plan's pending entries in order, storing the codex and the
// plan after each. A provider failure stops the run with the error after
// both are saved (run the build again to go on); a model answer that cannot
// be used marks its entry failed and the build goes on.
func (b *Builder) Run(ctx context.Context, p *Plan) (Report, error) {
	var rep Report
	for i := range p.Entries {
		pe := &p.Entries[i]
		if pe.Status != Pending {
			continue
		}
		if err := ctx.Err(); err != nil {
			return rep, llm.ContextError(ctx)
		}
		err := b.entry(ctx, p, i, &rep)
		if serr := b.plans().SavePlan(p); serr != nil && err == nil {
			err = serr
		}
		if err != nil {
			return rep, err
		}
		rep.Notes = append(rep.Notes, fmt.Sprintf("%s: %s%s", pe.Name, pe.Status, noteSuffix(pe.Note)))
		b.progress(Progress{Entry: i + 1, Entries: len(p.Entries), Name: pe.Name, Done: true}, &rep)
	}
	return rep, nil
}

func noteSuffix(n string) string {
	if n == "" {
		return ""
	}
	return " (" + n + ")"
}

func (b *Builder) progress(pr Progress, rep *Report) {
	if b.OnProgress == nil {
		return
	}
	pr.Calls, pr.InputTokens, pr.OutputTokens = rep.Calls, rep.Usage.InputTokens, rep.Usage.OutputTokens
	b.OnProgress(pr)
}

// entry runs the collect pass and the entry call of one plan entry.
func (b *Builder) entry(ctx context.Context, p *Plan, i int, rep *Report) error {
	pe := &p.Entries[i]
	s := b.Agent.Session
	c, _, err := s.Codex(b.Book)
	if err != nil {
		return err
	}
	e, err := c.Find(pe.ID)
	if errors.Is(err, codex.ErrNotFound) {
		pe.Status, pe.Note = Merged, "no longer in the codex"
		rep.Merged++
		return nil
	}
	if err != nil {
		return err
	}
	evidence, err := b.collect(ctx, p, i, e, rep)
	if err != nil {
		return err
	}
	ans, err := b.ask(ctx, c, e, evidence, rep)
	switch {
	case errors.Is(err, errUnusable):
		pe.Status, pe.Note = Failed, err.Error()
		rep.Failed++
		return nil
	case err != nil:
		return err
	}
	res := b.apply(c, e.ID, ans, evidence)
	if _, err := s.SetCodex(b.Book, c); err != nil {
		return err
	}
	for _, id := range res.merged {
		for k := range p.Entries {
			if p.Entries[k].ID == id && k != i {
				p.Entries[k].Status, p.Entries[k].Note = Merged, "merged into "+pe.Name
			}
		}
	}
	rep.Merged += len(res.merged)
	pe.Status, pe.Note = Done, res.note
	if res.dropped {
		pe.Status = Dropped
		rep.Dropped++
	} else {
		rep.Done++
	}
	return nil
}

// collect runs (or resumes) the collect pass of an entry and returns its
// evidence, every item with the fact the model noted.
func (b *Builder) collect(ctx context.Context, p *Plan, i int, e *codex.Entry, rep *Report) ([]cursoragent.Evidence, error) {
	pe := &p.Entries[i]
	a := *b.Agent
	a.OnProgress = func(pr cursoragent.Progress) {
		b.progress(Progress{Entry: i + 1, Entries: len(p.Entries), Name: pe.Name, Batch: pr.Batch, Batches: pr.Estimated}, rep)
	}
	var res cursoragent.Result
	var err error
	resumed := false
	if pe.TaskID != "" {
		res, err = a.Resume(ctx, pe.TaskID)
		resumed = err == nil
		if err != nil && !errors.Is(err, cursoragent.ErrNoTask) {
			return nil, err
		}
	}
	if !resumed {
		hits, ferr := b.Agent.Session.FindEntry(b.Book, e.ID, search.Options{IncludeHeadings: true})
		if ferr != nil {
			return nil, ferr
		}
		spec := cursor.NewSpec(cursor.Search)
		spec.IncludeHeadings = true
		for _, r := range hits.Results {
			spec.IDs = append(spec.IDs, r.ID)
		}
		pe.TaskID = taskID(e.ID, p.Created)
		if err := b.plans().SavePlan(p); err != nil {
			return nil, err
		}
		res, err = a.Run(ctx, cursoragent.Task{ID: pe.TaskID, Book: b.Book, Cursor: spec, Goal: goal(e), Mode: cursoragent.Collect,
			Limits: cursoragent.Limits{MaxSteps: cursoragent.MaxSteps, EvidenceKept: 100000}})
	}
	rep.Calls += res.Usage.Calls
	rep.Usage.InputTokens += res.Usage.InputTokens
	rep.Usage.OutputTokens += res.Usage.OutputTokens
	if err != nil {
		return nil, err
	}
	return res.Evidence, nil
}

// taskID names the collect pass of an entry in a plan (a valid file name).
func taskID(entry string, created time.Time) string {
	h := sha1.Sum([]byte(entry + "\x00" + created.Format(time.RFC3339Nano)))
	return "codex-" + hex.EncodeToString(h[:6])
}

// goal is the collect pass's task.
func goal(e *codex.Entry) string {
	also := ""
	if len(e.Aliases) > 0 {
		also = " (also written " + strings.Join(e.Aliases, ", ") + ")"
	}
	return fmt.Sprintf("Every item where %s%s appears, speaks, acts, is spoken of or is described: this is how the book's reference "+
		"data (its codex) learns about %s. In each item's reason, state in one short sentence, in the language of the book, "+
		"one fact the item shows about %s (who or what it is, what it does or what happens to it, how it relates to others), "+
		"not a summary of the item. If the name in an item means someone or something else, the item does not match.",
		e.Name, also, e.Name, e.Name)
}
