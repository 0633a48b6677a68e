package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/aitexteditor/aite/internal/llm/wire"

	"github.com/openai/openai-go/v3/option"
	"github.com/tidwall/gjson"

	"github.com/aitexteditor/aite/internal/llm"
)

// statusError is an HTTP error response captured before the SDK parses it.
type statusError = wire.StatusError

// captureStatus is wire.CaptureStatus as SDK middleware.
func captureStatus(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	return wire.CaptureStatus(req, next)
}

// classify maps any failure to an *llm.Error. streamed says whether chunks
// were already received: a broken connection is then "the stream broke off" (still
// Network, so retriable: the adapters never retry once output was seen).
func (p *Provider) classify(ctx context.Context, err error, streamed bool) *llm.Error {
	if ce := llm.ContextError(ctx); ce != nil {
		return ce
	}
	var se *statusError
	var ie *inStreamError
	switch {
	case errors.As(err, &se):
		return p.fromStatus(se)
	case errors.As(err, &ie):
		return ie.llmError()
	case errors.Is(err, errEmptyStream), errors.Is(err, errMalformedChunk), errors.Is(err, errEventTooLarge):
		return &llm.Error{Kind: llm.Protocol, Message: err.Error()}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &llm.Error{Kind: llm.Timeout, Message: "network timeout", Err: err}
	}
	if isNetwork(err) {
		if streamed { // a reset mid-stream: retriable, but never retried after output
			return &llm.Error{Kind: llm.Network, Message: "the stream broke off", Err: err}
		}
		return &llm.Error{Kind: llm.Network, Message: "connection failed", Err: err}
	}
	return &llm.Error{Kind: llm.Protocol, Message: "malformed stream", Err: err}
}

// isNetwork reports transport-level failures.
var isNetwork = wire.IsNetwork

// fromStatus maps an HTTP error response (llm.StatusKind; a 4xx naming the
// context length is ContextTooLong). RateLimited and Server keep the
// server's Retry-After.
func (p *Provider) fromStatus(se *statusError) *llm.Error {
	e := &llm.Error{Kind: llm.StatusKind(se.Status), Status: se.Status, Message: errorMessage(se.Body), Err: se}
	if e.Kind == llm.BadRequest && contextTooLong(se.Body) {
		e.Kind = llm.ContextTooLong
	}
	if e.Kind == llm.RateLimited || e.Kind == llm.Server {
		e.RetryAfter = parseRetryAfter(se.Header, p.cfg.Now())
	}
	return e
}

// contextMarkers identify "prompt too long" errors across servers.
var contextMarkers = []string{
	"context_length_exceeded", "maximum context length", "too many tokens",
	"context window", "prompt is too long", "exceeds the context",
}

func contextTooLong(body []byte) bool {
	text := strings.ToLower(string(body))
	for _, m := range contextMarkers {
		if strings.Contains(text, m) {
			return true
		}
	}
	return false
}

// maxMessage bounds the error text kept from a response body.
const maxMessage = 500

// errorMessage extracts a readable message from an error body:
// {"error":{"message"}}, {"error":"…"}, {"message"} or {"detail"}; else the
// trimmed text.
func errorMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  any             `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		var inner struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(v.Error, &inner) == nil && inner.Message != "":
			return truncate(inner.Message)
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			return truncate(s)
		case v.Message != "":
			return truncate(v.Message)
		case v.Detail != nil:
			return truncate(fmt.Sprint(v.Detail))
		}
	}
	return truncate(strings.TrimSpace(string(body)))
}

// errMalformedChunk: a data payload that is not valid JSON.
var errMalformedChunk = errors.New("malformed chunk (not JSON)")

// inStreamError is an {"error":{…}} event inside a stream, as gateways send
// when the upstream fails after the HTTP status was written.
type inStreamError struct {
	code    int64
	message string
}

func (e *inStreamError) Error() string { return "error event in stream: " + e.message }

// llmError maps the event: a code of 429 means RateLimited, anything else
// Server.
func (e *inStreamError) llmError() *llm.Error {
	kind := llm.Server
	if e.code == http.StatusTooManyRequests {
		kind = llm.RateLimited
	}
	return &llm.Error{Kind: kind, Message: e.message, Err: e}
}

// chunkError returns the *inStreamError of a payload with an "error" member.
func chunkError(data []byte) error {
	if !gjson.ValidBytes(data) {
		return errMalformedChunk
	}
	return chunkErrorOf(gjson.ParseBytes(data))
}

func chunkErrorOf(root gjson.Result) error {
	e := root.Get("error")
	if !e.Exists() || e.Type == gjson.Null {
		return nil
	}
	msg := errorMessage([]byte(root.Raw))
	if msg == "" {
		msg = truncate(e.Raw)
	}
	return &inStreamError{code: e.Get("code").Int(), message: msg}
}

func truncate(s string) string { return wire.Truncate(s, maxMessage) }
