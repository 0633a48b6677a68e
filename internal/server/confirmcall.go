package server

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/aitexteditor/aite/internal/api"
	"github.com/aitexteditor/aite/internal/tool"
)

// The edit approval as the contract's standard confirm tool (issue 14): a
// client that knows only PLATFORM_API's frontend tools never saw
// approval.request, so the run waited out the timeout for every edit. Each
// approval is therefore also offered as a call of the frontend tool
// "confirm" (viewport confirm, toolType html) whose toolId is the
// approvalId: such a client renders the viewport (it shows the diffs of
// the edits), and its /submit {runId, toolId: approvalId, params:
// {confirmed, comment?, approved?}} answers the approval like an
// {decision…} would (parseCallDecision). The decision closes the
// call with a tool.result. The call is the stream's only: the model never
// sees it.

// ConfirmTool is the name and the viewport key of the standard confirm
// frontend tool.
const ConfirmTool = "confirm"

// confirmEdit is one edit shown by the confirm viewport.
type confirmEdit struct {
	ToolID   string          `json:"toolId"`
	ToolName string          `json:"toolName"`
	Pointer  string          `json:"pointer,omitempty"`
	Op       string          `json:"op,omitempty"`
	Before   string          `json:"before,omitempty"`
	After    string          `json:"after,omitempty"`
	Params   json.RawMessage `json:"params,omitempty"` // the call's parameters when it has no preview
}

// confirmParams are the arguments of the confirm call.
type confirmParams struct {
	Question string        `json:"question"`
	Details  string        `json:"details"`
	Edits    []confirmEdit `json:"edits"`
}

// confirmCall opens, streams and ends the confirm call of approval p
// (after its approval.request).
func (a *Assembler) confirmCall(p api.ApprovalRequest) {
	if a.byID[p.ApprovalID] != nil {
		return
	}
	args, err := json.Marshal(approvalParams(p))
	if err != nil {
		return
	}
	c := &call{id: p.ApprovalID, name: ConfirmTool}
	a.calls = append(a.calls, c)
	a.byID[c.id] = c
	a.send(api.TypeToolStart, api.ToolStart{ToolID: c.id, RunID: a.runID, TaskID: a.task, ToolName: ConfirmTool,
		ToolType: api.ToolTypeHTML, ToolParams: args, Description: "Confirm the proposed edits",
		ToolKey: ConfirmTool, ToolTimeout: p.TimeoutMs})
	a.toolArgs(c.id, string(args))
	a.endCall(c)
}

// confirmResult closes the confirm call of a decided approval.
func (a *Assembler) confirmResult(p api.ApprovalDecision) {
	c := a.byID[p.ApprovalID]
	if c == nil || c.result {
		return
	}
	res, _ := json.Marshal(struct {
		Confirmed bool     `json:"confirmed"`
		Decision  string   `json:"decision"`
		Approved  []string `json:"approved"`
		Denied    []string `json:"denied"`
		Reason    string   `json:"reason,omitempty"`
	}{len(p.Approved) > 0, p.Decision, p.Approved, p.Denied, p.Reason})
	a.result(c.id, string(res))
}

// approvalParams turns an approval request into the confirm tool's
// arguments: a question, a plain-text summary for clients that show only
// that, and the edits (pointer, op, old and new Markdown from the preview;
// the call's parameters when the tool has no preview).
func approvalParams(p api.ApprovalRequest) confirmParams {
	out := confirmParams{Edits: []confirmEdit{}}
	var details []string
	for _, c := range p.Calls {
		e := confirmEdit{ToolID: c.ToolID, ToolName: c.ToolName}
		if pv, ok := tool.ParseEditPreview(c.Preview); ok {
			e.Pointer, e.Op, e.Before, e.After = pv.Pointer, pv.Op, pv.OldMarkdown, pv.NewMarkdown
			details = append(details, fmt.Sprintf("%s %s\n- %s\n+ %s", e.Op, e.Pointer, oneLine(e.Before), oneLine(e.After)))
		} else {
			e.Params = c.ToolParams
			details = append(details, c.ToolName+" "+string(c.ToolParams))
		}
		out.Edits = append(out.Edits, e)
	}
	switch n := len(p.Calls); n {
	case 1:
		out.Question = "Apply this edit?"
	default:
		out.Question = fmt.Sprintf("Apply these %d edits?", n)
	}
	out.Details = strings.Join(details, "\n\n")
	return out
}

// oneLine collapses whitespace runs, so a paragraph reads as one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
