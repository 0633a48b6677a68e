package wire

import (
	"net/http"
	"time"
)

// MaxIdleConnsPerHost is how many idle connections to one model provider
// the adapters' HTTP client keeps for reuse. Go's default keeps 2, so a
// server streaming many runs to one provider at once would dial (and
// handshake TLS) again for nearly every run after a burst.
const MaxIdleConnsPerHost = 64

// ResponseHeaderTimeout bounds the wait for a provider's response headers
// (as the providers' own SDKs do); the body of a stream is never bounded
// here: streams may run long.
const ResponseHeaderTimeout = 10 * time.Minute

// NewHTTPClient returns the HTTP client of the model adapters: Go's default
// transport (proxy from the environment, dial and TLS timeouts, HTTP/2)
// keeping MaxIdleConnsPerHost idle connections per provider and waiting at
// most ResponseHeaderTimeout for response headers.
func NewHTTPClient() *http.Client {
	t, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return &http.Client{}
	}
	t = t.Clone()
	t.MaxIdleConnsPerHost = MaxIdleConnsPerHost
	t.ResponseHeaderTimeout = ResponseHeaderTimeout
	return &http.Client{Transport: t}
}
