package server

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/aitexteditor/aite/internal/api"
	"github.com/aitexteditor/aite/internal/store"
)

// CompactHistory builds ChatDetail.events (§ 5.3) from the live event logs
// of a chat's runs, given in run id order, each in seq order:
//
//   - request.query, run.start, task.*, tool.result, action.result,
//     request.submit, document.edit, run.complete, run.error and any type
//     it does not know stay unchanged at their position;
//   - chat.start is kept in the first run only, without chatImageToken;
//   - reasoning.start/delta*/end and content.start/delta*/end become one
//     reasoning.snapshot / content.snapshot (text = the concatenated
//     deltas) at the start position;
//   - tool.start/args*/end and action.start/args*/end become one
//     tool.snapshot / action.snapshot (arguments = the concatenated
//     fragments, toolParams = their parse when they form a JSON object;
//     the frontend fields are kept);
//   - of a run's plan.update events only the last is kept, placed right
//     after run.start and stamped with run.start's time (its own, later
//     time would push every following timestamp forward).
//
// A running run simply contributes the events it has so far. Ids are the
// live ones; seq is renumbered 1.. over the whole chat and timestamps are
// forced strictly increasing (+1 ms when needed). The result is never nil;
// logs are not modified.
func CompactHistory(logs [][]store.Event) []api.Event {
	out := []api.Event{}
	for i, log := range logs {
		c := compactor{first: i == 0, open: map[string]*snapshot{}, runStart: -1}
		for _, e := range log {
			c.add(e)
		}
		out = append(out, c.result()...)
	}
	var last int64
	for i := range out {
		out[i].Seq = int64(i + 1)
		if i > 0 && out[i].Timestamp <= last {
			out[i].Timestamp = last + 1
		}
		last = out[i].Timestamp
	}
	return out
}

// compactor compacts the log of one run.
type compactor struct {
	first    bool                 // the chat's first run: chat.start is kept
	out      []api.Event          // snapshots hold a *snapshot until result
	open     map[string]*snapshot // snapshots by kind + id, to collect deltas
	plan     *api.Event           // the run's last plan.update
	runStart int                  // index of run.start in out, -1 before it
}

// snapshot collects one text block or call.
type snapshot struct {
	typ  string // the snapshot event type
	head any    // the start event's payload (ReasoningStart, ToolStart, …)
	text strings.Builder
}

// add takes one live event.
func (c *compactor) add(se store.Event) {
	e := StoredEvent(se)
	raw, _ := e.Payload.(json.RawMessage)
	switch e.Type {
	case api.TypeReasoningStart:
		var p api.ReasoningStart
		c.start(e, raw, &p, api.TypeReasoningSnapshot, func() string { return p.ReasoningID })
	case api.TypeContentStart:
		var p api.ContentStart
		c.start(e, raw, &p, api.TypeContentSnapshot, func() string { return p.ContentID })
	case api.TypeToolStart:
		var p api.ToolStart
		c.start(e, raw, &p, api.TypeToolSnapshot, func() string { return p.ToolID })
	case api.TypeActionStart:
		var p api.ActionStart
		c.start(e, raw, &p, api.TypeActionSnapshot, func() string { return p.ActionID })
	case api.TypeReasoningDelta:
		c.delta(raw, api.TypeReasoningSnapshot, "reasoningId")
	case api.TypeContentDelta:
		c.delta(raw, api.TypeContentSnapshot, "contentId")
	case api.TypeToolArgs:
		c.delta(raw, api.TypeToolSnapshot, "toolId")
	case api.TypeActionArgs:
		c.delta(raw, api.TypeActionSnapshot, "actionId")
	case api.TypeReasoningEnd, api.TypeContentEnd, api.TypeToolEnd, api.TypeActionEnd:
		// folded into the snapshot
	case api.TypePlanUpdate:
		c.plan = &e
	case api.TypeChatStart:
		c.chatStart(e, raw)
	case api.TypeRunStart:
		c.runStart = len(c.out)
		c.out = append(c.out, e)
	default:
		c.out = append(c.out, e)
	}
}

// start opens the snapshot of a block or call at this position; head must
// point to the start payload type, id returns its id once decoded.
func (c *compactor) start(e api.Event, raw json.RawMessage, head any, typ string, id func() string) {
	if json.Unmarshal(raw, head) != nil || id() == "" {
		return
	}
	key := typ + "\x00" + id()
	if c.open[key] != nil {
		return // a second start of the same id: the first one stands
	}
	s := &snapshot{typ: typ, head: head}
	c.open[key] = s
	c.out = append(c.out, api.Event{Type: typ, Timestamp: e.Timestamp, Payload: s})
}

// delta appends a text delta or argument fragment to its open snapshot;
// one without a start is dropped.
func (c *compactor) delta(raw json.RawMessage, typ, idKey string) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return
	}
	var id, delta string
	if json.Unmarshal(fields[idKey], &id) != nil || json.Unmarshal(fields["delta"], &delta) != nil {
		return
	}
	if s := c.open[typ+"\x00"+id]; s != nil {
		s.text.WriteString(delta)
	}
}

// chatStart keeps chat.start in the chat's first run, without the token.
func (c *compactor) chatStart(e api.Event, raw json.RawMessage) {
	if !c.first {
		return
	}
	var p api.ChatStart
	if json.Unmarshal(raw, &p) == nil {
		p.ChatImageToken = ""
		e.Payload = p
	}
	c.out = append(c.out, e)
}

// result returns the compacted run: snapshots filled in and the last
// plan.update right after run.start (at the front without run.start).
func (c *compactor) result() []api.Event {
	for i := range c.out {
		if s, ok := c.out[i].Payload.(*snapshot); ok {
			c.out[i].Payload = s.payload()
		}
	}
	if c.plan == nil {
		return c.out
	}
	p, at := *c.plan, 0
	if c.runStart >= 0 {
		at = c.runStart + 1
		p.Timestamp = c.out[c.runStart].Timestamp
	}
	out := make([]api.Event, 0, len(c.out)+1)
	out = append(out, c.out[:at]...)
	out = append(out, p)
	return append(out, c.out[at:]...)
}

// payload returns the snapshot event's payload.
func (s *snapshot) payload() any {
	text := s.text.String()
	switch h := s.head.(type) {
	case *api.ReasoningStart:
		return api.ReasoningSnapshot{ReasoningID: h.ReasoningID, Text: text, TaskID: h.TaskID}
	case *api.ContentStart:
		return api.ContentSnapshot{ContentID: h.ContentID, Text: text, TaskID: h.TaskID}
	case *api.ToolStart:
		if text == "" && len(h.ToolParams) > 0 {
			text = string(h.ToolParams)
		}
		return api.ToolSnapshot{ToolID: h.ToolID, ToolName: h.ToolName, Arguments: text, ToolType: h.ToolType,
			ToolAPI: h.ToolAPI, ToolParams: jsonObject(text), Description: h.Description, ToolKey: h.ToolKey,
			ToolTimeout: h.ToolTimeout, TaskID: h.TaskID}
	case *api.ActionStart:
		return api.ActionSnapshot{ActionID: h.ActionID, ActionName: h.ActionName, Arguments: text,
			Description: h.Description, TaskID: h.TaskID}
	}
	return nil
}

// jsonObject returns text compacted when it is one JSON object, else nil.
func jsonObject(text string) json.RawMessage {
	t := bytes.TrimSpace([]byte(text))
	if len(t) == 0 || t[0] != '{' || !json.Valid(t) {
		return nil
	}
	var buf bytes.Buffer
	if json.Compact(&buf, t) != nil {
		return nil
	}
	return buf.Bytes()
}
