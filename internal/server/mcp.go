package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/aitexteditor/aite/internal/cursoragent"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/mcpserver"
	"github.com/aitexteditor/aite/internal/server/auth"
	"github.com/aitexteditor/aite/internal/store"
	"github.com/aitexteditor/aite/internal/tool"
)

// MCPPath is where the server answers MCP clients (streamable HTTP).
const MCPPath = "/mcp"

// mountMCP registers /mcp: the book tools over MCP (internal/mcpserver) on
// the server's documents, over stateless streamable HTTP so any node can
// answer. It is a route of the mux with the strict default policy, so the
// whole security chain applies (guard.go: Host check, cross-origin
// protection, JSON bodies, a valid Bearer token when auth is on, whose
// subject scopes the proposals and pages); the SDK's own DNS-rebinding
// check stays on too.
func (s *Server) mountMCP() {
	state := mcpserver.NewState(s.opts.Clock, nil)
	s.mux.Handle(MCPPath, mcpserver.HTTPHandler(s.mcpLibrary, state, s.opts.Logger))
}

// mcpLibrary is what one MCP request may use: the documents the request's
// subject may see (owner.go), as that subject.
func (s *Server) mcpLibrary(r *http.Request) (mcpserver.Library, mcpserver.Options) {
	subject, _ := auth.SubjectFrom(r.Context())
	var agent *cursoragent.Agent
	if s.opts.MCPCursorAgent != nil {
		agent = s.opts.MCPCursorAgent()
	}
	return mcpDocuments{srv: s, docs: s.opts.Documents, st: s.opts.Store, agent: agent},
		mcpserver.Options{Scope: subject, CursorAgent: agent != nil}
}

// mcpDocuments is the server's documents as an MCP library.
type mcpDocuments struct {
	srv   *Server // ownership (visible)
	docs  *Documents
	st    store.Store
	agent *cursoragent.Agent
}

func (l mcpDocuments) Documents(ctx context.Context) ([]mcpserver.Document, error) {
	docs, err := l.st.ListDocuments(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]mcpserver.Document, 0, len(docs))
	for _, d := range docs {
		if l.srv.visible(ctx, d.Owner) {
			out = append(out, mcpserver.Document{ID: d.ID, Name: d.Name, Items: d.ItemCount, Revision: d.Revision})
		}
	}
	return out, nil
}

func (l mcpDocuments) Open(ctx context.Context, id string) (mcpserver.Book, error) {
	canon, ok := uuidCanonical(id)
	if !ok {
		return nil, fmt.Errorf("%w: %s is not a documentId (a UUID)", mcpserver.ErrNotFound, id)
	}
	doc, err := l.st.GetDocument(ctx, canon)
	if err == nil && !l.srv.visible(ctx, doc.Owner) {
		err = store.ErrNotFound // another subject's document is not there for this one
	}
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("%w: %s", mcpserver.ErrNotFound, id)
	} else if err != nil {
		return nil, err
	}
	return &mcpBook{docs: l.docs, id: canon, name: doc.Name, agent: l.agent}, nil
}

// mcpBook is one document for one MCP request: its tools are the book
// tools of every run (Documents.BookTools: the document's lock, every
// edit a revision, RunID "mcp").
type mcpBook struct {
	docs  *Documents
	id    string
	name  string
	agent *cursoragent.Agent
	tools map[string]tool.Tool
}

func (b *mcpBook) Name() string { return b.name }

func (b *mcpBook) Read(ctx context.Context, fn func(s *editor.Session, id string) error) error {
	return b.docs.locked(ctx, b.id, func(*docState) error { return fn(b.docs.session, b.id) })
}

func (b *mcpBook) Call(ctx context.Context, name string, args json.RawMessage, check mcpserver.Check) (tool.Result, error) {
	if b.tools == nil {
		tools, err := b.docs.BookTools(ctx, b.id, "mcp", b.agent)
		if err != nil {
			return tool.Result{}, err
		}
		b.tools = tools
	}
	t, ok := b.tools[name]
	if !ok {
		return tool.Errorf("tool_not_enabled", "No book tool is named %s.", name), nil
	}
	if dt, locked := t.(*docTool); locked && check != nil {
		checked := *dt
		checked.check = check
		t = &checked
	}
	return t.Call(ctx, args)
}
