package llm

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"
)

// ErrorKind classifies provider failures.
type ErrorKind string

// The error kinds.
const (
	RateLimited    ErrorKind = "rate_limited"     // HTTP 429
	BadRequest     ErrorKind = "bad_request"      // other 4xx: the request itself is wrong
	Auth           ErrorKind = "auth"             // HTTP 401/403
	ContextTooLong ErrorKind = "context_too_long" // the prompt exceeds the model's context window
	Server         ErrorKind = "server"           // 5xx or an error event inside the stream
	Canceled       ErrorKind = "canceled"         // the caller's context was canceled
	Timeout        ErrorKind = "timeout"          // a deadline (per-call timeout or the caller's) passed
	Network        ErrorKind = "network"          // connection failure or reset, before or during the output
	Protocol       ErrorKind = "protocol"         // broken or malformed stream
)

// Error is the error every Provider returns. Use errors.As to get it, or
// IsKind / KindOf.
type Error struct {
	Kind       ErrorKind
	Status     int           // HTTP status, 0 when none
	Message    string        // upstream or local explanation; never contains credentials
	RetryAfter time.Duration // server-requested delay (429/503), 0 when none
	Err        error         // the underlying cause, if any
}

// Error formats the kind, status, message and cause.
func (e *Error) Error() string {
	s := e.format(e.Message)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// format is "llm: <kind> (HTTP <status>): <message>", leaving out what is
// not there.
func (e *Error) format(message string) string {
	var b strings.Builder
	b.WriteString("llm: ")
	b.WriteString(string(e.Kind))
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.Status)
	}
	if message != "" {
		b.WriteString(": ")
		b.WriteString(message)
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Public is what a client of the application may be told about e: the kind,
// the HTTP status and the message, without the cause (which may name the
// endpoint it failed to reach) and with network addresses redacted
// (RedactAddresses). Log Error() instead, where operators read it.
func (e *Error) Public() string { return e.format(RedactAddresses(e.Message)) }

// PublicMessage is Public of the first *Error in err's chain; any other
// error gets a generic text with its addresses redacted.
func PublicMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Public()
	}
	if err == nil {
		return ""
	}
	return RedactAddresses(err.Error())
}

// addressPattern matches URLs, IPv4/IPv6 addresses and host:port pairs.
var addressPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^\s"'<>]+` + // a URL
		`|\[[0-9a-fA-F:.]+\](?::\d+)?` + // [IPv6]:port
		`|\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b` + // IPv4[:port]
		`|\b(?:[0-9a-fA-F]{1,4}:){3,7}[0-9a-fA-F]{1,4}\b` + // IPv6
		`|(?:\b[0-9a-fA-F]{1,4})?::(?:[0-9a-fA-F]{1,4}:)*[0-9a-fA-F]{1,4}\b` + // IPv6 with ::
		`|\b[a-zA-Z][a-zA-Z0-9-]*(?:\.[a-zA-Z0-9-]+)*:\d{2,5}\b`) // host:port
})

// RedactAddresses replaces the URLs, IP addresses and host:port pairs in s
// with "<address>".
func RedactAddresses(s string) string { return addressPattern().ReplaceAllString(s, "<address>") }

// Retriable reports whether the same request may succeed later: rate limits,
// server errors, network failures and timeouts.
func (e *Error) Retriable() bool {
	switch e.Kind {
	case RateLimited, Server, Network, Timeout:
		return true
	}
	return false
}

// StatusKind classifies an HTTP error status (>= 400): 401/403 Auth, 429
// RateLimited, 408 Timeout, 5xx Server, any other BadRequest. Adapters
// refine BadRequest (to ContextTooLong) from the response body. (The
// numbers are spelled out so that this package does not import net/http.)
func StatusKind(status int) ErrorKind {
	switch {
	case status == 401 || status == 403:
		return Auth
	case status == 429:
		return RateLimited
	case status == 408:
		return Timeout
	case status >= 500:
		return Server
	}
	return BadRequest
}

// KindOf returns the kind of the first *Error in err's chain, or "".
func KindOf(err error) ErrorKind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return ""
}

// IsKind reports whether err's chain holds an *Error of the given kind.
func IsKind(err error, kind ErrorKind) bool { return KindOf(err) == kind }

// IsRetriable reports whether err's chain holds a retriable *Error.
func IsRetriable(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Retriable()
}

// ContextError converts the error of a done context into an *Error:
// Timeout for an expired deadline, Canceled otherwise. It returns nil when
// ctx is not done.
func ContextError(ctx context.Context) *Error {
	err := ctx.Err()
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{Kind: Timeout, Message: "deadline exceeded", Err: err}
	default:
		return &Error{Kind: Canceled, Message: "canceled", Err: err}
	}
}

// Sentinels of structured output; a *SchemaError unwraps to one of them.
var (
	// ErrUnparsable: the reply holds no parsable JSON object (or no call of
	// the forced tool).
	ErrUnparsable = errors.New("reply is not a JSON object")
	// ErrInvalid: the reply's JSON does not validate against the schema.
	ErrInvalid = errors.New("reply does not match the schema")
)

// SchemaError reports a structured reply that could not be parsed or does
// not validate. Raw and Problems are meant for a corrective turn that shows
// the model what was wrong.
type SchemaError struct {
	Raw      string   // the text or tool arguments the model produced
	Problems []string // one line per problem
	Cause    error    // ErrUnparsable or ErrInvalid
}

// Error lists the problems.
func (e *SchemaError) Error() string {
	return "llm: " + e.Cause.Error() + ": " + strings.Join(e.Problems, "; ")
}

// Unwrap returns ErrUnparsable or ErrInvalid.
func (e *SchemaError) Unwrap() error { return e.Cause }

// Problem is the problems alone, as a model reads them in a corrective
// turn.
func (e *SchemaError) Problem() string { return strings.Join(e.Problems, "; ") }
