package anthropic

import (
	"net/http"

	"github.com/aitexteditor/aite/internal/llm/wire"

	"github.com/anthropics/anthropic-sdk-go/option"
)

// logExchange logs each HTTP exchange at debug level with credentials masked.
func (p *Provider) logExchange(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	return wire.LogExchange(p.cfg.Logger, "llm/anthropic: http", req, next)
}
