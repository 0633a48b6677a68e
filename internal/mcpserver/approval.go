package mcpserver

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aitexteditor/aite/internal/document"
)

// approvalKey names the approval among a call's input requests.
const approvalKey = "approval"

// multiRoundTrip is the first protocol version whose servers ask a client
// for input by returning input requests from the call itself (SEP-2322)
// rather than by sending it a request.
const multiRoundTrip = "2026-07-28"

// approvalSchema is the form of the approval: nothing to fill in but an
// optional comment; accepting applies the edit.
var approvalSchema = map[string]any{"type": "object", "properties": map[string]any{
	"comment": map[string]any{"type": "string", "title": "Comment",
		"description": "Optional: a note for the assistant, such as what to change instead."}}}

// canElicit reports whether the client can show a form to its user.
// Without elicitation capabilities, or with only URL mode, it cannot. (On
// the stateless HTTP server, a client of a protocol before 2026-07-28 has
// no capabilities in its requests, so it proposes.)
func canElicit(caps *mcp.ClientCapabilities) bool {
	if caps == nil || caps.Elicitation == nil {
		return false
	}
	return caps.Elicitation.Form != nil || caps.Elicitation.URL == nil
}

// approve asks the user to approve the previewed edit and applies it if
// they accept. On 2026-07-28 the call returns the request for approval
// and the client calls again with the answer (any server process can
// answer: the request state is the edit's fingerprint, checked against a
// fresh preview); on earlier versions the server asks the client
// directly.
func (s *server) approve(ctx context.Context, req *mcp.CallToolRequest, book Book, e edit, pv preview) *mcp.CallToolResult {
	ask := &mcp.ElicitParams{Mode: "form", RequestedSchema: approvalSchema,
		Message: fmt.Sprintf("Apply this edit to %s?\n\n%s\n\n%s", book.Name(), describe(e.op, pv.target), pv.diff)}
	if req.ProtocolVersion() >= multiRoundTrip {
		answer, ok := req.Params.InputResponses[approvalKey].(*mcp.ElicitResult)
		if !ok || req.Params.RequestState != pv.print {
			// First call, or the book changed while the user decided: ask
			// about the edit as it is now.
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{approvalKey: ask}, RequestState: pv.print}
		}
		return s.decided(ctx, book, e, pv, answer)
	}
	answer, err := req.Session.Elicit(ctx, ask)
	if err != nil {
		return errorResult("approval_failed", fmt.Sprintf("Not applied: the approval could not be asked (%v). Nothing changed.", err))
	}
	return s.decided(ctx, book, e, pv, answer)
}

// decided applies an accepted edit; anything else is reported as not
// applied, with the user's comment.
func (s *server) decided(ctx context.Context, book Book, e edit, pv preview, answer *mcp.ElicitResult) *mcp.CallToolResult {
	if answer.Action == "accept" {
		return s.apply(ctx, book, e, pv)
	}
	how := "declined"
	if answer.Action != "decline" {
		how = "dismissed"
	}
	msg := fmt.Sprintf("Not applied: the user %s this edit, so nothing changed.", how)
	if c, _ := answer.Content["comment"].(string); c != "" {
		msg += fmt.Sprintf(" Their comment: %q.", c)
	}
	return errorResult("declined", msg+" Ask what they want instead; do not repeat the same edit unchanged.")
}

// describe says in words what an edit does.
func describe(op document.Op, target string) string {
	switch op {
	case document.OpReplace:
		return "Replace the item " + target + ":"
	case document.OpInsertBefore:
		return "Insert a new item before " + target + ":"
	case document.OpInsertAfter:
		return "Insert a new item after " + target + ":"
	case document.OpDelete:
		return "Delete the item " + target + ":"
	}
	return string(op) + " " + target + ":"
}
