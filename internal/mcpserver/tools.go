package mcpserver

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aitexteditor/aite/internal/tool"
	"github.com/aitexteditor/aite/internal/tool/booktools"
)

// ToolListDocuments lists the documents (HTTP only).
const ToolListDocuments = "list_documents"

//go:embed list_documents.md
var listDocumentsDoc string

// documentIDProperty is the parameter every book tool gets on the HTTP server.
const documentIDProperty = "documentId"

// addBookTool registers a book tool under its own name, description and
// schema. The edit tools ask for approval first (see edits.go).
func (s *server) addBookTool(srv *mcp.Server, t tool.Tool) {
	name := t.Name()
	handler := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return s.callBookTool(ctx, req, name), nil
	}
	if _, edit := booktools.EditOp(name); edit {
		handler = func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return s.callEdit(ctx, req, name, false), nil
		}
	}
	srv.AddTool(&mcp.Tool{Name: name, Description: t.Description(), InputSchema: s.schema(t.Parameters()),
		Annotations: annotations(name)}, handler)
}

// schema is a book tool's schema as the client sees it: with a required
// documentId on the HTTP server.
func (s *server) schema(params json.RawMessage) json.RawMessage {
	if !s.opts.Multi {
		return params
	}
	var sc map[string]any
	if err := json.Unmarshal(params, &sc); err != nil {
		panic(fmt.Sprintf("mcpserver: a book tool schema is not JSON: %v", err)) // made by tool.New
	}
	props, _ := sc["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
	}
	props[documentIDProperty] = map[string]any{"type": "string",
		"description": "the document to work on: a documentId from " + ToolListDocuments}
	required, _ := sc["required"].([]any)
	sc["properties"], sc["required"] = props, append([]any{documentIDProperty}, required...)
	b, _ := json.Marshal(sc)
	return b
}

// callBookTool runs a book tool on the document the call names.
func (s *server) callBookTool(ctx context.Context, req *mcp.CallToolRequest, name string) *mcp.CallToolResult {
	args, _, book, bad := s.target(ctx, req.Params.Arguments)
	if bad != nil {
		return bad
	}
	r, err := book.Call(progress(ctx, req), name, args, nil)
	if err != nil {
		return s.broken(name, err)
	}
	return s.fromTool(r)
}

// target splits the arguments of a book tool call into the tool's own and
// the document they name (the only one without Multi), and opens it.
func (s *server) target(ctx context.Context, raw json.RawMessage) (args json.RawMessage, id string, book Book, bad *mcp.CallToolResult) {
	args = raw
	if s.opts.Multi {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(orEmpty(raw), &fields); err != nil || fields == nil {
			return nil, "", nil, errorResult("invalid_arguments", "The arguments must be a JSON object with a documentId: call "+ToolListDocuments+" for the ids.")
		}
		if err := json.Unmarshal(fields[documentIDProperty], &id); err != nil || strings.TrimSpace(id) == "" {
			return nil, "", nil, errorResult("invalid_arguments", "documentId is required: the document to work on, from "+ToolListDocuments+".")
		}
		delete(fields, documentIDProperty)
		args, _ = json.Marshal(fields)
	}
	book, err := s.lib.Open(ctx, id)
	if err != nil {
		return nil, "", nil, s.openFailure(ctx, id, err)
	}
	return args, id, book, nil
}

func orEmpty(raw json.RawMessage) json.RawMessage {
	if len(strings.TrimSpace(string(raw))) == 0 {
		return json.RawMessage("{}")
	}
	return raw
}

// openFailure is the result of a document that could not be opened: for
// an unknown one, the documents there are.
func (s *server) openFailure(ctx context.Context, id string, err error) *mcp.CallToolResult {
	if !errors.Is(err, ErrNotFound) {
		return s.broken("open "+id, err)
	}
	docs, lerr := s.lib.Documents(ctx)
	if lerr != nil || len(docs) == 0 {
		return errorResult("not_found", fmt.Sprintf("Document not found: %s. There are no documents you can use.", id))
	}
	names := make([]string, 0, min(len(docs), 10))
	for _, d := range docs[:min(len(docs), 10)] {
		names = append(names, fmt.Sprintf("%s (%s)", d.ID, d.Name))
	}
	return errorResult("not_found", fmt.Sprintf("Document not found: %s. Documents you can use: %s.", id, strings.Join(names, ", ")))
}

// broken reports an infrastructure failure: logged, and an error result
// that says nothing was done beyond what the message says.
func (s *server) broken(what string, err error) *mcp.CallToolResult {
	if errors.Is(err, ErrChangedOnDisk) {
		return errorResult("changed", fmt.Sprintf("Not done: %v.", err))
	}
	s.log.Error("mcp tool call failed", "call", what, "err", err)
	return errorResult("tool_failed", fmt.Sprintf("aite could not complete this call: %v", err))
}

// progress forwards the tool's progress reports (the cursor agent's
// batches) as MCP progress notifications when the client asked for them.
func progress(ctx context.Context, req *mcp.CallToolRequest) context.Context {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return ctx
	}
	var n atomic.Int64
	return tool.WithReporter(ctx, func(p tool.Progress) {
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token,
			Progress: float64(n.Add(1)), Message: p.Message})
	})
}

// addOwnTools registers read_more and, on the HTTP server, list_documents.
func (s *server) addOwnTools(srv *mcp.Server) {
	addTyped(srv, ToolReadMore, readMoreDoc, s.readMore)
	if s.opts.Multi {
		addTyped(srv, ToolListDocuments, listDocumentsDoc, s.listDocuments)
	}
}

// addTyped registers an MCP-only tool whose parameters are P: its schema
// and argument checks are tool.New's, like the book tools'.
func addTyped[P any](srv *mcp.Server, name, doc string, f func(context.Context, P) *mcp.CallToolResult) {
	t := tool.Must(name, doc, func(context.Context, P) (tool.Result, error) { return tool.Result{}, nil })
	srv.AddTool(&mcp.Tool{Name: name, Description: t.Description(), InputSchema: t.Parameters(), Annotations: annotations(name)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			args, bad, err := tool.Check(t, req.Params.Arguments)
			var p P
			if err == nil && bad == nil {
				err = json.Unmarshal(args, &p)
			}
			switch {
			case bad != nil:
				return errorResult(bad.Code, bad.Text), nil
			case err != nil:
				return errorResult("invalid_arguments", err.Error()), nil
			}
			return f(ctx, p), nil
		})
}

type noParams struct{}

// listDocuments lists the documents of the library.
func (s *server) listDocuments(ctx context.Context, _ noParams) *mcp.CallToolResult {
	docs, err := s.lib.Documents(ctx)
	if err != nil {
		return s.broken(ToolListDocuments, err)
	}
	if docs == nil {
		docs = []Document{}
	}
	return s.valueResult(map[string]any{"documents": docs})
}
