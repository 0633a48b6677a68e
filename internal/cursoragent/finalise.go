package cursoragent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/pointer"
)

const finalisePrompt = `You choose one item from a list of candidates that were found in a long text.
Judge only by the criterion given. Answer with exactly one JSON object:
{"pointer": "<the candidate's pointer, copied exactly>", "why": "<one sentence>"}
If no candidate satisfies the criterion, answer {"pointer": "", "why": "<the reason>"}.`

var choiceSchema = json.RawMessage(`{"type":"object","properties":{"pointer":{"type":"string"},"why":{"type":"string"}},"required":["pointer","why"],"additionalProperties":false}`)

type choice struct {
	Pointer string `json:"pointer"`
	Why     string `json:"why"`
}

// finalise asks the model to pick one of the evidence items by the task's
// criterion. The answer must be one of the evidence pointers; anything else
// is "not found" with the reason.
func (a *Agent) finalise(ctx context.Context, st *TaskState, r *Result) error {
	t := st.Task
	if len(st.Found) == 0 {
		r.Success, r.Summary = false, "Not found: no item matched, so there was nothing to choose from."
		return nil
	}
	cands := make([]batchItem, len(st.Found))
	for i, e := range st.Found {
		cands[i] = batchItem{Pointer: e.Pointer.String(), ItemType: string(e.Kind), Markdown: clip(e.Markdown, 600)}
	}
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: finalisePrompt},
		user(struct {
			Type       string      `json:"type"`
			Criterion  string      `json:"criterion"`
			Goal       string      `json:"goal"`
			Candidates []batchItem `json:"candidates"`
		}{"select", t.Select, t.Goal, cands})}
	c, err := a.ask(ctx, st, msgs)
	if errors.Is(err, errSkip) {
		r.Success, r.Summary = false, "Not found: the choice among the matches failed: "+err.Error()
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range st.Found {
		if q, perr := pointer.Parse(c.Pointer); perr == nil && (q.ID == e.Pointer.ID || (q.ID == 0 && q.Label == e.Pointer.Label)) {
			a.choose(t.Book, r, e, c.Why)
			r.Summary = fmt.Sprintf("Chosen by %q among %d matching items: %s.", t.Select, len(st.Found), r.Pointer)
			return nil
		}
	}
	r.Success = false
	why := strings.TrimSpace(c.Why)
	if c.Pointer != "" {
		why = fmt.Sprintf("the answer %q is not one of the %d matching items", c.Pointer, len(st.Found))
	}
	r.Summary = "Not found: " + why
	return nil
}

// ask makes the finaliser call with corrective turns.
func (a *Agent) ask(ctx context.Context, st *TaskState, msgs []llm.Message) (choice, error) {
	var last error
	for attempt := 0; attempt <= st.Task.Limits.Retries; attempt++ {
		raw, err := a.callWith(ctx, st, msgs, "choice", choiceSchema)
		if err != nil {
			return choice{}, err
		}
		var c choice
		obj, ok := llm.ExtractJSONObject(raw)
		if ok && json.Unmarshal(obj, &c) == nil {
			return c, nil
		}
		last = fmt.Errorf("the reply is not one JSON object with pointer and why")
		if attempt == st.Task.Limits.Retries {
			break
		}
		st.Usage.Corrective++
		msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: raw},
			llm.Message{Role: llm.RoleUser, Content: "Return only one JSON object. " + last.Error()})
	}
	return choice{}, fmt.Errorf("%w: %v", errSkip, last)
}
