package assist

import (
	"github.com/aitexteditor/aite/internal/cursoragent"
	"github.com/aitexteditor/aite/internal/llm"
)

// Estimate is what a build is expected to spend, from the items and bytes
// it will read (llm.EstimateTokens: about 4 Latin or 2.5 Cyrillic
// characters a token). It is an estimate: the model's own counts decide.
type Estimate struct {
	Entries      int     `json:"entries"`
	Items        int     `json:"items"`
	Calls        int     `json:"calls"`
	InputTokens  int     `json:"inputTokens"`
	OutputTokens int     `json:"outputTokens"`
	Cost         float64 `json:"cost,omitempty"`
	Priced       bool    `json:"priced"`
}

// Per-call sizes of the estimate.
const (
	batchItems     = 40    // the cursor agent's collect batches
	batchBytes     = 24000 //
	stepOverhead   = 200   // the task and snapshot messages of a step
	outputPerStep  = 60    // the decision without evidence
	outputPerItem  = 45    // one piece of evidence with its fact
	factPerItem    = 30    // a fact as the entry call reads it
	entryOutput    = 400   // the entry call's answer
	othersPerEntry = 12    // one other entry as the entry call lists it
	excerptTokens  = 600   // the excerpts of the entry call
)

// Estimate estimates the pending entries of a plan (others: how many
// entries the codex has, which every entry call lists).
func (b *Builder) Estimate(p *Plan, others int) Estimate {
	step := llm.EstimateTokens(cursoragent.SystemPrompt()) + stepOverhead
	call := llm.EstimateTokens(entryPrompt) + excerptTokens + others*othersPerEntry
	var est Estimate
	for _, e := range p.Entries {
		if e.Status != Pending {
			continue
		}
		batches := max((e.Items+batchItems-1)/batchItems, (e.Bytes+batchBytes-1)/batchBytes, 1)
		est.Entries++
		est.Items += e.Items
		est.Calls += batches + 1
		// Markdown tokens: between 4 (Latin) and 2.5 (Cyrillic) characters
		// a token; bytes/3 covers both (Cyrillic letters take two bytes).
		est.InputTokens += batches*step + e.Bytes/3 + call + min(e.Items, maxEvidence)*factPerItem
		est.OutputTokens += batches*outputPerStep + e.Items*outputPerItem + entryOutput
	}
	if b.Pricing != (llm.Pricing{}) {
		est.Priced = true
		est.Cost = b.Pricing.Cost(llm.Usage{InputTokens: est.InputTokens, OutputTokens: est.OutputTokens})
	}
	return est
}
