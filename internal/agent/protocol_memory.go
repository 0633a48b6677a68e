package agent

import (
	"context"
	"encoding/json"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/agent/protocol"
	"github.com/aitexteditor/aite/internal/agentdef"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/store"
)

// The `_type` of the rows a protocol run stores besides the user message
// (AGENT_PROTOCOL § 5.5).
const (
	lineStep    = "step"
	lineContext = "context"
)

// Stage column of the context lines, and the protocol stages (`_stage`).
const (
	stageContext  = "context"
	stageReact    = "react"
	stageDelegate = "delegate"
)

// kindConversation is the data kind of the run-end conversation log.
const kindConversation = "conversation"

// stepLine is one model request of a protocol run with its reply: the
// rendered system and user messages, the assistant reply (raw content or
// the respond call) and the parse (AGENT_PROTOCOL § 5.5).
type stepLine struct {
	Type         string             `json:"_type"`
	Messages     []wireMessage      `json:"messages"`
	TS           int64              `json:"ts"`
	MsgID        string             `json:"_msgId"`
	Stage        string             `json:"_stage"`
	Turn         int                `json:"_turn"`
	Repair       int                `json:"_repair"`
	Solution     json.RawMessage    `json:"_solution,omitempty"` // absent when unparsable
	Warnings     []protocol.Warning `json:"_warnings"`
	Tally        []protocol.Tally   `json:"_tally"`
	ParentToolID string             `json:"_parentToolId,omitempty"`
	Model        string             `json:"_model,omitempty"`
	Usage        *storedUsage       `json:"_usage"`
}

// contextLine is every message appended during one turn (writes with their
// hidden fields, errors, advice, activity messages, `_grants`), or the
// run-end conversation push (AGENT_PROTOCOL § 5.5).
type contextLine struct {
	Type      string             `json:"_type"`
	ChatID    string             `json:"chatId"`
	RunID     string             `json:"runId"`
	Turn      int                `json:"turn"`
	UpdatedAt int64              `json:"updatedAt"`
	Messages  []agentctx.Message `json:"messages"`
	TS        int64              `json:"ts"`
	MsgID     string             `json:"_msgId"`
}

// loadMemory reads the chat memory of a protocol run: the messages of the
// context lines of the last memory.k runs before this one, in order (the
// runtime folds them). first reports that the model has not answered in
// the chat yet (no earlier run stored a step or an assistant message).
func (p *protoRun) loadMemory(ctx context.Context) (agentctx.Context, bool, error) {
	kept, err := p.e.memoryWindow(ctx, p.spec)
	if err != nil {
		return nil, false, err
	}
	var memory agentctx.Context
	first := true
	for _, m := range kept {
		var head struct {
			Type     string            `json:"_type"`
			Role     string            `json:"role"`
			Messages []json.RawMessage `json:"messages"`
		}
		if json.Unmarshal(m.Body, &head) != nil {
			continue
		}
		if head.Type == lineStep || head.Role == string(llm.RoleAssistant) {
			first = false
		}
		if head.Type != lineContext {
			continue
		}
		for _, raw := range head.Messages {
			msg, err := agentctx.ParseMessage(raw)
			if err != nil {
				p.log.Warn("chat memory: a stored context message does not parse; skipped", "run", m.RunID, "err", err)
				continue
			}
			memory = append(memory, msg)
		}
	}
	return memory, first, nil
}

// firstStage is the stage the user message is stored under.
func (p *protoRun) firstStage() string {
	if p.agent.Mode == agentdef.ModeOneshot {
		return stageOneshot
	}
	return reactStage(1)
}

// saveUser stores the user message of the run (for rawMessages; protocol
// memory does not read it back: the next run sees the conversation log).
func (p *protoRun) saveUser(ctx context.Context) error {
	return p.store(ctx, p.firstStage(), store.Message{}, storedMessage{Role: string(llm.RoleUser),
		Content: []textPart{{"text", p.spec.Message}}, TS: p.ts(), MsgID: newMsgID()})
}

// saveStep stores one model request with its reply; the row's stage is
// react-step-N (oneshot, delegate for a sub-run's step).
func (p *protoRun) saveStep(ctx context.Context, ev protocol.Event) {
	st := ev.Step
	if st == nil {
		return
	}
	line := stepLine{Type: lineStep, TS: p.ts(), MsgID: newMsgID(), Stage: st.Stage, Turn: st.Turn, Repair: st.Repair,
		Warnings: st.Warnings, Tally: st.Tallies, ParentToolID: st.ParentToolID,
		Usage: &storedUsage{PromptTokens: st.Usage.InputTokens, CompletionTokens: st.Usage.OutputTokens,
			TotalTokens: st.Usage.InputTokens + st.Usage.OutputTokens, CachedTokens: st.Usage.CachedInputTokens}}
	if line.Warnings == nil {
		line.Warnings = []protocol.Warning{}
	}
	if line.Tally == nil {
		line.Tally = []protocol.Tally{}
	}
	if st.Request != nil {
		line.Model = st.Request.Model
		for _, m := range st.Request.Messages {
			line.Messages = append(line.Messages, wireMessage{Role: string(m.Role), Content: m.Content})
		}
	}
	reply := wireMessage{Role: string(llm.RoleAssistant), Content: st.Reply.Content}
	for _, c := range st.Reply.ToolCalls {
		reply.ToolCalls = append(reply.ToolCalls, functionCall(c.ID, c.Name, c.Arguments))
	}
	line.Messages = append(line.Messages, reply)
	if st.Solution != nil {
		if b, err := agentctx.Encode(st.Solution); err == nil {
			line.Solution = b
		}
	}
	stage := st.Stage
	switch {
	case st.Stage == stageReact:
		stage = reactStage(st.Turn)
	case st.Stage == stageDelegate:
		stage = stageDelegate
	}
	if err := p.store(ctx, stage, store.Message{}, line); err != nil {
		p.fail(err)
	}
}

// saveContext stores the messages appended during one turn.
func (p *protoRun) saveContext(ctx context.Context, turn int, msgs agentctx.Context) {
	if err := p.storeContext(ctx, turn, msgs); err != nil {
		p.fail(err)
	}
}

func (p *protoRun) storeContext(ctx context.Context, turn int, msgs agentctx.Context) error {
	if len(msgs) == 0 {
		return nil
	}
	now := p.ts()
	line := contextLine{Type: lineContext, ChatID: p.spec.ChatID, RunID: p.spec.RunID, Turn: turn, UpdatedAt: now,
		Messages: msgs, TS: now, MsgID: newMsgID()}
	return p.store(ctx, stageContext, store.Message{}, line)
}

// saveConversation stores the run-end push to the conversation log
// (`data kind:conversation`): {run, message, answer} with the output text,
// or {run, message, finishReason} when a limit stopped the run. Later runs
// of the chat render it in the append-only tier.
func (p *protoRun) saveConversation(ctx context.Context, res *protocol.RunResult) error {
	entry := agentctx.NewObject("run", p.spec.RunID, "message", p.spec.Message)
	switch {
	case res.HasOutput && p.output != nil:
		entry.Set("answer", p.output.Text)
	case res.HasOutput:
		entry.Set("answer", res.Output)
	default:
		entry.Set("finishReason", res.FinishReason)
	}
	m := agentctx.Message{Type: agentctx.TypeData, Kind: kindConversation, HasValue: true, Value: entry,
		OutputMethod: agentctx.MethodPush, Date: p.e.now().UTC().Format("2006-01-02T15:04:05.000Z07:00")}
	return p.storeContext(ctx, p.turn, agentctx.Context{m})
}

// store appends one row of stage (body = v) to the run, serialised with the
// other rows of the run.
func (p *protoRun) store(ctx context.Context, stage string, row store.Message, v any) error {
	body, err := marshal(v)
	if err != nil {
		return internalf("encode message: %v", err)
	}
	row.Stage, row.Body = stage, body
	var head struct {
		MsgID string `json:"_msgId"`
	}
	_ = json.Unmarshal(body, &head)
	row.MsgID = head.MsgID
	p.stores.Lock()
	defer p.stores.Unlock()
	if err := p.e.Memory.AppendMessages(ctx, p.spec.RunID, row); err != nil {
		return internalf("store messages: %v", err)
	}
	return nil
}

func (p *protoRun) ts() int64 { return p.e.now().UnixMilli() }
