package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aitexteditor/aite/internal/tool/booktools"
)

// proposal is an edit waiting for apply_edit.
type proposal struct {
	edit    edit
	preview preview
}

// proposed is the result of a proposed edit.
type proposed struct {
	Applied    bool   `json:"applied"`
	ProposalID string `json:"proposalId"`
	Op         string `json:"op"`
	Pointer    string `json:"pointer"`
	Diff       string `json:"diff"`
	Next       string `json:"next"`
}

// addReviewTools registers propose_<edit> for each edit tool and
// apply_edit. A propose tool has its edit tool's schema, and its
// description is the edit tool's, after a paragraph on proposing.
func (s *server) addReviewTools(srv *mcp.Server) {
	for _, name := range []string{booktools.ToolReplaceText, booktools.ToolInsertBefore, booktools.ToolInsertAfter, booktools.ToolDelete} {
		t := s.defs[name]
		srv.AddTool(&mcp.Tool{Name: proposeName(name), Description: proposeDoc + "\n" + t.Description(),
			InputSchema: s.schema(t.Parameters()), Annotations: annotations(proposeName(name))},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return s.callEdit(ctx, req, name, true), nil
			})
	}
	addTyped(srv, ToolApplyEdit, applyEditDoc, s.applyEdit)
}

// propose keeps the edit for apply_edit and returns its id with the diff.
func (s *server) propose(e edit, pv preview) *mcp.CallToolResult {
	id := s.state.newID()
	s.state.proposals.put(id, s.opts.Scope, s.state.clock(), proposal{edit: e, preview: pv})
	return s.valueResult(proposed{ProposalID: id, Op: string(e.op), Pointer: pv.target, Diff: pv.diff,
		Next: "Not applied yet. Show the diff to the user; once they agree, call " + ToolApplyEdit + " with this proposalId."})
}

type applyParams struct {
	ProposalID string `json:"proposalId" jsonschema:"the proposalId a propose_* tool returned"`
}

// applyEdit applies a proposal, once: exactly the edit that was shown, or
// nothing if the book changed under it.
func (s *server) applyEdit(ctx context.Context, p applyParams) *mcp.CallToolResult {
	pr, ok := s.state.proposals.get(p.ProposalID, s.opts.Scope, s.state.clock())
	if !ok {
		return errorResult("not_found", "No such proposal: "+p.ProposalID+". A proposal can be applied once and is kept for an hour (by the server process that made it); propose the edit again.")
	}
	book, err := s.lib.Open(ctx, pr.edit.docID)
	if err != nil {
		return s.openFailure(ctx, pr.edit.docID, err)
	}
	res := s.apply(ctx, book, pr.edit, pr.preview)
	if errorCode(res) != "tool_failed" {
		s.state.proposals.remove(p.ProposalID) // applied, or refused for good
	}
	return res
}
