package cursoragent

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/aitexteditor/aite/internal/cursor"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/pointer"
)

//go:embed prompt.md
var systemPrompt string

// SystemPrompt returns the fixed system prompt of every cursor-agent call
// (what a cost estimate counts for each batch).
func SystemPrompt() string { return systemPrompt }

const dedupRule = "Report an item at most once; items already in the evidence are ignored, and only pointers of the current batch count."

// decision is the model's JSON answer.
type decision struct {
	Action          string        `json:"action"`
	BatchFound      bool          `json:"batchFound"`
	NewEvidence     []evidenceOut `json:"newEvidence"`
	Progress        string        `json:"progress"`
	NeedMoreContext bool          `json:"needMoreContext"`
	ContextPointers []string      `json:"contextPointers"`
}

type evidenceOut struct {
	Pointer string `json:"pointer"`
	Excerpt string `json:"excerpt"`
	Reason  string `json:"reason"`
}

// step reads one batch: asks the model, absorbs its evidence, moves on.
func (a *Agent) step(ctx context.Context, st *TaskState, p cursor.Portion) error {
	t := &st.Task
	if len(p.Items) == 0 {
		st.Complete, st.StoppedBy = true, "cursor_complete"
		return nil
	}
	dec, err := a.decide(ctx, st, p)
	if err != nil && !errors.Is(err, errSkip) {
		return err // the batch will be read again on resume
	}
	st.Steps++
	st.Usage.Batches++
	st.Usage.Items += len(p.Items)
	for _, it := range p.Items {
		st.Usage.Bytes += len(it.Markdown)
	}
	switch {
	case errors.Is(err, errSkip):
		msg := fmt.Sprintf("batch %s…%s failed at first (%v); read again in smaller batches", p.Items[0].Pointer, p.Items[len(p.Items)-1].Pointer, err)
		st.Skipped = append(st.Skipped, msg)
		if err := a.reread(ctx, st, p); err != nil {
			return err
		}
	default:
		a.absorb(st, p, dec)
	}
	st.NextAfter = p.NextAfterPointer
	st.Complete = !p.HasMore
	st.Seen = tail(pointersOf(p), 3)
	a.stopCheck(st, dec)
	if a.OnProgress != nil {
		a.OnProgress(Progress{TaskID: t.ID, Batch: st.Usage.Batches, First: p.Items[0].Pointer.String(),
			Last: p.NextAfterPointer, Items: len(p.Items), Evidence: len(st.Found), Calls: st.Usage.Calls, HasMore: p.HasMore,
			Estimated: st.Usage.Batches + (p.Remaining+len(p.Items)-1)/len(p.Items)})
	}
	return nil
}

// reread judges again the items of a batch the model failed to judge
// after its corrective turns, in smaller batches, each in a fresh
// conversation: first halves; a part that fails is halved again, down to
// single items; after a success the size grows back. A single item that
// still fails is recorded as unjudged; after two in a row the model is
// taken to be failing for now and the rest of the batch is recorded as
// unjudged too, which bounds the calls. Evidence is absorbed in walking
// order.
func (a *Agent) reread(ctx context.Context, st *TaskState, p cursor.Portion) error {
	items := p.Items
	top := max(1, len(items)/2)
	size := top
	var bad []cursor.Item // consecutive unjudged items, recorded as one range
	flush := func() {
		if len(bad) > 0 {
			st.Unjudged = append(st.Unjudged, Range{First: bad[0].Pointer.String(), Last: bad[len(bad)-1].Pointer.String(),
				Items: len(bad), FoundBefore: len(st.Found)})
			bad = nil
		}
	}
	for i := 0; i < len(items); {
		n := min(size, len(items)-i)
		part := items[i : i+n]
		sub := cursor.Portion{CursorName: p.CursorName, Items: part, HasMore: p.HasMore || i+n < len(items),
			NextAfterPointer: part[n-1].Pointer.String()}
		dec, err := a.decide(ctx, st, sub)
		switch {
		case errors.Is(err, errSkip) && n > 1:
			size = max(1, n/2)
			continue
		case errors.Is(err, errSkip):
			bad = append(bad, part...)
			i += n
			if len(bad) >= 2 {
				bad = append(bad, items[i:]...)
				i = len(items)
			}
			continue
		case err != nil:
			return err
		}
		flush()
		a.absorb(st, sub, dec)
		i += n
		size = min(top, size*2)
	}
	flush()
	return nil
}

// stopCheck decides in code whether the task is done.
func (a *Agent) stopCheck(st *TaskState, dec decision) {
	t, n := &st.Task, len(st.Found)
	switch {
	case t.Select == "" && (t.Mode == FirstMatch || t.Mode == Last) && n >= 1:
		st.StoppedBy = "found"
	case t.Select == "" && t.Mode == Nth && n >= t.N:
		st.StoppedBy = "found"
	case t.MaxEvidence > 0 && n >= t.MaxEvidence && (t.Mode == Collect || t.Select != ""):
		st.StoppedBy = "evidence_limit"
	case st.Complete:
		st.StoppedBy = "cursor_complete"
	case t.Mode == Aggregate && dec.Action == "stop":
		st.StoppedBy = "model_stop"
	}
}

var errSkip = errors.New("no valid reply")

// decide asks the model about a batch, with corrective turns for broken
// replies and one re-ask with neighbours when the model needs context.
func (a *Agent) decide(ctx context.Context, st *TaskState, p cursor.Portion) (decision, error) {
	var extra []cursor.Item
	msgs := a.messages(st, p, extra)
	contextGiven := false
	var lastErr error
	for attempt := 0; attempt <= st.Task.Limits.Retries; {
		raw, err := a.call(ctx, st, msgs)
		if err != nil {
			return decision{}, err
		}
		dec, perr := parseDecision(raw)
		if perr == nil && dec.NeedMoreContext && !contextGiven && len(dec.ContextPointers) > 0 {
			contextGiven = true
			extra = a.neighbours(st.Task.Book, dec.ContextPointers, p)
			msgs = a.messages(st, p, extra)
			continue
		}
		if perr == nil {
			return dec, nil
		}
		lastErr = perr
		if attempt++; attempt > st.Task.Limits.Retries {
			break
		}
		st.Usage.Corrective++
		msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: raw},
			llm.Message{Role: llm.RoleUser, Content: "Return only one JSON action. " + perr.Error()})
	}
	return decision{}, fmt.Errorf("%w after %d corrective turns: %v", errSkip, st.Task.Limits.Retries, lastErr)
}

// call makes one model call and returns the reply text (or the arguments of
// the forced decision call).
func (a *Agent) call(ctx context.Context, st *TaskState, msgs []llm.Message) (string, error) {
	return a.callWith(ctx, st, msgs, "cursor_decision", decisionSchema)
}

// callWith asks for a reply of the given schema (llm.Structured): native
// structured output when the model has it, else one forced tool call. The
// reply is validated here, leniently (parseDecision), not against the
// schema: a decision may leave fields out. A forced tool the model did not
// call leaves its text to be read instead.
func (a *Agent) callWith(ctx context.Context, st *TaskState, msgs []llm.Message, name string, schema json.RawMessage) (string, error) {
	s := llm.Structure{Name: name, Schema: schema, Via: llm.ViaTool, ToolDescription: "Give your answer as the arguments of this call."}
	if a.JSONSchema {
		s.Via = llm.ViaJSONSchema
	}
	raw, resp, err := a.Structured(ctx, msgs, s)
	st.Usage.Calls++
	reply := string(raw)
	var se *llm.SchemaError
	switch {
	case errors.As(err, &se):
		reply = se.Raw // a broken reply: the corrective turn shows what the model wrote
	case err != nil:
		return "", err
	}
	in, out := resp.Usage.InputTokens, resp.Usage.OutputTokens
	if in == 0 {
		in = estimate(msgs)
	}
	if out == 0 {
		out = llm.EstimateTokens(reply)
	}
	st.Usage.InputTokens += in
	st.Usage.OutputTokens += out
	return reply, nil
}

func estimate(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		n += llm.EstimateTokens(m.Content) + 4 // per-message overhead
	}
	return n
}

// parseDecision accepts exactly one JSON object (prose or code fences
// around it are tolerated) with a valid action.
func parseDecision(raw string) (decision, error) {
	if strings.TrimSpace(raw) == "" {
		return decision{}, errors.New("the reply was empty; answer with one JSON object")
	}
	obj, ok := llm.ExtractJSONObject(raw)
	if !ok {
		return decision{}, errors.New("the reply holds no complete JSON object")
	}
	var d decision
	if err := json.Unmarshal(obj, &d); err != nil {
		return decision{}, fmt.Errorf("the JSON does not fit the decision shape: %v", err)
	}
	switch d.Action {
	case "continue", "stop":
	case "":
		d.Action = "continue"
	default:
		return decision{}, fmt.Errorf("action must be \"continue\" or \"stop\", not %q", d.Action)
	}
	return d, nil
}

// absorb normalises the model's evidence: pointers must belong to the
// batch (matched leniently), repeats are dropped, the excerpt is replaced by
// the item's Markdown.
func (a *Agent) absorb(st *TaskState, p cursor.Portion, dec decision) {
	var fresh []Evidence
	for _, e := range dec.NewEvidence {
		it, ok := inBatch(p, e.Pointer)
		if !ok || st.has(it.Pointer.ID) || containsID(fresh, it.Pointer.ID) {
			st.Dropped++
			continue
		}
		fresh = append(fresh, Evidence{Pointer: it.Pointer, Kind: it.Kind, Index: it.Index, Markdown: it.Markdown,
			Reason: clip(e.Reason, 300)})
	}
	back := st.Task.Mode == Last || st.Task.Cursor.Backward
	sort.SliceStable(fresh, func(i, j int) bool {
		if back {
			return fresh[i].Index > fresh[j].Index
		}
		return fresh[i].Index < fresh[j].Index
	})
	st.Found = append(st.Found, fresh...)
	if n := strings.TrimSpace(dec.Progress); n != "" {
		st.Notes = append(st.Notes, clip(n, st.Task.Limits.SummaryChars))
		st.Notes = tail(st.Notes, 50)
	}
}

// inBatch finds the batch item a model pointer names: by ID, by label, or
// by the canonical form, leniently parsed.
func inBatch(p cursor.Portion, s string) (cursor.Item, bool) {
	q, err := pointer.Parse(s)
	if err != nil {
		return cursor.Item{}, false
	}
	for _, it := range p.Items {
		if q.ID > 0 && it.Pointer.ID == q.ID && (q.Label == "" || q.Label == it.Pointer.Label) {
			return it, true
		}
	}
	for _, it := range p.Items {
		if q.Label != "" && it.Pointer.Label == q.Label {
			return it, true
		}
	}
	for _, it := range p.Items {
		if q.ID > 0 && it.Pointer.ID == q.ID {
			return it, true // a stale label: the ID decides
		}
	}
	return cursor.Item{}, false
}

func containsID(es []Evidence, id int) bool {
	for _, e := range es {
		if e.Pointer.ID == id {
			return true
		}
	}
	return false
}

func pointersOf(p cursor.Portion) []string {
	out := make([]string, len(p.Items))
	for i, it := range p.Items {
		out[i] = it.Pointer.String()
	}
	return out
}

func tail[T any](xs []T, n int) []T {
	if len(xs) > n {
		return append([]T(nil), xs[len(xs)-n:]...)
	}
	return xs
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
