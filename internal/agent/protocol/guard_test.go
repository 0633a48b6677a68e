package protocol

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// X4 (guard part): editGate votes {"replace_text":12,"run_cursor_agent":80};
// with minMeanWeight 30 on [replace_text], replace_text is denied and
// run_cursor_agent (not listed) is allowed.
func TestVectorX4_GuardMinMeanWeight(t *testing.T) {
	tools := []string{"replace_text", "run_cursor_agent"}
	ws, _, warns := ParseWeights(`{"replace_text":12,"run_cursor_agent":80}`, tools)
	assert.Empty(t, warns)
	tallies := Tallies([]Opinion{{ID: "editGate", Weights: ws}}, nil, "", 50)
	g := NewMinMeanWeight(GuardConfig{MinMeanWeight: 30, Tools: []string{"replace_text"}})

	v := g.Check(&Call{Tool: "replace_text"}, TallyFor(tallies, "replace_text"))
	assert.Equal(t, GuardVerdict{Action: GuardDeny, Reason: "advisor mean 12 < 30 for replace_text"}, v)

	v = g.Check(&Call{Tool: "run_cursor_agent"}, TallyFor(tallies, "run_cursor_agent"))
	assert.Equal(t, GuardVerdict{Action: GuardAllow}, v)

	// §6.1: mean 5 < 30 on replace_text; reading on is never blocked.
	ws, _, _ = ParseWeights(`{"run_cursor_agent":85,"rewrite_paragraph":10,"replace_text":5,"ask_user":20}`, tools)
	tallies = Tallies([]Opinion{{ID: "editGate", Weights: ws}}, nil, "", 50)
	assert.Equal(t, "advisor mean 5 < 30 for replace_text",
		g.Check(&Call{Tool: "replace_text"}, TallyFor(tallies, "replace_text")).Reason)
}

func TestGuard_AllToolsAndThreshold(t *testing.T) {
	g := NewMinMeanWeight(GuardConfig{MinMeanWeight: 30})
	deny := g.Check(&Call{Tool: "deploy"}, Tally{Tool: "deploy", N: 3, Mean: 50.0 / 3})
	assert.Equal(t, GuardVerdict{Action: GuardDeny, Reason: "advisor mean 16.67 < 30 for deploy"}, deny)
	assert.Equal(t, GuardAllow, g.Check(&Call{Tool: "deploy"}, Tally{Tool: "deploy", N: 1, Mean: 30}).Action, "mean == min allows")
	// Rounding never shows an equal pair.
	near := g.Check(&Call{Tool: "deploy"}, Tally{Tool: "deploy", N: 1, Mean: 29.999})
	assert.Equal(t, "advisor mean 29.999 < 30 for deploy", near.Reason)
	// Fractional thresholds are printed without trailing zeros.
	g2 := NewMinMeanWeight(GuardConfig{MinMeanWeight: 12.5})
	assert.Equal(t, "advisor mean 12 < 12.5 for x", g2.Check(&Call{Tool: "x"}, Tally{Tool: "x", N: 1, Mean: 12}).Reason)
}

func TestGuard_OnNoVotes(t *testing.T) {
	cfg := GuardConfig{MinMeanWeight: 30, Tools: []string{"replace_text"}}
	none := Tally{Tool: "replace_text"}
	assert.Equal(t, GuardVerdict{Action: GuardAllow}, NewMinMeanWeight(cfg).Check(&Call{Tool: "replace_text"}, none), "allow by default")

	cfg.OnNoVotes = "deny"
	g := NewMinMeanWeight(cfg)
	assert.Equal(t, GuardVerdict{Action: GuardDeny, Reason: "no advisor vote for replace_text"},
		g.Check(&Call{Tool: "replace_text"}, TallyFor(nil, "replace_text")))
	// Not listed → allowed even without votes; a nil call uses the tally's tool.
	assert.Equal(t, GuardAllow, g.Check(&Call{Tool: "run_cursor_agent"}, Tally{}).Action)
	assert.Equal(t, GuardDeny, g.Check(nil, none).Action)

	// The config is copied: changing the caller's slice changes nothing.
	tools := []string{"a"}
	g3 := NewMinMeanWeight(GuardConfig{MinMeanWeight: 30, Tools: tools})
	tools[0] = "b"
	assert.Equal(t, GuardDeny, g3.Check(&Call{Tool: "a"}, Tally{Tool: "a", N: 1, Mean: 1}).Action)
}
