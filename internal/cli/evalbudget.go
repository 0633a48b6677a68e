package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/aitexteditor/aite/internal/eval"
)

// errOverBudget is the cause of a run stopped by its budget.
var errOverBudget = errors.New("stopped")

// evalBudget stops a run that spends more than twice what it was allowed:
// the larger of the limit (--max-cost; --max-tokens for a model without
// prices) and the estimate that was shown. The estimate assumes a model
// that takes the direct path; one that goes round in circles spends many
// times more, and should not do so unseen. What was done is kept, so the
// next run goes on, with the same allowance again.
type evalBudget struct {
	priced bool
	allow  float64 // cost, or tokens
	spent  float64
	last   eval.Progress
	what   string
	cancel context.CancelCauseFunc
}

func newEvalBudget(req EvalRequest, est eval.Estimate, cancel context.CancelCauseFunc) *evalBudget {
	b := &evalBudget{cancel: cancel}
	if est.Cost != nil {
		b.priced = true
		b.allow = 2 * max(req.MaxCost, *est.Cost)
		b.what = fmt.Sprintf("the larger of --max-cost %g and the estimate %.4f", req.MaxCost, *est.Cost)
		return b
	}
	tokens := est.InputTokens + est.OutputTokens
	b.allow = 2 * float64(max(req.MaxTokens, tokens))
	b.what = fmt.Sprintf("the larger of --max-tokens %d and the estimate %d", req.MaxTokens, tokens)
	return b
}

// update counts what the finished command spent (commands taken from the
// store cost nothing now) and stops the run once it is over the allowance.
func (b *evalBudget) update(p eval.Progress) {
	now, before := float64(p.Tokens), float64(b.last.Tokens)
	if b.priced {
		now, before = p.Cost, b.last.Cost
	}
	b.last = p
	if p.Resumed {
		return
	}
	b.spent += now - before
	if b.spent > b.allow {
		unit := fmt.Sprintf("%.0f tokens", b.spent)
		if b.priced {
			unit = fmt.Sprintf("%.4f", b.spent)
		}
		b.cancel(fmt.Errorf("%w: this run spent %s, more than twice what it was allowed (%s): the model may be going round in circles",
			errOverBudget, unit, b.what))
	}
}
