package mcpserver

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aitexteditor/aite/internal/tool/booktools"
)

// annotations are the hints a client reads about a tool (MCP
// ToolAnnotations): what changes the book, what is safe to repeat. They
// are about MCP clients' permission prompts, so they live here rather
// than in the shared tool definitions.
func annotations(name string) *mcp.ToolAnnotations {
	closed := false
	a := &mcp.ToolAnnotations{OpenWorldHint: &closed}
	switch {
	case name == ToolApplyEdit, name == booktools.ToolReplaceText, name == booktools.ToolDelete:
		destructive := true
		a.DestructiveHint = &destructive
	case name == booktools.ToolInsertBefore, name == booktools.ToolInsertAfter:
		destructive := false
		a.DestructiveHint = &destructive
	case name == booktools.ToolRunCursorAgent:
		open := true // it calls a model
		a.ReadOnlyHint, a.OpenWorldHint = true, &open
	case name == booktools.ToolCodexBuild:
		destructive, open := false, true // it rewrites the codex's text entries, and may call a model
		a.DestructiveHint, a.OpenWorldHint = &destructive, &open
	case name == "search-find":
		open := true // it may call the embedding model
		a.ReadOnlyHint, a.IdempotentHint, a.OpenWorldHint = true, true, &open
	case name == "editor-read", name == booktools.ToolCodexLookup, name == ToolReadMore, name == ToolListDocuments:
		a.ReadOnlyHint, a.IdempotentHint = true, true
	default: // cursors, target sets, proposals: nothing in the book changes
		a.ReadOnlyHint = true
	}
	return a
}
