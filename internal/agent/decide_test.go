package agent

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/agent/protocol"
)

// The edit-decision rule of the command line and the server: the chosen
// calls in request order, once each; approve for all, deny for none.
func TestDecideCalls(t *testing.T) {
	ids := []string{"a", "b", "c"}
	for _, tc := range []struct {
		chosen   []string
		verdict  string
		approved []string
	}{
		{[]string{"c", "a", "b"}, protocol.VerdictApprove, []string{"a", "b", "c"}},
		{nil, protocol.VerdictDeny, nil},
		{[]string{"x"}, protocol.VerdictDeny, nil},
		{[]string{"c", "a", "c"}, protocol.VerdictPartial, []string{"a", "c"}},
	} {
		d := DecideCalls(ids, tc.chosen)
		require.Equal(t, protocol.ConfirmDecision{Verdict: tc.verdict, Approved: tc.approved, By: protocol.ByUser}, d, "%v", tc.chosen)
	}
	a := &Approval{Calls: []ApprovalCall{{ToolID: "a"}, {ToolID: "b"}}}
	require.Equal(t, []string{"a", "b"}, a.ToolIDs())
}
