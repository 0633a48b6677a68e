package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/aitexteditor/aite/internal/llm/models"
	"github.com/aitexteditor/aite/internal/reading"
	"github.com/aitexteditor/aite/internal/server"
	"github.com/aitexteditor/aite/internal/server/config"
)

// serveFlag maps a flag of `aite serve` to its config key.
type serveFlag struct {
	name, key, usage string
}

// serveFlags are the string flags of `aite serve`, each overriding one
// config key.
var serveFlags = []serveFlag{
	{"addr", "server.addr", "host:port to listen on (server.addr)"},
	{"data", "data", "the data directory: database, definitions and files live below it unless set explicitly"},
	{"store", "storage.store", "postgres://user:password@host/db to keep everything in PostgreSQL, which several aite serve processes may share, or a SQLite file (storage.store)"},
	{"db", "storage.sqlitePath", "the SQLite database file (storage.sqlitePath)"},
	{"agents-dir", "dirs.agents", "agent definitions (dirs.agents)"},
	{"models-dir", "dirs.models", "model files (dirs.models)"},
	{"tools-dir", "dirs.tools", "tool files (dirs.tools)"},
	{"skills-dir", "dirs.skills", "skills (dirs.skills)"},
	{"viewports-dir", "dirs.viewports", "viewports (dirs.viewports)"},
	{"files-dir", "dirs.data", "the files GET /api/ap/data serves (dirs.data)"},
	{"default-agent", "agents.default", "the agent of a query without agentKey (agents.default)"},
}

// serveDeps are what `aite serve` takes from the process; tests replace
// them.
type serveDeps struct {
	env        func(string) string
	workDir    string
	signals    []os.Signal
	sampleName string
	sample     []byte
	web        server.WebApp
}

// NewServeCmd returns the `aite serve` command: the agent platform server
// of PLATFORM_API.md on the configuration of internal/server/config, with
// the web app webApp at / (nil: none). The sample book (name and Markdown)
// is registered as a document on the first start; cmd/aite passes
// examples/zvezdochkin.md and package web's app.
func NewServeCmd(sampleName string, sample []byte, webApp server.WebApp) *cobra.Command {
	return newServeCmd(serveDeps{env: os.Getenv, signals: []os.Signal{os.Interrupt, syscall.SIGTERM},
		sampleName: sampleName, sample: sample, web: webApp})
}

func newServeCmd(deps serveDeps) *cobra.Command {
	values := map[string]*string{}
	var configPath, logLevel string
	var cors bool
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the agent platform server (REST + SSE under /api/ap) with the book editor agent and the web app",
		Long:  serveHelp(),
		Example: `  aite serve
  aite serve --addr :8080 --data /srv/aite
  aite serve --store 'postgres://aite:secret@db:5432/aite' --addr :8080
  OPENAI_API_KEY=sk-... AITE_MODEL=openai:gpt-4o-mini aite serve
  aite serve --config ./aite.json --agents-dir ./my-agents`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return reading.Usagef("serve takes no arguments")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			flags := map[string]string{}
			for _, f := range serveFlags {
				if cmd.Flags().Changed(f.name) {
					flags[f.key] = *values[f.name]
				}
			}
			if cmd.Flags().Changed("cors") {
				flags["cors.enabled"] = fmt.Sprint(cors)
			}
			return runServe(cmd.Context(), deps, serveRun{configPath: configPath, flags: flags, logLevel: logLevel},
				cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&configPath, "config", "", "the config file (default: $AITE_CONFIG, else ./aite.json if present)")
	for _, f := range serveFlags {
		values[f.name] = fl.String(f.name, "", f.usage)
	}
	fl.BoolVar(&cors, "cors", false, "answer CORS preflights and add CORS headers on /api/** (cors.enabled)")
	fl.StringVar(&logLevel, "log-level", "info", "log level on standard error: debug, info, warn or error")
	return cmd
}

// serveRun is one invocation of `aite serve`.
type serveRun struct {
	configPath string
	flags      map[string]string
	logLevel   string
}

// runServe loads the configuration, starts the server, prints its URL and
// serves until ctx is canceled or a signal arrives.
func runServe(ctx context.Context, deps serveDeps, r serveRun, stdout, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if len(deps.signals) > 0 {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, deps.signals...)
		defer stop()
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(r.logLevel)); err != nil {
		return reading.Usagef("--log-level: %q is not debug, info, warn or error", r.logLevel)
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level, ReplaceAttr: models.ReplaceAttr}))
	cfg, err := config.Load(config.Options{ConfigPath: r.configPath, Env: deps.env, WorkDir: deps.workDir, Flags: r.flags})
	if err != nil {
		return &reading.UsageError{Err: err}
	}
	app, err := server.NewApp(ctx, cfg, server.AppOptions{Logger: logger, Env: deps.env, WorkDir: deps.workDir,
		SampleName: deps.sampleName, Sample: deps.sample, Web: deps.web})
	if err != nil {
		if errors.Is(err, models.ErrConfig) {
			return &reading.UsageError{Err: err}
		}
		return &reading.IOError{Err: err}
	}
	ln, err := app.Listen()
	if err != nil {
		_ = app.Close(context.Background())
		return &reading.IOError{Err: err}
	}
	url := "http://" + displayAddr(ln.Addr())
	fmt.Fprintf(stdout, "aite server: %s/api/ap (data in %s; Ctrl-C stops)\n", url, cfg.Data)
	fmt.Fprintf(stdout, "MCP clients: %s%s (streamable HTTP)\n", url, server.MCPPath)
	if deps.web != nil {
		fmt.Fprintf(stdout, "open %s/\n", url)
	}
	if err := app.Serve(ctx, ln); err != nil {
		return &reading.IOError{Err: err}
	}
	return nil
}

// displayAddr turns a listening address into one a browser can open: an
// unspecified host (every interface) becomes localhost.
func displayAddr(a net.Addr) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}

// serveHelp is the long help of `aite serve`: what starts, every config
// key with its variable and default, and the model configuration.
func serveHelp() string {
	var b strings.Builder
	b.WriteString(`Run the agent platform server: the REST + SSE API of PLATFORM_API.md under
/api/ap, with the book editor agent (bookEditor, the default agent) and one
demo agent per feature (demoOneshot, demoReact, demoPlanner, demoAction,
demoConfirm, demoSkill), and the web app at / (open the printed address in
a browser).

Everything lives in one data directory (--data, default ./aite-data): the
SQLite database aite.db and the directories agents/, models/, tools/,
skills/, viewports/ and data/ (the files GET /api/ap/data serves). At every
start the built-in definitions are written there, replacing files of the
same name and keeping all others; the directories are watched and reloaded
when they change. On the first start the sample book examples/zvezdochkin.md
is registered as the document "zvezdochkin". Auth is off and the server
listens on 127.0.0.1:8080 unless configured otherwise. SIGINT or SIGTERM
shuts it down gracefully: running runs end with run.error run_aborted.

With --store postgres://… (or AITE_STORE) chats, runs, events and documents
live in PostgreSQL instead, and several aite serve processes (nodes) may
share the database behind a load balancer: a client can follow a run from
any node, the runs of a node that dies are aborted by another within
cluster.leaseMs plus a third, and edits of one document from several nodes
are applied one after the other. Each node keeps its own data directory for
the definitions (deploy the same files on every node).

Configuration, lowest precedence first: built-in defaults, the config file
(--config, $AITE_CONFIG, else ./aite.json if present; strict JSON, e.g.
{"server": {"addr": ":9000"}, "memory": {"k": 10}}), environment variables,
flags. Relative paths are relative to the working directory. The keys:

`)
	for _, k := range config.Keys() {
		def := ""
		if k.Default != "" {
			def = ", default " + k.Default
		}
		fmt.Fprintf(&b, "  %s (%s%s)\n      %s\n", k.Name, k.Env, def, k.Help)
	}
	b.WriteString(`
Models: the built-in agents use modelKey "default", which is the configured
default model: AITE_MODEL (provider:model, e.g. openai:gpt-4o-mini with
OPENAI_API_KEY, or ollama:qwen3:8b), else "defaultModel" of the config file,
whose "providers" section describes OpenAI-compatible endpoints
({"baseUrl", "apiKeyEnv"}; AITE_PROVIDER_<KEY>_API_KEY and
AITE_PROVIDER_<KEY>_BASE_URL override them). A models/default.json file of
your own takes precedence. Without a model the server starts and every run
ends with run.error model_error saying how to configure one; restart the
server after changing the environment. See 'aite models --help'.

` + ExitHelp)
	return b.String()
}
