package agent

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestApprovalToolIDs(t *testing.T) {
	a := &Approval{Calls: []ApprovalCall{{ToolID: "a"}, {ToolID: "b"}}}
	require.Equal(t, []string{"a", "b"}, a.ToolIDs())
}
