package mcpserver

import (
	"context"
	_ "embed"
	"log/slog"
	"runtime/debug"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aitexteditor/aite/internal/tool"
	"github.com/aitexteditor/aite/internal/tool/booktools"
)

//go:embed instructions.md
var instructions string

// Options configure a server.
type Options struct {
	// Multi makes every book tool take a documentId and offers
	// list_documents (the HTTP server). Without it the tools work on the
	// library's only document (`aite mcp BOOK.md`).
	Multi bool
	// CursorAgent offers cursor_agent-run_cursor_agent: the host has a
	// model for the cursor agent.
	CursorAgent bool
	// Scope is whose proposals and pages these are (the auth subject; ""
	// when there is none).
	Scope string
	// State keeps proposals and pages between calls; nil makes a new one.
	State *State
	// Version is the server version clients see ("": the module version
	// the binary was built from).
	Version string
	// Logger receives infrastructure failures (nil: discarded).
	Logger *slog.Logger
}

// server holds what the MCP handlers share.
type server struct {
	lib   Library
	opts  Options
	state *State
	log   *slog.Logger
	defs  map[string]tool.Tool // the book tools, unbound: names, descriptions, schemas
}

// omitted are the book tools the MCP server does not offer: a client has
// its own way to talk to its user, and the document is named by the
// client (documentId) or is the only one.
var omitted = map[string]bool{"editor-get_default_document_id": true, "editor-show_user_message": true}

// New returns the MCP server of a library: the book tools of the registry
// (internal/tool/booktools), the review tools, read_more, the resources,
// and the filter that shows each client the edit tools it can use.
func New(lib Library, opts Options) *mcp.Server {
	if opts.State == nil {
		opts.State = NewState(nil, nil)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Version == "" {
		opts.Version = buildVersion()
	}
	s := &server{lib: lib, opts: opts, state: opts.State, log: opts.Logger, defs: map[string]tool.Tool{}}
	srv := mcp.NewServer(&mcp.Implementation{Name: "aite", Title: "aite book editor", Version: opts.Version},
		&mcp.ServerOptions{Instructions: strings.TrimSpace(instructions), Logger: opts.Logger,
			SetCacheable: privateLists})
	for _, t := range booktools.Tools(booktools.Env{}) {
		if s.offered(t.Name()) {
			s.defs[t.Name()] = t
			s.addBookTool(srv, t)
		}
	}
	s.addReviewTools(srv)
	s.addOwnTools(srv)
	s.addResources(srv)
	srv.AddReceivingMiddleware(s.lists)
	return srv
}

func (s *server) offered(name string) bool {
	return !omitted[name] && (s.opts.CursorAgent || name != booktools.ToolRunCursorAgent)
}

// privateLists marks the lists private to the client: tools/list depends
// on the client's capabilities, resources/list on the caller's documents.
func privateLists(_ context.Context, _ mcp.Request, c *mcp.Cacheable) {
	c.CacheScope = "private"
}

// buildVersion is the version of the module the binary was built from
// ("(devel)" for a build from a checkout).
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
