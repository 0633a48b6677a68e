// Package mcpserver serves aite's book tools over the Model Context
// Protocol with the official Go SDK, so any MCP client (Claude Desktop,
// Cursor, VS Code, an agent of one's own) can drive them with its own model.
//
// The tools are the ones the agents use, taken from the one tool registry
// (internal/tool/booktools) with their reviewed descriptions and schemas;
// nothing here defines a book tool a second time. What MCP adds is around
// them:
//
//   - Where the book comes from: a Library (the documents one caller may
//     use) and a Book (one open document). `aite mcp BOOK.md` serves one book
//     file over stdio through FileLibrary (filebook.go: the one place where
//     MCP opens and saves a file); `aite serve` serves its stored documents
//     at /mcp over stateless streamable HTTP, where every book tool takes a
//     documentId and list_documents lists them.
//   - Review before apply: an edit is previewed (the editor's dry run, so a
//     refused edit is refused before anyone is asked) and shown as a unified
//     diff. A client that can elicit is asked for approval (form mode;
//     multi-round-trip requests on 2026-07-28); a client that cannot sees
//     propose_* tools that return a proposal id with the diff, and
//     apply_edit. Approved edits go through the host's own journaled,
//     locked path, after checking that the item still reads as it was shown.
//   - Bounded results: every tool result carries at most MaxResultText bytes
//     of text; longer ones are paged, read on with read_more. Structured
//     results come with their JSON as text.
//   - Resources: each document's outline and every item by pointer.
//
// Failures a model can act on (bad arguments, a pointer that names nothing,
// a refused or declined edit) are isError results, never protocol errors.
package mcpserver
