package protocol

import (
	"fmt"
	"sync"
	"time"

	"github.com/aitexteditor/aite/internal/llm"
)

// lastErrorsWindow is how many error codes a ledger lists.
const lastErrorsWindow = 5

// Ledger caps (LM5).
const (
	capMaxTurns   = "maxTurns"
	capModelCalls = "modelCalls"
	capToolCalls  = "toolCalls"
	capDeadline   = "deadline"
)

// Finish reasons of RunResult.
const (
	FinishStop     = "stop"
	FinishMaxTurns = "max_turns"
	FinishBudget   = "budget"
)

// budget holds the model-call and tool-call counters of one run. A sub-run's
// budget has the parent's as parent: taking from it takes from every level,
// so a sub-run is capped by what its parents have left (DG3). One mutex
// guards the whole tree.
type budget struct {
	mu       *sync.Mutex
	parent   *budget
	maxModel int // 0 = unlimited
	maxTool  int // 0 = unlimited
	model    int
	tool     int
	deadline time.Time // zero = none; already the minimum with the parent's
}

func newBudget(parent *budget, l Limits, now time.Time) *budget {
	b := &budget{parent: parent, maxModel: l.MaxModelCalls, maxTool: l.MaxToolCalls}
	if parent != nil {
		b.mu = parent.mu
		b.deadline = parent.deadline
	} else {
		b.mu = &sync.Mutex{}
	}
	if l.RunTimeout > 0 {
		if d := now.Add(l.RunTimeout); b.deadline.IsZero() || d.Before(b.deadline) {
			b.deadline = d
		}
	}
	return b
}

// remaining returns the calls left of one kind over the whole chain, -1 when
// unlimited.
func (b *budget) remaining(model bool) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	left := -1
	for x := b; x != nil; x = x.parent {
		limit, used := x.maxTool, x.tool
		if model {
			limit, used = x.maxModel, x.model
		}
		if limit <= 0 {
			continue
		}
		if l := max(limit-used, 0); left < 0 || l < left {
			left = l
		}
	}
	return left
}

// take counts one call of a kind at every level, or reports false (and counts
// nothing) when a level has no call left.
func (b *budget) take(model bool) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for x := b; x != nil; x = x.parent {
		limit, used := x.maxTool, x.tool
		if model {
			limit, used = x.maxModel, x.model
		}
		if limit > 0 && used >= limit {
			return false
		}
	}
	for x := b; x != nil; x = x.parent {
		if model {
			x.model++
		} else {
			x.tool++
		}
	}
	return true
}

// stats is what one run spent, for its ledger.
type stats struct {
	start      time.Time
	turns      int
	modelCalls int
	repairs    int
	toolCalls  int
	lastErrors []string // codes of the most recent errors, oldest first
}

func (s *stats) noteError(code Code) {
	s.lastErrors = append(s.lastErrors, string(code))
	if n := len(s.lastErrors); n > lastErrorsWindow {
		s.lastErrors = append([]string(nil), s.lastErrors[n-lastErrorsWindow:]...)
	}
}

// ledger builds the LM5 ledger of a run stopped by cap.
func (s *stats) ledger(cap string, usage llm.Usage, now time.Time, pending []PendingCall) *Ledger {
	l := &Ledger{
		Cap:          cap,
		Turns:        s.turns,
		ModelCalls:   s.modelCalls,
		Repairs:      s.repairs,
		ToolCalls:    s.toolCalls,
		Tokens:       LedgerTokens{Prompt: usage.InputTokens, Completion: usage.OutputTokens},
		ElapsedMs:    now.Sub(s.start).Milliseconds(),
		PendingCalls: append([]PendingCall{}, pending...),
		LastErrors:   append([]string{}, s.lastErrors...),
	}
	for i := range l.PendingCalls {
		if l.PendingCalls[i].WaitingOn == nil {
			l.PendingCalls[i].WaitingOn = []string{}
		}
	}
	return l
}

// limitNotice is the LM3 notice of turn n of m.
func limitNotice(n, m int) string {
	return fmt.Sprintf("turn %d of %d; the next turn is the last and accepts only `output`", n, m)
}
