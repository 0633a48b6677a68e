package protocol

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The decision rule of confirmations, the command line and the server: the
// chosen calls in request order, once each; approve for all, deny for none.
func TestDecideCalls(t *testing.T) {
	ids := []string{"a", "b", "c"}
	for _, tc := range []struct {
		chosen   []string
		verdict  string
		approved []string
	}{
		{[]string{"c", "a", "b"}, VerdictApprove, []string{"a", "b", "c"}},
		{nil, VerdictDeny, nil},
		{[]string{"x"}, VerdictDeny, nil},
		{[]string{"c", "a", "c"}, VerdictPartial, []string{"a", "c"}},
	} {
		d := DecideCalls(ids, tc.chosen)
		require.Equal(t, ConfirmDecision{Verdict: tc.verdict, Approved: tc.approved, By: ByUser}, d, "%v", tc.chosen)
	}
	require.Equal(t, VerdictApprove, DecideCalls(nil, nil).Verdict, "a request of no calls is all approved")
}
