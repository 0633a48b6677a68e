package mcpserver

import (
	"context"
	"io"
	"log/slog"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeStdio serves lib over a byte stream (the process's standard input
// and output for `aite mcp`) until the client disconnects or ctx ends.
func ServeStdio(ctx context.Context, lib Library, opts Options, in io.ReadCloser, out io.WriteCloser) error {
	return New(lib, opts).Run(ctx, &mcp.IOTransport{Reader: in, Writer: out})
}

// HTTPHandler serves MCP over stateless streamable HTTP, so any server
// process can answer any request: each request gets a server over the
// library and options forRequest gives for it (the caller's documents and
// subject), with Multi set and state shared. The SDK refuses requests
// that reach a loopback address under another host name (DNS rebinding).
func HTTPHandler(forRequest func(r *http.Request) (Library, Options), state *State, logger *slog.Logger) http.Handler {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	logger = slog.New(warnings{logger.Handler()})
	return mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		lib, opts := forRequest(r)
		opts.Multi, opts.State = true, state
		if opts.Logger == nil {
			opts.Logger = logger
		}
		return New(lib, opts)
	}, &mcp.StreamableHTTPOptions{Stateless: true, Logger: logger})
}

// warnings passes on warnings and errors only: the SDK logs every
// stateless session (one per request) at info level.
type warnings struct{ slog.Handler }

func (w warnings) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && w.Handler.Enabled(ctx, l)
}

func (w warnings) WithAttrs(attrs []slog.Attr) slog.Handler {
	return warnings{w.Handler.WithAttrs(attrs)}
}

func (w warnings) WithGroup(name string) slog.Handler { return warnings{w.Handler.WithGroup(name)} }
