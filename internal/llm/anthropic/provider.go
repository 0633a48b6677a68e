// Package anthropic is the llm.Provider for the Anthropic Messages API,
// built on the streaming client of github.com/anthropics/anthropic-sdk-go.
//
// Every upstream SSE delta becomes at most one event, yielded before the next
// one is read: text_delta → text_delta, thinking_delta → reasoning_delta,
// input_json_delta → tool_call_delta (the fragment byte for byte). A tool_use
// block yields tool_call_start when it opens and tool_call_end, carrying the
// complete input JSON, when it closes. Each message_delta yields a usage
// event (cumulative); message_stop yields the finish event. Empty deltas are
// dropped; signature, citation and redacted-thinking data are not surfaced.
//
// The adapter does its own retries (the SDK's are off), only while no event
// has been yielded to the caller: HTTP 429/5xx/529, network failures and
// in-stream error events (overloaded_error) that arrive before any output.
// Retry-After is honoured, capped at one minute.
//
// Anthropic has no JSON-Schema response mode in this adapter: a request with
// ResponseFormat json_schema is sent as one forced tool named after the
// format, and the reply stays a tool call. SupportsJSONSchema therefore
// reports false, so structured output takes its forced-tool path
// (llm.ViaTool) with this provider. Credentials are never logged.
package anthropic

import (
	"context"
	"iter"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/wire"
)

// DefaultBaseURL is used when Config.BaseURL is empty.
const DefaultBaseURL = "https://api.anthropic.com"

// DefaultMaxTokens is the max_tokens sent when neither the request nor
// Config.MaxTokensDefault sets one (Anthropic requires the field).
const DefaultMaxTokens = 4096

// Config configures a Provider. The zero value talks to api.anthropic.com
// without a key.
type Config struct {
	// BaseURL is the origin (and optional path prefix) of the API; requests
	// go to BaseURL/v1/messages. A trailing "/v1" is tolerated.
	BaseURL string
	// APIKey is sent as "x-api-key: <key>"; empty sends none. Gateways that
	// want "Authorization: Bearer" can set it through Headers.
	APIKey string
	// Headers are added to every request (they may override anthropic-version).
	Headers map[string]string
	// HTTPClient performs the requests; nil uses a new http.Client.
	HTTPClient *http.Client
	// MaxRetries is the number of retries before the first event (0 = the
	// default 2; negative = none).
	MaxRetries int
	// RetryBaseDelay is the first backoff step (default 500ms); each retry
	// doubles it, with jitter between half and the full step.
	RetryBaseDelay time.Duration
	// RequestTimeout bounds one Stream call, retries and streaming included
	// (0 = none). Exceeding it ends the stream with an llm.Timeout error.
	RequestTimeout time.Duration
	// Logger receives debug and warning records; nil discards them.
	Logger *slog.Logger
	// MaxTokensDefault is max_tokens when Request.MaxOutputTokens is 0
	// (default DefaultMaxTokens). With extended thinking the thinking budget
	// is added on top.
	MaxTokensDefault int
	// Pricing by model id fills Usage.Cost; models not listed cost 0.
	Pricing map[string]llm.Pricing
	// Sleep waits between retries (tests inject a fake); nil uses a timer
	// that stops when ctx is done.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock for Retry-After dates; nil uses time.Now.
	Now func() time.Time
}

// Provider is an llm.Provider over the Anthropic Messages API. It is safe for
// concurrent use.
type Provider struct {
	cfg      Config
	messages anthropic.MessageService
}

var (
	_ llm.Provider           = (*Provider)(nil)
	_ llm.StructuredProvider = (*Provider)(nil)
)

// New returns a Provider for cfg.
func New(cfg Config) *Provider {
	cfg = withDefaults(cfg)
	p := &Provider{cfg: cfg}
	opts := []option.RequestOption{
		option.WithBaseURL(endpointBase(cfg.BaseURL)),
		option.WithHTTPClient(cfg.HTTPClient),
		option.WithMaxRetries(0), // retries are ours: only before the first event
		option.WithMiddleware(p.logExchange, captureStatus),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	for k, v := range cfg.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	// The service is built directly, not through anthropic.NewClient, so that
	// ambient ANTHROPIC_* variables and profile files never leak in.
	p.messages = anthropic.NewMessageService(opts...)
	return p
}

func withDefaults(cfg Config) Config {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = wire.NewHTTPClient()
	}
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = 2
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	}
	if cfg.RetryBaseDelay <= 0 {
		cfg.RetryBaseDelay = 500 * time.Millisecond
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.MaxTokensDefault <= 0 {
		cfg.MaxTokensDefault = DefaultMaxTokens
	}
	if cfg.Sleep == nil {
		cfg.Sleep = llm.Sleep
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return cfg
}

// endpointBase returns the URL under which the SDK resolves "v1/messages".
func endpointBase(base string) string {
	base = strings.TrimRight(base, "/")
	base = strings.TrimSuffix(base, "/v1")
	return base + "/"
}

// SupportsJSONSchema reports false: JSON Schema output is emulated with a
// forced tool call, so callers ask for structured output with llm.ViaTool.
func (p *Provider) SupportsJSONSchema(string) bool { return false }

// Stream sends req and streams the reply. See the package doc for the event
// and error rules.
func (p *Provider) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		ctx, cancel := wire.WithTimeout(ctx, p.cfg.RequestTimeout)
		defer cancel()
		if req == nil {
			yield(llm.Event{}, &llm.Error{Kind: llm.BadRequest, Message: "nil request"})
			return
		}
		params, opts, err := p.build(req)
		if err != nil {
			yield(llm.Event{}, &llm.Error{Kind: llm.BadRequest, Message: "cannot encode the request", Err: err})
			return
		}
		for retries := 0; ; retries++ {
			t := newTurn(p, req.Model, yield)
			e := t.run(ctx, p.messages.NewStreaming(ctx, params, opts...))
			if e == nil {
				return
			}
			if !t.emitted && e.Retriable() && retries < p.cfg.MaxRetries && ctx.Err() == nil {
				if e = p.backoff(ctx, req.Model, e, retries); e == nil {
					continue
				}
			}
			yield(llm.Event{}, e)
			return
		}
	}
}

// backoff logs and waits before retry number retries+1; it returns the error
// to yield instead when the wait is interrupted.
func (p *Provider) backoff(ctx context.Context, model string, e *llm.Error, retries int) *llm.Error {
	delay := p.retryDelay(e, retries)
	p.cfg.Logger.Debug("llm/anthropic: retrying", "model", model, "attempt", retries+1,
		"delay", delay, "error", e.Error())
	if err := p.cfg.Sleep(ctx, delay); err != nil {
		if ce := llm.ContextError(ctx); ce != nil {
			return ce
		}
		return &llm.Error{Kind: llm.Canceled, Message: "retry wait interrupted", Err: err}
	}
	return nil
}
