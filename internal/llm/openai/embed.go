package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/wire"
)

// EmbedConfig configures an Embedder. BaseURL, APIKey, Headers,
// HTTPClient, retries, Sleep, Now and Logger mean what they mean in Config.
type EmbedConfig struct {
	BaseURL        string
	APIKey         string
	Headers        map[string]string
	HTTPClient     *http.Client
	Model          string
	MaxRetries     int           // 0 = 2; negative = none
	RetryBaseDelay time.Duration // default 500ms
	// RequestTimeout bounds one Embed call, retries included (0 = none).
	RequestTimeout time.Duration
	Logger         *slog.Logger
	Sleep          func(ctx context.Context, d time.Duration) error
	Now            func() time.Time
}

// Embedder turns texts into vectors through an OpenAI-compatible
// /v1/embeddings endpoint (OpenAI, Ollama's /v1, llama.cpp server, vLLM,
// LM Studio). It is safe for concurrent use.
//
// One Embed call is one request with every text as the input array; the
// vectors come back in the order of the texts (by each datum's index). A
// rate limit, a server error or a network failure is retried with backoff
// (the server's Retry-After when it sends one); every failure is an
// *llm.Error. Credentials are never logged.
type Embedder struct {
	cfg    EmbedConfig
	tokens atomic.Int64
}

// NewEmbedder returns an Embedder for cfg (Model is required).
func NewEmbedder(cfg EmbedConfig) *Embedder {
	c := withDefaults(Config{BaseURL: cfg.BaseURL, HTTPClient: cfg.HTTPClient, MaxRetries: cfg.MaxRetries,
		RetryBaseDelay: cfg.RetryBaseDelay, Logger: cfg.Logger, Sleep: cfg.Sleep, Now: cfg.Now})
	cfg.BaseURL, cfg.HTTPClient, cfg.MaxRetries, cfg.RetryBaseDelay = c.BaseURL, c.HTTPClient, c.MaxRetries, c.RetryBaseDelay
	cfg.Logger, cfg.Sleep, cfg.Now = c.Logger, c.Sleep, c.Now
	return &Embedder{cfg: cfg}
}

// Model returns the model the vectors come from.
func (e *Embedder) Model() string { return e.cfg.Model }

// Tokens returns the input tokens the server reported so far.
func (e *Embedder) Tokens() int { return int(e.tokens.Load()) }

type embedRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
}

type embedResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
	Usage struct {
		PromptTokens int `json:"prompt_tokens"`
	} `json:"usage"`
}

// Embed returns one vector per text, in order.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	ctx, cancel := wire.WithTimeout(ctx, e.cfg.RequestTimeout)
	defer cancel()
	body, err := json.Marshal(embedRequest{Model: e.cfg.Model, Input: texts, EncodingFormat: "float"})
	if err != nil {
		return nil, &llm.Error{Kind: llm.BadRequest, Message: "cannot encode the request", Err: err}
	}
	for retries := 0; ; retries++ {
		out, lerr := e.attempt(ctx, body, len(texts))
		if lerr == nil {
			return out, nil
		}
		if !lerr.Retriable() || retries >= e.cfg.MaxRetries || ctx.Err() != nil {
			if ce := llm.ContextError(ctx); ce != nil {
				return nil, ce
			}
			return nil, lerr
		}
		d := wire.Backoff(e.cfg.RetryBaseDelay, retries, lerr.RetryAfter)
		e.cfg.Logger.Warn("embeddings: retrying", "model", e.cfg.Model, "kind", lerr.Kind, "retry", retries+1, "delay", d)
		if err := e.cfg.Sleep(ctx, d); err != nil {
			return nil, llm.ContextError(ctx)
		}
	}
}

// attempt makes one request.
func (e *Embedder) attempt(ctx context.Context, body []byte, n int) ([][]float32, *llm.Error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, wire.VersionedBase(e.cfg.BaseURL)+"/embeddings", bytes.NewReader(body))
	if err != nil {
		return nil, &llm.Error{Kind: llm.BadRequest, Message: "cannot build the request", Err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	if e.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+e.cfg.APIKey)
	}
	for k, v := range e.cfg.Headers {
		req.Header.Set(k, v)
	}
	res, err := wire.LogExchange(e.cfg.Logger, "embeddings: exchange", req, e.cfg.HTTPClient.Do)
	if err != nil {
		if ce := llm.ContextError(ctx); ce != nil {
			return nil, ce
		}
		return nil, &llm.Error{Kind: llm.Network, Message: "the embeddings endpoint cannot be reached", Err: err}
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, &llm.Error{Kind: llm.Network, Message: "the response was cut", Err: err}
	}
	if res.StatusCode >= http.StatusBadRequest {
		le := &llm.Error{Kind: llm.StatusKind(res.StatusCode), Status: res.StatusCode, Message: errorMessage(data),
			Err: &wire.StatusError{Status: res.StatusCode, Header: res.Header, Body: data}}
		if le.Kind == llm.RateLimited || le.Kind == llm.Server {
			le.RetryAfter = wire.ParseRetryAfter(res.Header, e.cfg.Now())
		}
		return nil, le
	}
	var r embedResponse
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, &llm.Error{Kind: llm.Protocol, Message: "the response is not embeddings JSON", Err: err}
	}
	if len(r.Data) != n {
		return nil, &llm.Error{Kind: llm.Protocol, Message: fmt.Sprintf("%d embeddings for %d texts", len(r.Data), n)}
	}
	out := make([][]float32, n)
	for _, d := range r.Data {
		if d.Index < 0 || d.Index >= n || out[d.Index] != nil || len(d.Embedding) == 0 {
			return nil, &llm.Error{Kind: llm.Protocol, Message: fmt.Sprintf("embedding index %d is missing, repeated or out of range", d.Index)}
		}
		out[d.Index] = d.Embedding
	}
	e.tokens.Add(int64(r.Usage.PromptTokens))
	return out, nil
}
