package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strings"

	"github.com/aitexteditor/aite/internal/llm/wire"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/aitexteditor/aite/internal/llm"
)

// statusError is an HTTP error response captured before the SDK parses it.
type statusError = wire.StatusError

// captureStatus is wire.CaptureStatus as SDK middleware.
func captureStatus(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	return wire.CaptureStatus(req, next)
}

// streamErrorPrefix starts the SDK's error for an in-stream error event when
// it cannot build an *anthropic.Error.
const streamErrorPrefix = "received error while streaming: "

// classify maps any failure to an *llm.Error. emitted says whether events
// were already yielded: a broken connection is then "the stream broke off" (still
// Network, so retriable: the adapters never retry once output was seen).
func (p *Provider) classify(ctx context.Context, err error, emitted bool) *llm.Error {
	if ce := llm.ContextError(ctx); ce != nil {
		return ce
	}
	var se *statusError
	if errors.As(err, &se) {
		return p.fromStatus(se)
	}
	var ae *anthropic.Error
	if errors.As(err, &ae) { // only in-stream error events reach the SDK's error type
		return fromErrorEvent([]byte(ae.RawJSON()), err)
	}
	if msg := err.Error(); strings.HasPrefix(msg, streamErrorPrefix) {
		return fromErrorEvent([]byte(strings.TrimPrefix(msg, streamErrorPrefix)), err)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &llm.Error{Kind: llm.Timeout, Message: "network timeout", Err: err}
	}
	if isNetwork(err) {
		if emitted { // a reset mid-stream: retriable, but never retried after output
			return &llm.Error{Kind: llm.Network, Message: "the stream broke off", Err: err}
		}
		return &llm.Error{Kind: llm.Network, Message: "connection failed", Err: err}
	}
	return &llm.Error{Kind: llm.Protocol, Message: "malformed stream", Err: err}
}

// isNetwork reports transport-level failures.
var isNetwork = wire.IsNetwork

// fromStatus maps an HTTP error response: 401/403 Auth, 429 RateLimited,
// 408 Timeout, 5xx (529 included) Server, a 4xx saying the prompt is too
// long ContextTooLong, other 4xx BadRequest. RateLimited and Server keep the
// server's Retry-After.
func (p *Provider) fromStatus(se *statusError) *llm.Error {
	typ, msg := errorBody(se.Body)
	e := &llm.Error{Kind: llm.StatusKind(se.Status), Status: se.Status, Message: msg, Err: se}
	if e.Kind == llm.BadRequest && contextTooLong(msg, se.Body) {
		e.Kind = llm.ContextTooLong
	}
	if typ != "" && e.Message != "" {
		e.Message = typ + ": " + e.Message
	}
	if e.Kind == llm.RateLimited || e.Kind == llm.Server {
		e.RetryAfter = parseRetryAfter(se.Header, p.cfg.Now())
	}
	return e
}

// fromErrorEvent maps the data of an in-stream "error" event:
// rate_limit_error is RateLimited, invalid_request_error BadRequest (or
// ContextTooLong), anything else (overloaded_error, api_error) Server.
func fromErrorEvent(data []byte, cause error) *llm.Error {
	typ, msg := errorBody(data)
	e := &llm.Error{Kind: llm.Server, Message: "stream error", Err: cause}
	switch typ {
	case "rate_limit_error":
		e.Kind = llm.RateLimited
	case "invalid_request_error":
		e.Kind = llm.BadRequest
		if contextTooLong(msg, data) {
			e.Kind = llm.ContextTooLong
		}
	}
	if typ != "" {
		e.Message = typ
	}
	if msg != "" {
		e.Message += ": " + msg
	}
	return e
}

// contextMarkers identify "prompt too long" errors.
var contextMarkers = []string{"prompt is too long", "context window", "context length", "too many tokens"}

func contextTooLong(msg string, body []byte) bool {
	text := strings.ToLower(msg + " " + string(body))
	for _, m := range contextMarkers {
		if strings.Contains(text, m) {
			return true
		}
	}
	return false
}

// maxMessage bounds the error text kept from a response body.
const maxMessage = 500

// errorBody reads Anthropic's {"type":"error","error":{"type","message"}}
// (or a bare {"type","message"}); for other bodies it returns the trimmed
// text as the message.
func errorBody(body []byte) (typ, msg string) {
	type detail struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	}
	var v struct {
		detail
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &v) == nil {
		var inner detail
		var s string
		switch {
		case json.Unmarshal(v.Error, &inner) == nil && (inner.Type != "" || inner.Message != ""):
			return inner.Type, truncate(inner.Message)
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			return "", truncate(s)
		case v.Message != "":
			return v.Type, truncate(v.Message)
		}
	}
	return "", truncate(strings.TrimSpace(string(body)))
}

// truncate cuts s to maxMessage bytes on a rune boundary.
func truncate(s string) string { return wire.Truncate(s, maxMessage) }
