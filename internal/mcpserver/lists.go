package mcpserver

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aitexteditor/aite/internal/tool/booktools"
)

// lists is the receiving middleware that shapes two lists per caller:
//
//   - tools/list shows each client one way to edit: the edit tools, which
//     ask the user for approval, to a client that can elicit; propose_*
//     and apply_edit to one that cannot. (Every tool stays callable; an
//     edit tool called by a client that cannot elicit proposes.)
//   - resources/list lists the outline of every document the caller may
//     use (the item resources are a template).
func (s *server) lists(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil {
			return res, err
		}
		switch r := res.(type) {
		case *mcp.ListToolsResult:
			lr, _ := req.(*mcp.ListToolsRequest)
			out := *r
			out.Tools = visibleTools(r.Tools, lr != nil && canElicit(lr.ClientCapabilities()))
			return &out, nil
		case *mcp.ListResourcesResult:
			out := *r
			if out.Resources, err = s.outlineResources(ctx); err != nil {
				return nil, err
			}
			return &out, nil
		}
		return res, nil
	}
}

// visibleTools drops the edit tools for a client that cannot elicit, and
// the review tools for one that can.
func visibleTools(tools []*mcp.Tool, elicit bool) []*mcp.Tool {
	out := make([]*mcp.Tool, 0, len(tools))
	for _, t := range tools {
		_, edit := booktools.EditOp(t.Name)
		review := strings.HasPrefix(t.Name, proposePrefix) || t.Name == ToolApplyEdit
		if (edit && !elicit) || (review && elicit) {
			continue
		}
		out = append(out, t)
	}
	return out
}
