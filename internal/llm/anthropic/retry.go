package anthropic

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/aitexteditor/aite/internal/llm"
)

// maxRetryAfter caps a server-requested delay and the backoff.
const maxRetryAfter = 60 * time.Second

// retryDelay is the server's Retry-After when given, else a jittered
// exponential backoff: a random duration in [step/2, step] with
// step = RetryBaseDelay·2^retries, capped at maxRetryAfter.
func (p *Provider) retryDelay(e *llm.Error, retries int) time.Duration {
	if e.RetryAfter > 0 {
		return e.RetryAfter
	}
	step := min(p.cfg.RetryBaseDelay<<min(retries, 16), maxRetryAfter)
	half := step / 2
	return half + rand.N(step-half+1)
}

// parseRetryAfter reads retry-after-ms or Retry-After (seconds or an HTTP
// date), capped at maxRetryAfter; 0 when absent or unparsable.
func parseRetryAfter(h http.Header, now time.Time) time.Duration {
	var d time.Duration
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && ms > 0 {
			d = time.Duration(ms * float64(time.Millisecond))
		}
	}
	if v := strings.TrimSpace(h.Get("Retry-After")); d == 0 && v != "" {
		if secs, err := strconv.ParseFloat(v, 64); err == nil {
			d = time.Duration(secs * float64(time.Second))
		} else if t, err := http.ParseTime(v); err == nil {
			d = t.Sub(now)
		}
	}
	return min(max(d, 0), maxRetryAfter)
}
