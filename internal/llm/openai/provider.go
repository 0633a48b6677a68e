// Package openai is the llm.Provider for OpenAI-compatible Chat Completions
// endpoints (OpenAI, Ollama's /v1, vLLM, llama.cpp server, LM Studio,
// OpenRouter, DeepSeek, Qwen-compatible gateways).
//
// Requests are encoded and sent with github.com/openai/openai-go/v3
// (Chat.Completions.NewStreaming: typed params, auth, base URL, headers,
// middleware); tool schemas and non-standard fields are set with
// option.WithJSONSet so that they reach the wire byte for byte. The response
// body is read by this package: a small SSE reader and a gjson-based chunk
// converter (the SDK's reflection decoder costs about 3× the raw read of a
// stream, and its SSE decoder fails a whole stream on a blank data line).
//
// Every upstream chunk becomes events before the next one is read: one
// content delta in, one text_delta out; reasoning comes from
// delta.reasoning_content, or delta.reasoning where servers use that name.
// Tool calls are accumulated tolerantly (keyed by index, then id; missing ids
// become call_native_{k}, k counting from 1 per Stream call). Retries happen
// only before the first chunk. Servers that send no usage produce no usage
// event. Credentials are never logged.
package openai

import (
	"context"
	"iter"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/wire"
)

// DefaultBaseURL is used when Config.BaseURL is empty.
const DefaultBaseURL = "https://api.openai.com/v1"

// Reasoning request styles for Config.ReasoningStyle.
const (
	ReasoningObject = "reasoning"        // reasoning:{effort} (OpenRouter style; the default)
	ReasoningEffort = "reasoning_effort" // reasoning_effort:<effort> (OpenAI style)
)

// Config configures a Provider. The zero value talks to api.openai.com
// without a key.
type Config struct {
	// BaseURL of the server. If it ends with /v1 (or /v<digits>), chat
	// completions are posted to BaseURL/chat/completions, else to
	// BaseURL/v1/chat/completions.
	BaseURL string
	// ChatPath, when set, replaces the path of the endpoint: requests go to
	// the origin of BaseURL + ChatPath (for NEWAPI-style gateways).
	ChatPath string
	// APIKey is sent as "Authorization: Bearer <key>"; empty sends none.
	APIKey string
	// Headers are added to every request.
	Headers map[string]string
	// HTTPClient performs the requests; nil uses a client whose transport
	// waits at most 10 minutes for response headers.
	HTTPClient *http.Client
	// MaxRetries is the number of retries before the first chunk (0 = the
	// default 2; negative = none).
	MaxRetries int
	// RetryBaseDelay is the first backoff step (default 500ms); each retry
	// doubles it, with jitter between half and the full step.
	RetryBaseDelay time.Duration
	// RequestTimeout bounds one Stream call, retries and streaming included
	// (0 = none). Exceeding it ends the stream with an llm.Timeout error.
	RequestTimeout time.Duration
	// DisableStreamOptions stops sending stream_options:{include_usage:true}.
	// A server that rejects the field (HTTP 400 naming it) is retried once
	// without it and remembered as such by this Provider.
	DisableStreamOptions bool
	// ThinkingParam, when set (e.g. "enable_thinking"), is sent as a boolean
	// field whenever Request.Reasoning is non-nil: false for effort "none",
	// else true. Dots nest (sjson paths): "chat_template_kwargs.enable_thinking"
	// is what vLLM serving Qwen3 expects.
	ThinkingParam string
	// ReasoningStyle says how Request.Reasoning is sent: ReasoningObject
	// (default) or ReasoningEffort.
	ReasoningStyle string
	// JSONSchema declares that the endpoint enforces response_format
	// json_schema (see llm.StructuredProvider).
	JSONSchema bool
	// Pricing by model id fills Usage.Cost; models not listed cost 0.
	Pricing map[string]llm.Pricing
	// Logger receives debug and warning records; nil discards them.
	Logger *slog.Logger
	// Sleep waits between retries (tests inject a fake); nil uses a timer
	// that stops when ctx is done.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock for Retry-After dates; nil uses time.Now.
	Now func() time.Time
}

// Provider is an llm.Provider over one OpenAI-compatible endpoint. It is safe
// for concurrent use.
type Provider struct {
	cfg  Config
	chat openai.ChatCompletionService
	// noStreamOptions is set once the server has rejected stream_options.
	noStreamOptions atomic.Bool
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
		option.WithAPIKey(cfg.APIKey),
		option.WithHTTPClient(cfg.HTTPClient),
		option.WithMaxRetries(0), // retries are ours: only before the first chunk
		option.WithHeader("Accept", "text/event-stream"),
	}
	var mws []option.Middleware
	if cfg.ChatPath != "" {
		mws = append(mws, rewritePath(cfg.ChatPath))
	}
	opts = append(opts, option.WithMiddleware(append(mws, p.logExchange, captureStatus)...))
	for k, v := range cfg.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	// The service is built directly, not through openai.NewClient, so that
	// ambient OPENAI_* environment variables never leak into this endpoint.
	p.chat = openai.NewChatCompletionService(opts...)
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
	if cfg.Sleep == nil {
		cfg.Sleep = llm.Sleep
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return cfg
}

// endpointBase returns the URL under which "chat/completions" is resolved.
func endpointBase(base string) string { return wire.VersionedBase(base) + "/" }

// SupportsJSONSchema reports Config.JSONSchema for every model.
func (p *Provider) SupportsJSONSchema(string) bool { return p.cfg.JSONSchema }

// Stream sends req and streams the reply. See the package doc for the event
// and error rules.
func (p *Provider) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		ctx, cancel := wire.WithTimeout(ctx, p.cfg.RequestTimeout)
		defer cancel()
		u, err := p.open(ctx, req)
		if err != nil {
			yield(llm.Event{}, err)
			return
		}
		defer u.s.Close()
		defer u.sse.release()
		t := newTurn(p, req.Model, yield)
		t.run(ctx, u)
		if t.ended {
			u.sse.drain(cancel)
		}
	}
}
