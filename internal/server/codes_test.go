package server

import (
	"testing"

	"github.com/aitexteditor/aite/internal/agent"
	"github.com/aitexteditor/aite/internal/api"
)

// The runtime knows no wire types, so it names the error codes of
// PLATFORM_API §§ 3.5 and 7.1 itself; the assembler passes them on as they
// are. They must be the wire's.
func TestRuntimeCodesAreTheWires(t *testing.T) {
	pairs := [][2]string{
		{agent.CodeModelError, api.CodeModelError},
		{agent.CodeBudgetExceeded, api.CodeBudgetExceeded},
		{agent.CodeRunTimeout, api.CodeRunTimeout},
		{agent.CodeToolCallRequired, api.CodeToolCallRequired},
		{agent.CodeNoFinalAnswer, api.CodeNoFinalAnswer},
		{agent.CodePlanNotCreated, api.CodePlanNotCreated},
		{agent.CodePlanStalled, api.CodePlanStalled},
		{agent.CodeTaskFailed, api.CodeTaskFailed},
		{agent.CodeRunAborted, api.CodeRunAborted},
		{agent.CodeInternalError, api.CodeInternalError},
		{agent.ToolCodeInvalidArguments, api.ToolCodeInvalidArguments},
		{agent.ToolCodeTimeout, api.ToolCodeTimeout},
		{agent.ToolCodeFailed, api.ToolCodeFailed},
		{agent.ToolCodeNotEnabled, api.ToolCodeNotEnabled},
		{agent.ToolCodeSkipped, api.ToolCodeSkipped},
		{agent.ToolCodeFrontendSubmitTimeout, api.ToolCodeFrontendSubmitTimeout},
	}
	for _, p := range pairs {
		if p[0] != p[1] {
			t.Errorf("the runtime says %q where the wire says %q", p[0], p[1])
		}
	}
}
