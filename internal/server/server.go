package server

import (
	"bytes"
	"context"
	"encoding/json"
	"iter"
	"log/slog"
	"net/http"
	"time"

	"github.com/aitexteditor/aite/internal/agent"
	"github.com/aitexteditor/aite/internal/agentdef"
	"github.com/aitexteditor/aite/internal/api"
	"github.com/aitexteditor/aite/internal/cursoragent"
	"github.com/aitexteditor/aite/internal/server/auth"
	"github.com/aitexteditor/aite/internal/store"
	"github.com/aitexteditor/aite/internal/tool"
)

// Defaults of Options.
const (
	DefaultHeartbeat        = 15 * time.Second
	DefaultDocumentMaxBytes = 8 << 20
	DefaultAgentKey         = "bookEditor"
	// MaxJSONBody bounds every JSON request body except POST /documents.
	MaxJSONBody = 1 << 20
)

// Options configure a Server. Store, Defs, Engine and Runs are required.
type Options struct {
	Store store.Store
	// Defs returns the current definitions snapshot (agentdef.Watcher.Current).
	Defs   func() *agentdef.Snapshot
	Engine Executor
	// Waits holds the questions runs put to people (the Engine's Waiter);
	// /submit answers them. Nil: a fresh one.
	Waits *agent.Waits
	// Tools gives a run its tools (Spec.Tools, Activities, Context) for
	// its document docID ("" for none); it runs on the run's goroutine
	// before the run starts, and an error ends the run (internal_error).
	// Nil: no tools.
	Tools func(ctx context.Context, spec *agent.Spec, docID string) error
	Runs  *RunManager
	// Documents holds the documents the book tools edit (required for the
	// document endpoints and the book editor agent).
	Documents *Documents

	// Auth verifies API tokens; nil means auth is off (§ 8.1).
	Auth *auth.Verifier
	// ChatTokens issues and verifies chat image tokens; nil or without a
	// secret means none are issued (§ 8.2).
	ChatTokens *auth.Issuer
	// DataTokenValidation is chatImageToken.dataTokenValidation (default true
	// in the config; the zero value here means off).
	DataTokenValidation bool
	// DataDir is dirs.data, the root of GET /data.
	DataDir string
	// ChatFiles returns the normalised data paths (auth.NormalizeRef) that a
	// chat references, for step 5 of GET /data (§ 8.3); nil means the
	// store-based default (Server.chatFiles).
	ChatFiles func(ctx context.Context, chatID string) (map[string]bool, error)

	// ModelID returns the provider modelId of a modelKey ("" when unknown),
	// for AgentSummary.meta.model; nil (or "") shows the modelKey itself.
	ModelID func(modelKey string) string
	// BuiltinTools returns the built-in Go backend tools; those without a
	// tool file are listed by /tools as kind backend (nil: none).
	BuiltinTools func() []tool.Tool
	// MCPCursorAgent returns the cursor agent MCP clients may run (on the
	// default model), or nil when there is none; nil: none.
	MCPCursorAgent func() *cursoragent.Agent
	// Web is the web app served at / next to the API (nil: none; see
	// webapp.go).
	Web WebApp

	// Guard configures the security chain (hosts, CORS, trusted origins).
	Guard Guard

	DefaultAgent     string        // agents.default (default DefaultAgentKey)
	Heartbeat        time.Duration // sse.heartbeatMs (default 15 s)
	Stall            time.Duration // sse.stallTimeoutMs: a client reading nothing that long is given up (0: never)
	DoneMarker       bool          // sse.doneMarker
	DocumentMaxBytes int64         // documents.maxBytes (default 8 MiB)
	MemoryK          int           // memory.k (default 20)

	Logger *slog.Logger
	Clock  func() time.Time
}

// Executor runs agents (*agent.Engine; tests may fake it).
type Executor interface {
	// Run runs spec to its end and streams its events.
	Run(ctx context.Context, spec agent.Spec) iter.Seq2[agent.Event, error]
}

// Server is the /api/ap HTTP server of PLATFORM_API.md.
type Server struct {
	opts     Options
	mux      *http.ServeMux
	policies map[string]Policy // by mux pattern (Route)
	runID    *RunIDs
}

// New returns a server over opts.
func New(opts Options) *Server {
	if opts.DefaultAgent == "" {
		opts.DefaultAgent = DefaultAgentKey
	}
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = DefaultHeartbeat
	}
	if opts.DocumentMaxBytes <= 0 {
		opts.DocumentMaxBytes = DefaultDocumentMaxBytes
	}
	if opts.MemoryK <= 0 {
		opts.MemoryK = 20
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.Waits == nil {
		opts.Waits = &agent.Waits{}
	}
	s := &Server{opts: opts, mux: http.NewServeMux(), policies: map[string]Policy{}, runID: NewRunIDs(opts.Clock)}
	if opts.Runs != nil {
		opts.Runs.answerSubmits(s.answerForwarded)
	}
	s.routes()
	return s
}

// Handler returns the server's handler: the security chain (guard.go) in
// front of the routes, with 404 envelopes for everything else.
func (s *Server) Handler() http.Handler { return s.guard() }

// routes registers every endpoint. Handlers live in their own files.
func (s *Server) routes() {
	s.registerMeta()      // /agents /agent /skills /skill /tools /tool /viewport /data
	s.registerDocuments() // /documents /document /document/items /document/raw /document/history
	s.registerChats()     // /chats /read /chat /query /submit /run/stream /runs /run/cancel
	s.mountMCP()          // /mcp, the book tools for MCP clients (mcp.go)
	s.registerPresent()   // /render /diff
	s.registerWeb()       // the web app: / /frame.html /assets/ (webapp.go)
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "Not found", nil)
	})
}

// writeJSON writes an envelope with HTTP status status.
func writeJSON(w http.ResponseWriter, status int, env api.Envelope) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(env); err != nil {
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString(`{"code":500,"msg":"Internal server error","data":{}}` + "\n")
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// writeOK writes the success envelope around data (§ 1.2).
func writeOK(w http.ResponseWriter, data any) {
	writeJSON(w, http.StatusOK, api.Envelope{Code: 0, Msg: api.MsgSuccess, Data: data})
}

// writeError writes a failure envelope; nil data becomes {}.
func writeError(w http.ResponseWriter, status int, msg string, data any) {
	if data == nil {
		data = struct{}{}
	}
	writeJSON(w, status, api.Envelope{Code: status, Msg: msg, Data: data})
}

// writeValidation writes 400 "Validation failed" with data.fields.
func writeValidation(w http.ResponseWriter, fields map[string]string) {
	writeError(w, http.StatusBadRequest, "Validation failed", api.ValidationData{Fields: fields})
}

// writeInternal logs err and writes 500 "Internal server error" (no internals).
func (s *Server) writeInternal(w http.ResponseWriter, r *http.Request, err error) {
	s.opts.Logger.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	writeError(w, http.StatusInternalServerError, "Internal server error", nil)
}
