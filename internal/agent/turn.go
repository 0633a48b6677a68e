package agent

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aitexteditor/aite/internal/agentdef"
	"github.com/aitexteditor/aite/internal/llm"
)

// reasoningMode says how a turn sets Request.Reasoning.
type reasoningMode int

const (
	reasoningFromConfig reasoningMode = iota // the stage's modelConfig.reasoning
	reasoningOn                              // plan-draft (deepThinking)
	reasoningOff                             // plan-generate
)

// turnSpec is one model turn to stream.
type turnSpec struct {
	stage     string
	config    agentdef.ModelConfig
	system    string   // the stage's system prompt (§ 6.2 item 1)
	tools     *toolSet // nil or empty: a turn without tools
	choice    agentdef.ToolChoice
	reasoning reasoningMode
	msgs      []llm.Message // the stage messages after the user message
}

// withTools reports whether the turn offers tools.
func (ts turnSpec) withTools() bool { return !ts.tools.empty() }

// Text block kinds.
const (
	blockReasoning = "reasoning"
	blockContent   = "content"
)

// segment is one text block of a reply: the text between its open and its
// close, with the block id the assembler gives it.
type segment struct {
	kind string
	id   string
	text strings.Builder
}

// reply is a streamed model turn.
type reply struct {
	msgID    string
	segments []*segment
	calls    []*callState
	byIndex  map[int]*callState
	usage    llm.Usage
	took     time.Duration
	tools    *toolSet
}

// content returns the reply's content text.
func (rp *reply) content() string {
	var b strings.Builder
	for _, s := range rp.segments {
		if s.kind == blockContent {
			b.WriteString(s.text.String())
		}
	}
	return b.String()
}

// blank reports whether the reply has no content text.
func (rp *reply) blank() bool { return strings.TrimSpace(rp.content()) == "" }

// assistant returns the reply as the model sees it later: its content and
// its calls (reasoning is never sent back).
func (rp *reply) assistant() llm.Message {
	m := llm.Message{Role: llm.RoleAssistant, Content: rp.content()}
	for _, c := range rp.calls {
		m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: c.id, Name: c.name, Arguments: c.arguments()})
	}
	return m
}

// turn streams one model turn (§§ 3.3, 3.4) and stores its messages.
func (r *run) turn(ctx context.Context, ts turnSpec) (*reply, error) {
	if r.modelCalls >= r.agent.Budget.Model.MaxCalls {
		return nil, failf(CodeBudgetExceeded, "Budget exceeded: model.maxCalls=%d", r.agent.Budget.Model.MaxCalls)
	}
	r.modelCalls++
	pm, err := r.provider(ts.config.ModelKey)
	if err != nil {
		return nil, err
	}
	req := r.request(ts, pm.m)
	if err := r.saveSystem(ctx, ts, req); err != nil {
		return nil, err
	}
	rp := &reply{msgID: newMsgID(), byIndex: map[int]*callState{}, tools: ts.tools}
	start := time.Now()
	r.inTurn = true
	if err := r.stream(ctx, pm.p, req, rp); err != nil {
		return nil, err
	}
	for _, c := range rp.calls {
		r.endCall(c)
	}
	r.em.emit(Event{Type: TurnEnd})
	r.inTurn = false
	rp.took = time.Since(start)
	r.usage = r.usage.Add(rp.usage)
	if len(rp.calls) == 0 {
		r.answer = rp.content()
	}
	if err := r.saveReply(ctx, ts.stage, rp); err != nil {
		return nil, err
	}
	return rp, nil
}

// stream plays one model call into rp (streamModel: the call timeout and
// the retry rule of § 6.3).
func (r *run) stream(ctx context.Context, p llm.Provider, req *llm.Request, rp *reply) error {
	for ev, err := range r.e.streamModel(ctx, p, req, r.agent.Budget.Model.Timeout(), r.log) {
		switch {
		case err != nil && ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			return &failure{info: modelFailure(err)}
		}
		if err := r.onEvent(rp, ev); err != nil {
			return err
		}
		if r.em.over() {
			return errEnded
		}
	}
	return ctx.Err()
}

// onEvent handles one upstream event.
func (r *run) onEvent(rp *reply, ev llm.Event) error {
	switch ev.Kind {
	case llm.EventTextDelta:
		r.text(rp, blockContent, ev.Text)
	case llm.EventReasoningDelta:
		r.text(rp, blockReasoning, ev.Text)
	case llm.EventToolCallStart:
		r.callStart(rp, ev)
	case llm.EventToolCallDelta:
		return r.callArgs(rp, ev)
	case llm.EventToolCallEnd:
		r.callEnd(rp, ev)
	case llm.EventUsage:
		if ev.Usage != nil {
			rp.usage = *ev.Usage
		}
	}
	return nil
}

// text forwards one delta at once (§ 3.4); text after a call of the turn
// is dropped (§ 3.3 rule 3). A change of kind opens a new block, as in the
// assembler, so the stored block ids equal the live ones.
func (r *run) text(rp *reply, kind, delta string) {
	if delta == "" {
		return
	}
	if len(rp.calls) > 0 {
		r.log.Debug("text after a tool call dropped", "kind", kind, "len", len(delta))
		return
	}
	cur := last(rp.segments)
	if cur == nil || cur.kind != kind {
		cur = &segment{kind: kind, id: r.blockID(kind)}
		rp.segments = append(rp.segments, cur)
	}
	cur.text.WriteString(delta)
	if kind == blockReasoning {
		r.em.emit(Event{Type: ReasoningDelta, Delta: delta})
	} else {
		r.em.emit(Event{Type: ContentDelta, Delta: delta})
	}
}

// blockID counts a new block of kind: {runId}_r_{n} / {runId}_c_{n}.
func (r *run) blockID(kind string) string {
	if kind == blockReasoning {
		r.nReasoning++
		return fmt.Sprintf("%s_r_%d", r.spec.RunID, r.nReasoning)
	}
	r.nContent++
	return fmt.Sprintf("%s_c_%d", r.spec.RunID, r.nContent)
}

// callStart opens a call once its name is known.
func (r *run) callStart(rp *reply, ev llm.Event) *callState {
	if ev.Call == nil || rp.byIndex[ev.Index] != nil {
		return rp.byIndex[ev.Index]
	}
	id := ev.Call.ID
	if id == "" || r.callIDs[id] {
		// none, or one this run already used (ids must stay unique in the
		// stream and in memory): the parser's own id
		r.nativeCalls++
		id = fmt.Sprintf("call_native_%d", r.nativeCalls)
	}
	r.callIDs[id] = true
	for _, c := range rp.calls {
		r.endCall(c) // the stream moved on to another call
	}
	c := r.newCall(id, ev.Call.Name, rp.tools)
	rp.calls = append(rp.calls, c)
	rp.byIndex[ev.Index] = c
	r.pending = append(r.pending, c)
	w := r.wire(c)
	r.em.emit(Event{Type: ToolStart, ToolID: c.id, Call: &w})
	return c
}

// callArgs streams one raw argument fragment; a fragment for a call that
// is not open is an upstream protocol violation (§ 3.3 rule 4).
func (r *run) callArgs(rp *reply, ev llm.Event) error {
	c := rp.byIndex[ev.Index]
	switch {
	case c == nil:
		return failf(CodeModelError, "argument fragment for an unknown call (index %d)", ev.Index)
	case !c.open:
		return failf(CodeModelError, "argument fragment for a call that has already ended: %s", c.id)
	case ev.Text == "":
		return nil
	}
	c.args.WriteString(ev.Text)
	r.em.emit(Event{Type: ToolArgs, ToolID: c.id, Delta: ev.Text})
	return nil
}

// callEnd ends a call with its complete arguments. Arguments that arrive
// only with the end are streamed as one fragment first.
func (r *run) callEnd(rp *reply, ev llm.Event) {
	c := rp.byIndex[ev.Index]
	if c == nil {
		if c = r.callStart(rp, ev); c == nil {
			return
		}
	}
	if ev.Call != nil && ev.Call.Arguments != "" {
		c.final = ev.Call.Arguments
		if c.args.Len() == 0 && c.open {
			c.args.WriteString(c.final)
			r.em.emit(Event{Type: ToolArgs, ToolID: c.id, Delta: c.final})
		}
	}
	r.endCall(c)
}

// endCall emits the call's end once.
func (r *run) endCall(c *callState) {
	if c.open {
		c.open = false
		r.em.emit(Event{Type: ToolEnd, ToolID: c.id})
	}
}

func last[T any](s []*T) *T {
	if len(s) == 0 {
		return nil
	}
	return s[len(s)-1]
}
