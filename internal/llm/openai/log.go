package openai

import (
	"net/http"
	"strings"

	"github.com/aitexteditor/aite/internal/llm/wire"

	"github.com/openai/openai-go/v3/option"
)

// logExchange logs each HTTP exchange at debug level with credentials masked.
func (p *Provider) logExchange(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	return wire.LogExchange(p.cfg.Logger, "llm/openai: http", req, next)
}

// rewritePath sends every request to path on the configured origin.
func rewritePath(path string) option.Middleware {
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	return func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		req.URL.Path, req.URL.RawPath = path, ""
		return next(req)
	}
}
