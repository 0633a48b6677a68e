package agent

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/store"
)

// textPart is one entry of a stored content[] / reasoning_content[].
type textPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// storedUsage is the _usage of a stored assistant message.
type storedUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
	CachedTokens     int `json:"cached_tokens"`
}

// storedMessage is a message as stored (§ 5.1): OpenAI style plus the
// extension keys.
type storedMessage struct {
	Role             string       `json:"role"`
	Name             string       `json:"name,omitempty"`
	ToolCallID       string       `json:"tool_call_id,omitempty"`
	Content          []textPart   `json:"content,omitempty"`
	ReasoningContent []textPart   `json:"reasoning_content,omitempty"`
	ToolCalls        []wireCall   `json:"tool_calls,omitempty"`
	TS               int64        `json:"ts"`
	MsgID            string       `json:"_msgId,omitempty"`
	ReasoningID      string       `json:"_reasoningId,omitempty"`
	ContentID        string       `json:"_contentId,omitempty"`
	ToolID           string       `json:"_toolId,omitempty"`
	ActionID         string       `json:"_actionId,omitempty"`
	Timing           *int64       `json:"_timing,omitempty"`
	Usage            *storedUsage `json:"_usage,omitempty"`
}

// loadHistory reads the memory window: the messages of the last MemoryK
// runs of the chat before this one (§ 5.2).
func (r *run) loadHistory(ctx context.Context) error {
	kept, err := r.e.memoryWindow(ctx, r.spec)
	if err != nil {
		return err
	}
	r.history = historyMessages(kept)
	return nil
}

// memoryWindow returns the stored messages of the last memory.k runs of
// the run's chat before the run, in order (§ 5.2; protocol runs read their
// context lines from the same window); none in a new chat.
func (e *Runner) memoryWindow(ctx context.Context, spec Spec) ([]store.Message, error) {
	if spec.NewChat {
		return nil, nil
	}
	chatID, runID := spec.ChatID, spec.RunID
	k := e.memoryK()
	msgs, err := e.Memory.RecentMessages(ctx, chatID, k+1)
	if err != nil {
		return nil, fmt.Errorf("agent: memory: %w", err)
	}
	var runs []string
	var kept []store.Message
	for _, m := range msgs {
		if m.RunID == runID {
			continue
		}
		if len(runs) == 0 || runs[len(runs)-1] != m.RunID {
			runs = append(runs, m.RunID)
		}
		kept = append(kept, m)
	}
	if len(runs) > k {
		first := runs[len(runs)-k]
		for len(kept) > 0 && kept[0].RunID != first {
			kept = kept[1:]
		}
	}
	return kept, nil
}

// historyMessages converts stored messages back into model messages:
// reasoning is dropped, the messages of one reply (same _msgId) become one
// assistant message, and calls without a result (and results without a
// call) are left out.
func historyMessages(msgs []store.Message) []llm.Message {
	h := &history{calls: map[string]bool{}, results: map[string]bool{}}
	var parsed []storedMessage
	for _, m := range msgs {
		var sm storedMessage
		if json.Unmarshal(m.Body, &sm) != nil {
			continue
		}
		parsed = append(parsed, sm)
		for _, c := range sm.ToolCalls {
			h.calls[c.ID] = true
		}
		if sm.Role == string(llm.RoleTool) {
			h.results[sm.ToolCallID] = true
		}
	}
	for _, sm := range parsed {
		h.add(sm)
	}
	h.flush()
	return h.out
}

// history folds stored messages into model messages.
type history struct {
	calls, results map[string]bool // tool_call_ids with a call / with a result
	out            []llm.Message
	cur            *llm.Message // the assistant reply being folded
	curID          string       // its _msgId
}

func (h *history) add(sm storedMessage) {
	switch sm.Role {
	case string(llm.RoleUser):
		h.flush()
		h.out = append(h.out, llm.Message{Role: llm.RoleUser, Content: joinText(sm.Content)})
	case string(llm.RoleAssistant):
		if len(sm.Content) == 0 && len(sm.ToolCalls) == 0 {
			return // reasoning is never sent back
		}
		if h.cur == nil || sm.MsgID == "" || sm.MsgID != h.curID {
			h.flush()
			h.cur, h.curID = &llm.Message{Role: llm.RoleAssistant}, sm.MsgID
		}
		h.cur.Content += joinText(sm.Content)
		for _, c := range sm.ToolCalls {
			if h.results[c.ID] {
				h.cur.ToolCalls = append(h.cur.ToolCalls, llm.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
			}
		}
	case string(llm.RoleTool):
		h.flush()
		if h.calls[sm.ToolCallID] {
			h.out = append(h.out, llm.Message{Role: llm.RoleTool, ToolCallID: sm.ToolCallID, Name: sm.Name,
				Content: joinText(sm.Content)})
		}
	}
}

// flush ends the assistant reply being folded.
func (h *history) flush() {
	if h.cur != nil && (h.cur.Content != "" || len(h.cur.ToolCalls) > 0) {
		h.out = append(h.out, *h.cur)
	}
	h.cur, h.curID = nil, ""
}

func joinText(parts []textPart) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// saveUser stores the user message of the run.
func (r *run) saveUser(ctx context.Context) error {
	r.user = llm.Message{Role: llm.RoleUser, Content: r.spec.Message}
	return r.saveUserText(ctx, r.firstStage(), r.spec.Message)
}

// saveUserText stores a user message of stage.
func (r *run) saveUserText(ctx context.Context, stage, text string) error {
	return r.store(ctx, stage, storedMessage{Role: string(llm.RoleUser), Content: []textPart{{"text", text}},
		TS: r.ts(), MsgID: newMsgID()})
}

// saveReply stores a model reply: one message per text block, then one
// per call, all with the reply's _msgId (§ 5.1).
func (r *run) saveReply(ctx context.Context, stage string, rp *reply) error {
	timing := rp.took.Milliseconds()
	u := &storedUsage{PromptTokens: rp.usage.InputTokens, CompletionTokens: rp.usage.OutputTokens,
		TotalTokens: rp.usage.InputTokens + rp.usage.OutputTokens, CachedTokens: rp.usage.CachedInputTokens}
	base := storedMessage{Role: string(llm.RoleAssistant), TS: r.ts(), MsgID: rp.msgID, Timing: &timing, Usage: u}
	var msgs []storedMessage
	for _, s := range rp.segments {
		m := base
		part := []textPart{{"text", s.text.String()}}
		if s.kind == blockReasoning {
			m.ReasoningContent, m.ReasoningID = part, s.id
		} else {
			m.Content, m.ContentID = part, s.id
		}
		msgs = append(msgs, m)
	}
	for _, c := range rp.calls {
		m := base
		m.ToolCalls = []wireCall{functionCall(c.id, c.name, c.arguments())}
		m.ToolID, m.ActionID = idKeys(c)
		msgs = append(msgs, m)
	}
	return r.store(ctx, stage, msgs...)
}

// saveTool stores the result message of a call.
func (r *run) saveTool(ctx context.Context, stage string, c *callState, text string, took time.Duration) error {
	timing := took.Milliseconds()
	m := storedMessage{Role: string(llm.RoleTool), Name: c.name, ToolCallID: c.id, Content: []textPart{{"text", text}},
		TS: r.ts(), MsgID: newMsgID(), Timing: &timing}
	m.ToolID, m.ActionID = idKeys(c)
	return r.store(ctx, stage, m)
}

// idKeys returns _toolId and _actionId of a call: the live tool_call_id
// (§ 1.3, D5).
func idKeys(c *callState) (toolID, actionID string) {
	if c.kind == CallAction {
		return "", c.id
	}
	return c.id, ""
}

// store appends messages of stage to the run, each under its _msgId.
func (r *run) store(ctx context.Context, stage string, msgs ...storedMessage) error {
	if len(msgs) == 0 {
		return nil
	}
	rows := make([]store.Message, len(msgs))
	for i, m := range msgs {
		body, err := marshal(m)
		if err != nil {
			return internalf("encode message: %v", err)
		}
		rows[i] = store.Message{Stage: stage, TaskID: r.task, MsgID: m.MsgID, Body: body}
	}
	if err := r.e.Memory.AppendMessages(ctx, r.spec.RunID, rows...); err != nil {
		return internalf("store messages: %v", err)
	}
	return nil
}

func (r *run) ts() int64 { return r.e.now().UnixMilli() }

// marshal encodes v without HTML escaping and without a trailing newline.
func marshal(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// newMsgID returns "m_" + 8 lowercase hex digits.
func newMsgID() string { return "m_" + randHex() }

// randHex returns 8 random lowercase hex digits.
func randHex() string {
	var b [4]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}
