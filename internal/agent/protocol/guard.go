package protocol

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// minMeanWeightGuard is the built-in guard policy `minMeanWeight` (§3.2).
type minMeanWeightGuard struct {
	cfg GuardConfig
}

// NewMinMeanWeight returns the built-in guard policy of §3.2.
//
// For a call whose tool is listed in cfg.Tools (empty = every tool), it
// denies when the tally has at least one vote and its mean is below
// cfg.MinMeanWeight, with the reason "advisor mean 12 < 30 for replace_text".
// Without votes it applies cfg.OnNoVotes: "deny" (case-insensitive) denies
// with the reason "no advisor vote for replace_text", anything else
// allows. Every other call is allowed (Action "allow", empty reason). The
// guard reads only call.Tool; a nil call uses the tally's tool.
func NewMinMeanWeight(cfg GuardConfig) Guard {
	cfg.Tools = slices.Clone(cfg.Tools)
	return minMeanWeightGuard{cfg: cfg}
}

// Check implements Guard.
func (g minMeanWeightGuard) Check(call *Call, tally Tally) GuardVerdict {
	tool := tally.Tool
	if call != nil {
		tool = call.Tool
	}
	if len(g.cfg.Tools) > 0 && !slices.Contains(g.cfg.Tools, tool) {
		return GuardVerdict{Action: GuardAllow}
	}
	if tally.N < 1 {
		if strings.EqualFold(strings.TrimSpace(g.cfg.OnNoVotes), GuardDeny) {
			return GuardVerdict{Action: GuardDeny, Reason: "no advisor vote for " + tool}
		}
		return GuardVerdict{Action: GuardAllow}
	}
	if tally.Mean < g.cfg.MinMeanWeight {
		mean, limit := fmtGuardNumber(tally.Mean), fmtGuardNumber(g.cfg.MinMeanWeight)
		if mean == limit { // rounding hid the difference: show it in full
			mean, limit = fmtWeight(tally.Mean), fmtWeight(g.cfg.MinMeanWeight)
		}
		return GuardVerdict{Action: GuardDeny, Reason: fmt.Sprintf("advisor mean %s < %s for %s", mean, limit, tool)}
	}
	return GuardVerdict{Action: GuardAllow}
}

// fmtGuardNumber renders a number rounded to two decimals, without trailing
// zeros (12, 16.67, 30).
func fmtGuardNumber(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return fmtWeight(f)
	}
	return strconv.FormatFloat(math.Round(f*100)/100, 'f', -1, 64)
}
