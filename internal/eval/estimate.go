package eval

import (
	"slices"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/llm"
)

// Overheads are the agents' fixed prompts, in tokens (llm.EstimateTokens).
type Overheads struct {
	// Command is what every turn of the command agent sends besides the
	// conversation: its system prompt and the tool declarations.
	Command int
	// Batch is what every cursor-agent call sends besides the batch's items.
	Batch int
}

// Estimate is a forecast of what a plan will spend.
type Estimate struct {
	Calls        int      `json:"calls"`
	InputTokens  int      `json:"inputTokens"`
	OutputTokens int      `json:"outputTokens"`
	Cost         *float64 `json:"cost"` // nil: the prices are unknown
}

// Per-turn sizes the estimate assumes (tokens).
const (
	turnOutput  = 80  // what the command agent writes in a turn besides edit text
	toolResult  = 400 // what a tool result adds to the conversation
	batchOutput = 100 // a cursor agent decision
)

// Estimate forecasts a plan's calls, tokens and cost, assuming the agents
// take the path a careful model takes: a keyword cursor, the cursor agent
// reading the name's paragraphs in the batches it uses for the mode up to
// the answer, a read before an edit, a short reply. A weaker model wanders
// and spends more; the report shows what was spent.
func (b *Book) Estimate(p *Plan, o Overheads, m ModelInfo) Estimate {
	var u llm.Usage
	calls := 0
	add := func(turns int, read []*document.Item, batch int, editOut int) {
		if turns > 0 {
			calls += turns
			u.InputTokens += turns*o.Command + turns*(turns-1)/2*toolResult
			u.OutputTokens += turns*turnOutput + editOut
		}
		for len(read) > 0 {
			n := min(batch, len(read))
			calls++
			u.InputTokens += o.Batch + b.itemTokens(read[:n])
			u.OutputTokens += batchOutput
			read = read[n:]
		}
	}
	for _, t := range p.Tasks {
		b.estimateTask(t, add)
	}
	return Estimate{Calls: calls, InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, Cost: m.cost(u)}
}

// estimateTask adds the path of one task: command-agent turns, the items
// the cursor agent reads and its batch size, the edit text written.
func (b *Book) estimateTask(t Task, add func(turns int, read []*document.Item, batch, editOut int)) {
	ms := b.mentions(t.Params.Name)
	upTo := func(k int) []*document.Item { return ms[:min(max(k, 1), len(ms))] }
	switch t.Family {
	case First, Chapter:
		add(3+boolInt(t.Family == Chapter), upTo(1), 4, 0)
	case Nth:
		add(3, upTo(t.Params.N), t.Params.N+2, 0)
	case Last:
		add(3, ms[max(len(ms)-1, 0):], 4, 0)
	case Count:
		add(3, b.inChapter(ms, t.Params.Chapter), 40, 0)
	case Collect:
		add(3, ms, 40, 0)
	case Walk:
		add(0, b.walkRead(ms, t), 4, 0)
	case Insert:
		add(4, upTo(t.Params.N), t.Params.N+2, b.textTokens(t.Params.Text))
	case Replace:
		add(3, nil, 0, b.pointerTokens(t.Gold.Edit.Pointer)+b.textTokens(t.Params.Text))
	case Relay:
		for _, s := range t.Steps {
			add(3, nil, 0, 2*b.pointerTokens(s.Params.Target))
		}
	}
}

// walkRead is what a cursor-agent walk over the paragraphs of the name
// reads up to its gold.
func (b *Book) walkRead(ms []*document.Item, t Task) []*document.Item {
	if t.Params.Mode == "collect" || len(t.Gold.Pointers) == 0 {
		return ms
	}
	gold, err := b.resolve(t.Gold.Pointers[0])
	if err != nil {
		return ms
	}
	i := slices.Index(ms, gold)
	if t.Params.Mode == "last" {
		return ms[max(i, 0):]
	}
	return ms[:i+1]
}

func (b *Book) inChapter(ms []*document.Item, heading string) []*document.Item {
	h, err := b.resolve(heading)
	if err != nil {
		return ms
	}
	end := b.doc.SectionEnd(h.Index())
	var out []*document.Item
	for _, it := range ms {
		if it.Index() > h.Index() && it.Index() < end {
			out = append(out, it)
		}
	}
	return out
}

func (b *Book) itemTokens(items []*document.Item) int {
	n := 0
	for _, it := range items {
		n += b.textTokens(b.markdownOf(it))
	}
	return n
}

func (b *Book) pointerTokens(ptr string) int {
	it, err := b.resolve(ptr)
	if err != nil {
		return 0
	}
	return b.textTokens(b.markdownOf(it))
}

func (b *Book) textTokens(s string) int { return llm.EstimateTokens(s) }

func boolInt(v bool) int {
	if v {
		return 1
	}
	return 0
}
