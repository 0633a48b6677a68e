package agent

import (
	"context"
	"maps"
	"slices"

	"github.com/aitexteditor/aite/internal/llm"
)

// modelTurn streams one model turn and decides the next phase.
func (r *run) modelTurn(ctx context.Context, withTools bool) {
	r.step++
	if r.step == 1 {
		// the user's input is the first message of the run
		first := r.msgs[0]
		r.emit(Event{Type: MessageDone, Message: &first})
	}
	turn := &turnState{r: r, ids: map[int]string{}}
	for ev, err := range r.cfg.Provider.Stream(ctx, r.request(withTools)) {
		if err != nil {
			turn.closeCalls()
			r.fail(ctx, err)
			return
		}
		turn.on(ev)
		if r.stopped {
			r.fail(ctx, context.Canceled)
			return
		}
	}
	if err := ctx.Err(); err != nil {
		r.fail(ctx, err)
		return
	}
	turn.closeCalls()
	r.usage = r.usage.Add(turn.usage)
	u := turn.usage
	r.emit(Event{Type: UsageReport, Usage: &u})
	msg := turn.message()
	r.addMessage(msg)
	r.next(withTools, msg)
}

// next chooses the phase after a turn.
func (r *run) next(withTools bool, msg llm.Message) {
	switch {
	case len(msg.ToolCalls) > 0 && withTools:
		r.calls, r.phase = msg.ToolCalls, phaseTools
	case !blank(msg.Content):
		r.answer = msg.Content
		r.end(Done, "", "", false)
	case !withTools:
		r.end(Failed, CodeNoFinalAnswer, "the final turn gave no answer", false)
	case r.step >= r.cfg.MaxSteps:
		r.phase, r.outOfSteps = phaseFinal, true
	default:
		r.phase = phaseModel // a blank turn: try again (REACT step 3)
	}
}

// turnState assembles one streamed turn.
type turnState struct {
	r         *run
	text      []byte
	reasoning []byte
	calls     []llm.ToolCall
	ids       map[int]string // call index → tool ID
	open      map[int]bool
	usage     llm.Usage
}

func (t *turnState) on(ev llm.Event) {
	r := t.r
	switch ev.Kind {
	case llm.EventTextDelta:
		if len(t.calls) > 0 || ev.Text == "" {
			return // text after a tool call is dropped (PLATFORM_API § 3.3 rule 3)
		}
		t.text = append(t.text, ev.Text...)
		r.emit(Event{Type: ContentDelta, Delta: ev.Text})
	case llm.EventReasoningDelta:
		if len(t.calls) > 0 || ev.Text == "" {
			return
		}
		t.reasoning = append(t.reasoning, ev.Text...)
		r.emit(Event{Type: ReasoningDelta, Delta: ev.Text})
	case llm.EventToolCallStart:
		t.start(ev)
	case llm.EventToolCallDelta:
		if id, ok := t.ids[ev.Index]; ok && t.open[ev.Index] && ev.Text != "" {
			r.emit(Event{Type: ToolArgs, ToolID: id, Delta: ev.Text})
		}
	case llm.EventToolCallEnd:
		t.end(ev)
	case llm.EventUsage:
		if ev.Usage != nil {
			t.usage = *ev.Usage
		}
	}
}

func (t *turnState) start(ev llm.Event) {
	if ev.Call == nil {
		return
	}
	id := ev.Call.ID
	if id == "" {
		id = t.r.cfg.NewID("call")
	}
	t.ids[ev.Index] = id
	if t.open == nil {
		t.open = map[int]bool{}
	}
	t.open[ev.Index] = true
	t.calls = append(t.calls, llm.ToolCall{ID: id, Name: ev.Call.Name})
	t.r.emit(Event{Type: ToolStart, ToolID: id, ToolName: ev.Call.Name})
}

func (t *turnState) end(ev llm.Event) {
	id, ok := t.ids[ev.Index]
	if !ok || ev.Call == nil {
		return
	}
	for i := range t.calls {
		if t.calls[i].ID == id {
			t.calls[i].Arguments = ev.Call.Arguments
		}
	}
	if t.open[ev.Index] {
		t.open[ev.Index] = false
		t.r.emit(Event{Type: ToolEnd, ToolID: id, ToolName: ev.Call.Name})
	}
}

// closeCalls ends calls the stream left open, in call order.
func (t *turnState) closeCalls() {
	for _, idx := range slices.Sorted(maps.Keys(t.open)) {
		if t.open[idx] {
			t.open[idx] = false
			t.r.emit(Event{Type: ToolEnd, ToolID: t.ids[idx]})
		}
	}
}

func (t *turnState) message() llm.Message {
	return llm.Message{Role: llm.RoleAssistant, Content: string(t.text), Reasoning: string(t.reasoning), ToolCalls: t.calls}
}
