package eval

import (
	"github.com/aitexteditor/aite/internal/llm"
)

// TokenEstimator names the token count of the whole book, the base of ρ.
const TokenEstimator = "llm.EstimateTokens"

// Report is the outcome of an evaluation: a row per family and every task
// (the shape of `aite eval --json`).
type Report struct {
	Model      string       `json:"model"`
	ModelID    string       `json:"modelId,omitempty"`
	Pricing    *llm.Pricing `json:"pricing,omitempty"`
	Book       string       `json:"book"`
	BookSHA256 string       `json:"bookSha256"`
	BookBytes  int          `json:"bookBytes"`
	// BookTokens is the whole book's tokens (TokenEstimator); BookCost what
	// one prompt holding it costs (nil: the prices are unknown).
	BookTokens     int      `json:"bookTokens"`
	TokenEstimator string   `json:"tokenEstimator"`
	BookCost       *float64 `json:"bookCost"`
	// RhoBasis is "cost" when ρ compares costs, "tokens" when the prices
	// are unknown and it compares tokens (input + output over the book's).
	RhoBasis   string       `json:"rhoBasis"`
	Seed       uint64       `json:"seed"`
	PerFamily  int          `json:"perFamily"`
	RelayPairs int          `json:"relayPairs"`
	Families   []FamilyRow  `json:"families"`
	Total      FamilyRow    `json:"total"`
	Tasks      []TaskResult `json:"tasks"`
	Notes      []string     `json:"notes,omitempty"`
	ResultsDir string       `json:"resultsDir,omitempty"`
}

// FamilyRow sums the tasks of a family. Calls and Rho are means per task;
// Cost is the family's total (nil: the prices are unknown).
type FamilyRow struct {
	Name           string   `json:"name"`
	Tasks          int      `json:"tasks"`
	Exact          int      `json:"exact"`
	Wrong          int      `json:"wrong"`
	Failed         int      `json:"failed"`
	Calls          float64  `json:"calls"`
	Rho            float64  `json:"rho"`
	Cost           *float64 `json:"cost"`
	InputTokens    int      `json:"inputTokens"`
	OutputTokens   int      `json:"outputTokens"`
	EstimatedCalls int      `json:"estimatedCalls,omitempty"`
	Seconds        float64  `json:"seconds"`
	// BytesDiffer sums the relays' final differences (relay only).
	BytesDiffer *int `json:"bytesDiffer,omitempty"`
}

// NewReport prices and sums the results of a plan.
func NewReport(p *Plan, m ModelInfo, results []TaskResult, dir string) *Report {
	r := &Report{Model: m.Key, ModelID: m.ModelID, Pricing: m.Pricing, Book: p.Book, BookSHA256: p.SHA256,
		BookBytes: p.Bytes, BookTokens: p.Tokens, TokenEstimator: TokenEstimator, Seed: p.Seed, PerFamily: p.PerFamily,
		RelayPairs: p.RelayPairs, Notes: p.Notes, ResultsDir: dir, RhoBasis: "tokens", Families: []FamilyRow{}}
	r.BookCost = m.cost(llm.Usage{InputTokens: p.Tokens})
	if r.BookCost != nil && *r.BookCost > 0 {
		r.RhoBasis = "cost"
	}
	for _, t := range results {
		r.Tasks = append(r.Tasks, r.priced(m, t))
	}
	for _, f := range p.Families {
		r.Families = append(r.Families, r.row(string(f), func(t TaskResult) bool { return t.Family == f }))
	}
	r.Total = r.row("all", func(TaskResult) bool { return true })
	return r
}

// priced sets a result's cost and ρ.
func (r *Report) priced(m ModelInfo, t TaskResult) TaskResult {
	t.Cost = m.cost(t.usage())
	for i := range t.Steps {
		t.Steps[i].Cost = m.cost(t.Steps[i].usage())
	}
	cmds := float64(max(t.Commands, 1))
	switch {
	case r.RhoBasis == "cost":
		t.Rho = *t.Cost / (cmds * *r.BookCost)
	case r.BookTokens > 0:
		t.Rho = float64(t.InputTokens+t.OutputTokens) / (cmds * float64(r.BookTokens))
	}
	return t
}

// row sums the tasks that keep says.
func (r *Report) row(name string, keep func(TaskResult) bool) FamilyRow {
	row := FamilyRow{Name: name}
	var cost float64
	for _, t := range r.Tasks {
		if !keep(t) {
			continue
		}
		row.Tasks++
		switch t.Result {
		case Exact:
			row.Exact++
		case Wrong:
			row.Wrong++
		default:
			row.Failed++
		}
		row.Calls += float64(t.Calls)
		row.Rho += t.Rho
		row.InputTokens += t.InputTokens
		row.OutputTokens += t.OutputTokens
		row.EstimatedCalls += t.EstimatedCalls
		row.Seconds += t.Seconds
		if t.Cost != nil {
			cost += *t.Cost
		}
		if t.BytesDiffer != nil {
			n := *t.BytesDiffer
			if row.BytesDiffer != nil {
				n += *row.BytesDiffer
			}
			row.BytesDiffer = &n
		}
	}
	if row.Tasks > 0 {
		row.Calls /= float64(row.Tasks)
		row.Rho /= float64(row.Tasks)
	}
	if r.Pricing != nil {
		row.Cost = &cost
	}
	return row
}
