package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/aitexteditor/aite/internal/agent"
	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/agent/protocol"
	"github.com/aitexteditor/aite/internal/agentdef"
	"github.com/aitexteditor/aite/internal/cursoragent"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/llm/models"
	"github.com/aitexteditor/aite/internal/server/auth"
	"github.com/aitexteditor/aite/internal/server/builtins"
	"github.com/aitexteditor/aite/internal/server/config"
	"github.com/aitexteditor/aite/internal/store"
	"github.com/aitexteditor/aite/internal/store/postgres"
	"github.com/aitexteditor/aite/internal/store/sqlite"
	"github.com/aitexteditor/aite/internal/tool"
	"github.com/aitexteditor/aite/internal/tool/bookprotocol"
	"github.com/aitexteditor/aite/internal/tool/booktools"
)

// DefaultShutdownTimeout bounds a graceful shutdown: running runs are
// canceled and the open requests get this long to finish.
const DefaultShutdownTimeout = 10 * time.Second

// AppOptions tune an App beyond its configuration; the zero value is what
// `aite serve` uses.
type AppOptions struct {
	// Logger receives startup information, definition warnings and request
	// failures (nil: discarded).
	Logger *slog.Logger
	// Env looks up the model configuration's environment variables (nil:
	// os.Getenv).
	Env func(string) string
	// WorkDir is where llm/models looks for ./aite.json when the server
	// config named no file ("" = the current directory).
	WorkDir string
	// Clock stamps events, runs and documents (nil: time.Now).
	Clock func() time.Time
	// HTTPClient calls the model providers and the JWKS (nil: defaults).
	HTTPClient *http.Client
	// WatchInterval and WatchDebounce tune the hot reload of the definition
	// directories (0: agentdef's defaults, 100 ms and 500 ms).
	WatchInterval, WatchDebounce time.Duration
	// ShutdownTimeout bounds the graceful shutdown (0: DefaultShutdownTimeout).
	ShutdownTimeout time.Duration
	// SampleName and Sample are the sample book registered as a document on
	// the first start (none when Sample is empty); cmd/aite passes
	// examples/zvezdochkin.md.
	SampleName string
	Sample     []byte
	// Web is the web app served at / (nil: none); cmd/aite passes package
	// web's.
	Web WebApp
}

// App is the whole aite server built from a configuration: the store
// (SQLite, or PostgreSQL shared with other nodes), the definition directories (built-ins written at start, hot
// reloaded), the model registry, the documents (the sample book registered
// on the first start), the engine, the run manager and the HTTP server.
type App struct {
	cfg     config.Config
	opts    AppOptions
	log     *slog.Logger
	store   store.Store
	models  *builtins.Models
	watcher *agentdef.Watcher
	docs    *Documents
	runs    *RunManager
	server  *Server

	closeOnce sync.Once
	closeErr  error
}

// NewApp prepares the server of cfg: it creates the directories, writes
// the built-in definitions, loads the models and definitions and starts
// watching them, opens the database, closes the runs a previous process
// left running and registers the sample book. Close (or Serve) releases
// everything.
func NewApp(ctx context.Context, cfg config.Config, opts AppOptions) (_ *App, err error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.ShutdownTimeout <= 0 {
		opts.ShutdownTimeout = DefaultShutdownTimeout
	}
	a := &App{cfg: cfg, opts: opts, log: opts.Logger}
	defer func() {
		if err != nil {
			_ = a.release()
		}
	}()
	if err := a.prepareDirs(); err != nil {
		return nil, err
	}
	if err := a.loadDefinitions(); err != nil {
		return nil, err
	}
	if a.store, err = a.openStore(ctx); err != nil {
		return nil, fmt.Errorf("server: open the database: %w", err)
	}
	a.runs = NewRunManager(a.store, RunOptions{Clock: opts.Clock, Logger: a.log, Lease: cfg.Lease()})
	if err := a.runs.RecoverInterrupted(ctx); err != nil {
		a.log.Error("closing interrupted runs failed", "err", err)
	}
	a.docs = NewDocuments(a.store, opts.Clock)
	a.docs.Logger = a.log
	a.enableEmbeddings()
	if err := a.registerSample(ctx); err != nil {
		return nil, err
	}
	if a.server, err = a.newServer(); err != nil {
		return nil, err
	}
	return a, nil
}

// openStore opens storage.store: PostgreSQL as the node cluster.node, else
// the SQLite file.
func (a *App) openStore(ctx context.Context) (store.Store, error) {
	dsn := a.cfg.PostgresDSN()
	if dsn == "" {
		a.log.Info("storage", "sqlite", a.cfg.Storage.SQLitePath)
		return sqlite.Open(a.cfg.Storage.SQLitePath)
	}
	st, err := postgres.Open(ctx, dsn, postgres.Options{Node: a.cfg.Cluster.Node, Logger: a.log})
	if err != nil {
		return nil, err
	}
	a.log.Info("storage", "postgres", config.RedactURL(dsn), "schema", st.Schema(), "node", st.Node(), "lease", a.cfg.Lease())
	return st, nil
}

// Config returns the configuration the app was built from.
func (a *App) Config() config.Config { return a.cfg }

// Handler returns the HTTP handler of the /api/ap server.
func (a *App) Handler() http.Handler { return a.server.Handler() }

// prepareDirs creates the data directories and writes the built-ins.
func (a *App) prepareDirs() error {
	d := a.cfg.Dirs
	dirs := []string{a.cfg.Data, d.Agents, d.Models, d.Tools, d.Skills, d.Viewports, d.Data}
	if a.cfg.PostgresDSN() == "" {
		dirs = append(dirs, filepath.Dir(a.cfg.Storage.SQLitePath))
	}
	for _, dir := range dirs {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("server: create directory: %w", err)
		}
	}
	if err := agentdef.WriteBuiltins(a.defDirs(), builtins.FS()); err != nil {
		return fmt.Errorf("server: write the built-in definitions: %w", err)
	}
	return nil
}

func (a *App) defDirs() agentdef.Dirs {
	d := a.cfg.Dirs
	return agentdef.Dirs{Agents: d.Agents, Tools: d.Tools, Skills: d.Skills, Viewports: d.Viewports, Models: d.Models}
}

// loadDefinitions loads the models and the definitions and starts the
// watcher: a models change reloads the models, then the agents.
func (a *App) loadDefinitions() error {
	reg, err := a.loadModels()
	if err != nil {
		return err
	}
	a.models = builtins.NewModels(reg)
	a.logDefaultModel(reg)
	l := agentdef.Loader{Dirs: a.defDirs(), Models: a.models, Backends: BackendNames(),
		MaxSkillPromptChars: a.cfg.Skills.MaxPromptChars}
	w, ws := agentdef.NewWatcher(l, agentdef.WatchOptions{Interval: a.opts.WatchInterval, Debounce: a.opts.WatchDebounce,
		LoadModels: a.reloadModels})
	a.watcher = w
	a.logDefinitions(w.Current(), ws, "definitions loaded")
	w.Subscribe(func(s *agentdef.Snapshot, ws []agentdef.Warning) { a.logDefinitions(s, ws, "definitions reloaded") })
	w.Start()
	return nil
}

// loadModels reads the model registry: the server's config file, the
// models directory dirs.models, the environment.
func (a *App) loadModels() (*models.Registry, error) {
	env := a.opts.Env
	if env == nil {
		env = os.Getenv
	}
	modelsDir := a.cfg.Dirs.Models
	reg, ws, err := models.Load(models.LoadOptions{ConfigPath: a.cfg.File, WorkDir: a.opts.WorkDir,
		HTTPClient: a.opts.HTTPClient, Logger: a.log, Env: func(k string) string {
			if k == "AITE_MODELS_DIR" {
				return modelsDir
			}
			return env(k)
		}})
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	for _, w := range ws {
		a.log.Warn("models warning", "file", w.File, "field", w.Field, "reason", w.Message)
	}
	return reg, nil
}

// reloadModels is the watcher's LoadModels.
func (a *App) reloadModels() (agentdef.ModelLookup, error) {
	reg, err := a.loadModels()
	if err != nil {
		return nil, err
	}
	a.models.Set(reg)
	a.logDefaultModel(reg)
	return a.models, nil
}

func (a *App) logDefaultModel(reg *models.Registry) {
	m, err := reg.Default()
	if err != nil {
		spec, from := reg.DefaultSpec()
		if spec == "" {
			a.log.Warn("no model is configured: runs will fail with model_error until one is " +
				"(e.g. OPENAI_API_KEY and AITE_MODEL=openai:gpt-4o-mini, then restart)")
			return
		}
		a.log.Warn("the default model cannot be used", "from", from, "spec", spec, "err", err)
		return
	}
	a.log.Info("default model", "key", m.Key, "provider", m.Provider, "modelId", m.ModelID)
}

// logDefinitions logs every warning (with file and field) and a summary.
func (a *App) logDefinitions(s *agentdef.Snapshot, ws []agentdef.Warning, msg string) {
	for _, w := range ws {
		verb := "warning"
		if w.Rejected {
			verb = "rejected"
		}
		a.log.Warn(w.Kind+" "+verb, "file", w.File, "field", w.Field, "reason", w.Reason)
	}
	agents := s.Agents()
	keys := make([]string, len(agents))
	for i, ag := range agents {
		keys[i] = ag.Key
	}
	a.log.Info(msg, "agents", strings.Join(keys, ","), "tools", len(s.Tools()), "skills", len(s.Skills()),
		"viewports", len(s.Viewports()), "warnings", len(ws))
	if _, ok := s.Agent(a.cfg.Agents.Default); !ok {
		a.log.Warn("the default agent is not defined", "agents.default", a.cfg.Agents.Default)
	}
}

// BackendNames are the Go backend tools of the server's runs (and the
// CLI's): the book tools, the protocol book activities, the demo tools and
// the runner's own, for agentdef.Loader.Backends.
func BackendNames() map[string]bool {
	names := builtins.BackendNames()
	for _, t := range agent.Builtins() {
		names[strings.ToLower(t.Name())] = true
	}
	return names
}

// builtinTools lists the built-in Go tools for /tools (the book tools
// unbound: they are only described, never called). The list is constant,
// so it is built once rather than at every /tools request.
var builtinTools = sync.OnceValue(func() []tool.Tool {
	out := booktools.Tools(booktools.Env{})
	out = append(out, builtins.Backends()...)
	return append(out, agent.Builtins()...)
})

// registerSample stores the sample book unless a document of its name
// exists. Its id is derived from its name, so nodes of a shared store
// starting at once store it once.
func (a *App) registerSample(ctx context.Context) error {
	name, sample := a.opts.SampleName, a.opts.Sample
	if len(sample) == 0 {
		return nil
	}
	docs, err := a.store.ListDocuments(ctx)
	if err != nil {
		return fmt.Errorf("server: list documents: %w", err)
	}
	for _, d := range docs {
		if d.Name == name {
			return nil
		}
	}
	d, err := a.docs.createAs(ctx, uuidV5(name), name, sample, max(a.cfg.Documents.MaxBytes, int64(len(sample))))
	if errors.Is(err, store.ErrExists) {
		return nil // another node registered it just now
	}
	if err != nil {
		return fmt.Errorf("server: register the sample book: %w", err)
	}
	a.log.Info("sample book registered", "documentId", d.ID, "name", d.Name)
	return nil
}

// enableEmbeddings turns search by meaning on for the documents when an
// embedding model is configured (AITE_EMBED_MODEL or embedModel; read at
// start: a change needs a restart).
func (a *App) enableEmbeddings() {
	reg := a.models.Registry()
	if reg == nil {
		return
	}
	e, m, err := reg.Embedder("")
	switch {
	case errors.Is(err, models.ErrNoEmbedModel):
		a.log.Info("no embedding model is configured: documents are searched by words (AITE_EMBED_MODEL turns search by meaning on)")
		return
	case err != nil:
		a.log.Warn("the embedding model cannot be used", "err", err)
		return
	}
	a.docs.SetEmbeddings(&editor.Embeddings{Embedder: e, Model: m.Key})
	a.log.Info("embedding model", "key", m.Key, "provider", m.Provider, "modelId", m.ModelID)
}

// newServer builds the engine and the HTTP server.
func (a *App) newServer() (*Server, error) {
	cfg := a.cfg
	waits := &agent.Waits{}
	eng := &agent.Runner{Memory: a.store, Models: a.models, Waiter: waits, MemoryK: cfg.Memory.K,
		AllowInlineCode: cfg.Skills.AllowInlineCode, FrontendTimeout: cfg.FrontendTimeout(), Clock: a.opts.Clock, Logger: a.log}
	opts := Options{Store: a.store, Defs: a.watcher.Current, Engine: eng, Waits: waits, Tools: a.bindTools, Runs: a.runs, Documents: a.docs,
		ChatTokens: cfg.ChatTokenIssuer(a.opts.Clock), DataTokenValidation: cfg.ChatImageToken.DataTokenValidation,
		DataDir: cfg.Dirs.Data, ModelID: a.models.ModelID, BuiltinTools: builtinTools, MCPCursorAgent: a.defaultCursorAgent,
		Web:          a.opts.Web,
		DefaultAgent: cfg.Agents.Default, Heartbeat: cfg.Heartbeat(), DoneMarker: cfg.SSE.DoneMarker, Stall: cfg.Stall(),
		Guard:            Guard{Hosts: cfg.Server.AllowedHosts, CORS: cfg.CORS.Enabled, Origins: cfg.CORS.AllowedOrigins},
		DocumentMaxBytes: cfg.Documents.MaxBytes, MemoryK: cfg.Memory.K, Logger: a.log, Clock: a.opts.Clock}
	if cfg.Auth.Enabled {
		v, err := auth.NewVerifier(cfg.AuthConfig(), a.opts.HTTPClient, a.opts.Clock)
		if err != nil {
			return nil, fmt.Errorf("server: %w", err)
		}
		opts.Auth = v
	}
	return New(opts), nil
}

// bindTools gives a run its tools: the demo tools and, when the run has a
// document (docID), the book tools bound to it, with the cursor agent on
// the model of the run's agent; for a protocol agent also the protocol
// book editor's activities and reference cards (ProtocolActivities,
// ProtocolContextProviders).
func (a *App) bindTools(ctx context.Context, spec *agent.Spec, docID string) error {
	spec.Tools = map[string]tool.Tool{}
	for _, t := range builtins.Backends() {
		spec.Tools[strings.ToLower(t.Name())] = t
	}
	if docID != "" {
		book, err := a.docs.BookTools(ctx, docID, spec.RunID, a.cursorAgent(spec.Agent))
		if err != nil {
			return err
		}
		maps.Copy(spec.Tools, book)
	}
	if spec.Agent.Protocol == nil {
		return nil
	}
	acts, err := ProtocolActivities(ctx, a.docs, spec.RunID, docID)
	if err != nil {
		return err
	}
	spec.Activities, spec.Context = acts, ProtocolContextProviders(a.docs, docID)
	return nil
}

// ProtocolActivities returns the activities of the protocol book editor
// for run runID on document docID (AGENT_PROTOCOL § 6): bookprotocol's
// activities bound to the document. They run the reused book operations
// through Documents.BookTools, so every call holds the document's lock and
// every applied edit is persisted as the next revision (its DocumentEdit
// row names the run and the call) and reported (tool.ReportEdit), which
// the runner streams as document.edit before the call's tool.result. A run
// without a document gets the activities unbound: each call fails with "no
// book is open for the book tools", which the model reads.
func ProtocolActivities(ctx context.Context, docs *Documents, runID, docID string) (map[string]protocol.Activity, error) {
	if docID == "" {
		return bookprotocol.Activities(booktools.Env{}), nil
	}
	tools, err := docs.BookTools(ctx, docID, runID, nil)
	if err != nil {
		return nil, err
	}
	return bookprotocol.ActivitiesWith(booktools.Env{Session: docs.session, Book: docID}, bookprotocol.Options{Tools: tools}), nil
}

// ProtocolContextProviders returns the context providers of the protocol
// book editor for document docID: book.characters, book.glossary and
// book.styleGuide, the reference cards of the document read from its
// appendix sections under the document's lock (stored documents have no
// sidecar file). A run without a document, or a book without the card,
// gets no message.
func ProtocolContextProviders(docs *Documents, docID string) map[string]agent.ContextProvider {
	out := map[string]agent.ContextProvider{}
	for name := range bookprotocol.Providers(booktools.Env{}) {
		out[name] = func(ctx context.Context) ([]agentctx.Message, error) {
			if docID == "" {
				return nil, nil
			}
			var msgs []agentctx.Message
			err := docs.locked(ctx, docID, func(*docState) error {
				var err error
				env := booktools.Env{Session: docs.session, Book: docID}
				msgs, err = bookprotocol.Providers(env)[name](ctx)
				return err
			})
			if err != nil {
				return nil, fmt.Errorf("document %s: %w", docID, err)
			}
			return msgs, nil
		}
	}
	return out
}

// cursorAgent returns the cursor agent of a run of agent ag on the model of
// its main stage, or nil when that model cannot be used (the tool then
// says so).
func (a *App) cursorAgent(ag agentdef.AgentDef) *cursoragent.Agent {
	key := ag.MainStage().ModelConfig.ModelKey
	if key == "" {
		key = ag.ModelConfig.ModelKey
	}
	return a.cursorAgentOn(key)
}

// defaultCursorAgent is the cursor agent on the default model, or nil when
// that model cannot be used (MCP clients are then not offered the tool).
func (a *App) defaultCursorAgent() *cursoragent.Agent {
	return a.cursorAgentOn(builtins.DefaultModelKey)
}

// cursorAgentOn is the cursor agent on the model of modelKey; its task
// states are kept in the store (the task_states table), so a task survives
// the process and its evidence can be read later.
func (a *App) cursorAgentOn(modelKey string) *cursoragent.Agent {
	p, m, err := a.models.Provider(modelKey)
	if err != nil {
		return nil
	}
	return &cursoragent.Agent{Provider: p, Model: m.ModelID, JSONSchema: m.SupportsJSONSchema,
		Store: cursoragent.Persistent{Tasks: a.store, Now: a.opts.Clock}}
}

// Listen opens the listener of server.addr.
func (a *App) Listen() (net.Listener, error) {
	ln, err := net.Listen("tcp", a.cfg.Server.Addr)
	if err != nil {
		return nil, fmt.Errorf("server: listen on %s: %w", a.cfg.Server.Addr, err)
	}
	return ln, nil
}

// ListenAndServe listens on server.addr and serves until ctx is canceled
// (see Serve).
func (a *App) ListenAndServe(ctx context.Context) error {
	ln, err := a.Listen()
	if err != nil {
		_ = a.Close(context.Background())
		return err
	}
	return a.Serve(ctx, ln)
}

// Serve serves on ln until ctx is canceled, then shuts down gracefully:
// running runs are canceled and end with their terminal events, open
// requests get ShutdownTimeout to finish, and the watcher and the database
// are closed. It returns nil after a shutdown caused by ctx.
func (a *App) Serve(ctx context.Context, ln net.Listener) error {
	// Connection hygiene: a request's headers and its whole body must arrive
	// in time, and an idle kept-alive connection is closed. No write
	// timeout: streams are long; each SSE frame has its own write deadline
	// (sse.stallTimeoutMs).
	readHeader, read, idle := a.cfg.HTTPTimeouts()
	srv := &http.Server{Handler: a.Handler(), ReadHeaderTimeout: readHeader, ReadTimeout: read, IdleTimeout: idle,
		ErrorLog: slog.NewLogLogger(a.log.Handler(), slog.LevelWarn)}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	var serveErr error
	select {
	case serveErr = <-errc:
	case <-ctx.Done():
	}
	a.log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), a.opts.ShutdownTimeout)
	defer cancel()
	err := a.runs.Close(sctx)
	if shutErr := srv.Shutdown(sctx); shutErr != nil {
		err = errors.Join(err, shutErr, srv.Close())
	}
	if serveErr == nil {
		serveErr = <-errc
	}
	if errors.Is(serveErr, http.ErrServerClosed) {
		serveErr = nil
	}
	return errors.Join(serveErr, err, a.Close(sctx))
}

// Close cancels the running runs (waiting for them until ctx is done),
// stops the watcher and closes the database. It is safe to call more than
// once.
func (a *App) Close(ctx context.Context) error {
	a.closeOnce.Do(func() {
		var err error
		if a.runs != nil {
			err = a.runs.Close(ctx)
		}
		a.closeErr = errors.Join(err, a.release())
	})
	return a.closeErr
}

// release stops the watcher and closes the database.
func (a *App) release() error {
	if a.watcher != nil {
		a.watcher.Stop()
	}
	if a.store != nil {
		return a.store.Close()
	}
	return nil
}
