package anthropic

import (
	"time"

	"github.com/aitexteditor/aite/internal/llm/wire"

	"github.com/aitexteditor/aite/internal/llm"
)

// retryDelay is the server's Retry-After when given, else a jittered
// exponential backoff (wire.Backoff).
func (p *Provider) retryDelay(e *llm.Error, retries int) time.Duration {
	return wire.Backoff(p.cfg.RetryBaseDelay, retries, e.RetryAfter)
}

// parseRetryAfter reads retry-after-ms or Retry-After (wire.ParseRetryAfter).
var parseRetryAfter = wire.ParseRetryAfter
