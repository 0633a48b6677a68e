package anthropic

import (
	"fmt"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/packages/param"

	"github.com/aitexteditor/aite/internal/llm"
)

// thinkingBudget maps a reasoning effort to budget_tokens: low (or minimal)
// 1024, medium (or empty) 4096, high (or xhigh, max) 16384, none 0 (off).
func thinkingBudget(effort string) (int, error) {
	switch effort {
	case "none":
		return 0, nil
	case "minimal", "low":
		return BudgetLow, nil
	case "", "medium":
		return BudgetMedium, nil
	case "high", "xhigh", "max":
		return BudgetHigh, nil
	}
	return 0, fmt.Errorf("unknown reasoning effort %q", effort)
}

// thinking turns Request.Reasoning into extended thinking
// (thinking:{type:enabled,budget_tokens}) and adds the budget to max_tokens,
// so that the visible answer keeps its whole allowance and max_tokens stays
// above the budget. Anthropic rejects thinking together with a forced tool
// choice and inside a tool-use cycle whose thinking blocks are not sent back
// (llm.Message cannot carry their signatures); thinking is then left off,
// with a warning. With thinking on, temperature is not sent (Anthropic
// accepts none but the default).
func (p *Provider) thinking(req *llm.Request, params *anthropic.MessageNewParams) error {
	if req.Reasoning == nil {
		return nil
	}
	budget, err := thinkingBudget(req.Reasoning.Effort)
	if err != nil || budget == 0 {
		return err
	}
	if reason := thinkingConflict(req, params); reason != "" {
		p.cfg.Logger.Warn("llm/anthropic: extended thinking left off", "model", req.Model, "reason", reason)
		return nil
	}
	params.Thinking = anthropic.ThinkingConfigParamOfEnabled(int64(budget))
	params.MaxTokens += int64(budget)
	if params.Temperature.Valid() {
		p.cfg.Logger.Warn("llm/anthropic: temperature not sent with extended thinking", "model", req.Model)
		params.Temperature = param.Opt[float64]{}
	}
	return nil
}

// thinkingConflict says why thinking cannot be enabled for req, or "".
func thinkingConflict(req *llm.Request, params *anthropic.MessageNewParams) string {
	if params.ToolChoice.OfAny != nil || params.ToolChoice.OfTool != nil {
		return "forced tool use (tool_choice any/tool) does not allow thinking"
	}
	if inToolCycle(req.Messages) {
		return "the conversation is inside a tool-use cycle whose thinking blocks cannot be sent back"
	}
	return ""
}

// inToolCycle reports an assistant message with tool calls after the last
// user message: the model's turn is still running through tool results.
func inToolCycle(msgs []llm.Message) bool {
	for i := len(msgs) - 1; i >= 0; i-- {
		switch m := msgs[i]; m.Role {
		case llm.RoleUser:
			return false
		case llm.RoleAssistant:
			if len(m.ToolCalls) > 0 {
				return true
			}
		}
	}
	return false
}
