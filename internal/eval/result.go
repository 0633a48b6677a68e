package eval

import (
	"github.com/aitexteditor/aite/internal/llm"
)

// TaskResult is one scored task, as stored for resuming and reported.
type TaskResult struct {
	ID     string  `json:"id"`
	Family Family  `json:"family"`
	Prompt string  `json:"prompt,omitempty"`
	Gold   string  `json:"gold"`
	Answer string  `json:"answer"`
	Result Verdict `json:"result"`
	Reason string  `json:"reason,omitempty"`
	// Calls, the tokens and EstimatedCalls count every model call of the
	// task (see Outcome).
	Calls          int      `json:"calls"`
	InputTokens    int      `json:"inputTokens"`
	CachedTokens   int      `json:"cachedInputTokens,omitempty"`
	OutputTokens   int      `json:"outputTokens"`
	EstimatedCalls int      `json:"estimatedCalls,omitempty"`
	Cost           *float64 `json:"cost"` // nil: the model's prices are unknown
	Rho            float64  `json:"rho"`
	Seconds        float64  `json:"seconds"`
	Commands       int      `json:"commands"`
	Log            string   `json:"log,omitempty"` // what the runs showed (tool calls, batches, edits)
	// A relay's steps, the bytes its final book differs from the original
	// by, and the share of the original's bytes that survived.
	Steps       []StepResult `json:"steps,omitempty"`
	BytesDiffer *int         `json:"bytesDiffer,omitempty"`
	Preserved   *float64     `json:"preserved,omitempty"`
	FinalBook   string       `json:"finalBook,omitempty"`
}

// StepResult is one scored command of a relay.
type StepResult struct {
	Task    string  `json:"task"`
	Index   int     `json:"index"` // 1-based
	Op      string  `json:"op"`
	Inverse bool    `json:"inverse,omitempty"`
	Result  Verdict `json:"result"`
	Reason  string  `json:"reason,omitempty"`
	Answer  string  `json:"answer,omitempty"`
	// Skipped: not run, because an earlier step damaged its target.
	Skipped        bool     `json:"skipped,omitempty"`
	Calls          int      `json:"calls"`
	InputTokens    int      `json:"inputTokens"`
	CachedTokens   int      `json:"cachedInputTokens,omitempty"`
	OutputTokens   int      `json:"outputTokens"`
	EstimatedCalls int      `json:"estimatedCalls,omitempty"`
	Cost           *float64 `json:"cost"`
	Seconds        float64  `json:"seconds"`
	// After is the SHA-256 of the book after the step: a resumed relay
	// goes on only from the book the last recorded step left.
	After string `json:"after"`
}

func (r *TaskResult) usage() llm.Usage {
	return llm.Usage{InputTokens: r.InputTokens, CachedInputTokens: r.CachedTokens, OutputTokens: r.OutputTokens}
}

func (r *StepResult) usage() llm.Usage {
	return llm.Usage{InputTokens: r.InputTokens, CachedInputTokens: r.CachedTokens, OutputTokens: r.OutputTokens}
}

// setOutcome copies what an outcome spent into the result.
func (r *TaskResult) setOutcome(o Outcome, seconds float64) {
	r.Calls, r.EstimatedCalls, r.Seconds = o.Calls, o.EstimatedCalls, seconds
	r.InputTokens, r.CachedTokens, r.OutputTokens = o.Usage.InputTokens, o.Usage.CachedInputTokens, o.Usage.OutputTokens
}

func (s *StepResult) setOutcome(o Outcome, seconds float64) {
	s.Calls, s.EstimatedCalls, s.Seconds = o.Calls, o.EstimatedCalls, seconds
	s.InputTokens, s.CachedTokens, s.OutputTokens = o.Usage.InputTokens, o.Usage.CachedInputTokens, o.Usage.OutputTokens
}

// ModelInfo names the model under test.
type ModelInfo struct {
	Key     string       `json:"key"`
	ModelID string       `json:"modelId"`
	Pricing *llm.Pricing `json:"pricing,omitempty"` // nil: unknown
}

// cost prices u, nil when the prices are unknown.
func (m ModelInfo) cost(u llm.Usage) *float64 {
	if m.Pricing == nil {
		return nil
	}
	c := m.Pricing.Cost(u)
	return &c
}
