package agent

import (
	"context"
	"strings"

	"github.com/aitexteditor/aite/internal/agentdef"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/models"
)

// request builds the model request of a turn: system prompt → memory
// window → user message → stage messages (§§ 5.2, 6.2), with the stage's
// model settings, and tools only when the turn offers some (§ 6.3).
func (r *run) request(ts turnSpec, m models.Model) *llm.Request {
	req := &llm.Request{Model: m.ModelID, Temperature: ts.config.Temperature, TopP: ts.config.TopP}
	if ts.config.MaxTokens != nil {
		req.MaxOutputTokens = *ts.config.MaxTokens
	}
	req.Reasoning = reasoning(ts)
	req.Messages = r.messages(r.systemPrompt(ts, true), ts.msgs)
	if ts.withTools() {
		no := false
		req.Tools = ts.tools.llmTools()
		req.ToolChoice = llm.ToolChoice{Mode: toolChoice(ts.choice)}
		req.ParallelToolCalls = &no
	}
	return req
}

// messages assembles the conversation of a request.
func (r *run) messages(system string, stage []llm.Message) []llm.Message {
	out := make([]llm.Message, 0, 2+len(r.history)+len(stage))
	out = append(out, llm.Message{Role: llm.RoleSystem, Content: system})
	out = append(out, r.history...)
	out = append(out, r.user)
	return append(out, stage...)
}

// reasoning returns Request.Reasoning for a turn.
func reasoning(ts turnSpec) *llm.ReasoningConfig {
	effort := strings.ToLower(string(ts.config.Reasoning.Effort))
	switch {
	case ts.reasoning == reasoningOn:
		return &llm.ReasoningConfig{Effort: effort}
	case ts.reasoning == reasoningOff || !ts.config.Reasoning.Enabled:
		return nil
	}
	return &llm.ReasoningConfig{Effort: effort}
}

func toolChoice(c agentdef.ToolChoice) llm.ToolChoiceMode {
	switch c {
	case agentdef.ToolChoiceNone:
		return llm.ToolChoiceNone
	case agentdef.ToolChoiceRequired:
		return llm.ToolChoiceRequired
	}
	return llm.ToolChoiceAuto
}

// systemPrompt assembles the system prompt of a turn in the order of
// § 6.2: stage prompt, skill catalog, deferred skill disclosures (only
// when withDisclosures: they are never persisted), backend tool appendix.
func (r *run) systemPrompt(ts turnSpec, withDisclosures bool) string {
	parts := []string{strings.TrimSpace(ts.system), r.skillCatalog()}
	if withDisclosures {
		parts = append(parts, r.disclosures())
	}
	parts = append(parts, r.toolAppendix(ts.tools))
	var kept []string
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, "\n\n")
}

// skillCatalog lists the agent's skills (§ 6.2 item 2).
func (r *run) skillCatalog() string {
	var b strings.Builder
	for _, id := range r.agent.Skills {
		s, ok := r.spec.Defs.Skill(id)
		if !ok {
			continue
		}
		if b.Len() == 0 {
			b.WriteString(r.agent.RuntimePrompts.CatalogHeader)
		}
		b.WriteString("\n\nskillId: " + s.ID + "\nname: " + s.Name + "\ndescription: " + s.Description)
	}
	return b.String()
}

// disclosures returns the instructions of the skills disclosed so far
// (§ 6.2 item 3).
func (r *run) disclosures() string {
	var parts []string
	rp := r.agent.RuntimePrompts
	for _, id := range r.disclosed {
		s, ok := r.spec.Defs.Skill(id)
		if !ok {
			continue
		}
		parts = append(parts, rp.DisclosureHeader+"\n"+s.Name+"\n"+rp.InstructionsLabel+"\n"+s.Prompt)
	}
	return strings.Join(parts, "\n\n")
}

// toolAppendix lists the descriptions and after-call hints of the
// ordinary backend tools the turn offers (§ 6.2 item 4).
func (r *run) toolAppendix(tools *toolSet) string {
	if tools.empty() {
		return ""
	}
	var notes, hints []string
	for _, t := range tools.list {
		if t.kind != agentdef.ToolBackend || !t.ordinary() {
			continue
		}
		if d := strings.TrimSpace(t.schema.Description); d != "" {
			notes = append(notes, "- "+t.name+": "+d)
		}
		if t.def != nil && t.def.AfterCallHint != "" {
			hints = append(hints, "- "+t.name+": "+t.def.AfterCallHint)
		}
	}
	rp := r.agent.RuntimePrompts
	var parts []string
	if len(notes) > 0 {
		parts = append(parts, rp.ToolDescriptionTitle+"\n"+strings.Join(notes, "\n"))
	}
	if len(hints) > 0 {
		parts = append(parts, rp.AfterCallHintTitle+"\n"+strings.Join(hints, "\n"))
	}
	return strings.Join(parts, "\n\n")
}

// wireMessage is a message of a system snapshot, in the OpenAI shape.
type wireMessage struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []wireCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Name       string     `json:"name,omitempty"`
}

// wireCall is one tool call in the OpenAI shape, in system snapshots and
// in stored tool_calls[].
type wireCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// functionCall returns a call of type function.
func functionCall(id, name, args string) wireCall {
	return wireCall{ID: id, Type: "function", Function: wireFunction{name, args}}
}

// wireTool is an offered tool in the OpenAI shape; llm.Tool already has
// its function's JSON keys.
type wireTool struct {
	Type     string   `json:"type"`
	Function llm.Tool `json:"function"`
}

// snapshot is the stored system snapshot of a model call (§ 5.1).
type snapshot struct {
	Model    string        `json:"model"`
	Messages []wireMessage `json:"messages"`
	Tools    []wireTool    `json:"tools,omitempty"`
	Stream   bool          `json:"stream"`
}

// saveSystem stores the snapshot of the model call req. Its system prompt
// leaves out the deferred skill disclosures: they are never persisted
// (§ 6.2).
func (r *run) saveSystem(ctx context.Context, ts turnSpec, req *llm.Request) error {
	s := snapshot{Model: req.Model, Stream: true,
		Messages: []wireMessage{{Role: string(llm.RoleSystem), Content: r.systemPrompt(ts, false)}}}
	for _, m := range req.Messages[1:] {
		w := wireMessage{Role: string(m.Role), Content: m.Content, ToolCallID: m.ToolCallID, Name: m.Name}
		for _, c := range m.ToolCalls {
			w.ToolCalls = append(w.ToolCalls, functionCall(c.ID, c.Name, c.Arguments))
		}
		s.Messages = append(s.Messages, w)
	}
	for _, t := range req.Tools {
		s.Tools = append(s.Tools, wireTool{Type: "function", Function: t})
	}
	body, err := marshal(s)
	if err != nil {
		return internalf("system snapshot: %v", err)
	}
	sm, ok := r.e.Memory.(snapshotMemory)
	if !ok {
		return nil
	}
	if _, err := sm.AppendSystem(ctx, r.spec.RunID, ts.stage, body); err != nil {
		return internalf("store system snapshot: %v", err)
	}
	return nil
}
