package openai

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/aitexteditor/aite/internal/llm/wire"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/aitexteditor/aite/internal/llm"
)

// chunkStream is the SDK's typed SSE stream. Only its request side is used:
// it owns the HTTP response, whose body an sseReader reads (see sse.go).
type chunkStream = ssestream.Stream[openai.ChatCompletionChunk]

// upstream is an open stream with its first payload read.
type upstream struct {
	s     *chunkStream
	sse   *sseReader
	first []byte // valid until sse.next is called
}

// errEmptyStream: the response ended before its first chunk.
var errEmptyStream = errors.New("the stream ended without any chunk")

// open sends req and returns the stream with its first chunk read. Failures
// before that chunk are retried (429, 5xx, network, in-stream errors) with
// backoff; a 400 naming stream_options is retried once without them.
func (p *Provider) open(ctx context.Context, req *llm.Request) (*upstream, error) {
	if req == nil {
		return nil, &llm.Error{Kind: llm.BadRequest, Message: "nil request"}
	}
	b, err := p.build(req)
	if err != nil {
		return nil, &llm.Error{Kind: llm.BadRequest, Message: "cannot encode the request", Err: err}
	}
	for retries := 0; ; {
		withSO := !p.cfg.DisableStreamOptions && !p.noStreamOptions.Load()
		u, cause := p.attempt(ctx, b, withSO)
		if cause == nil {
			return u, nil
		}
		if withSO && rejectsStreamOptions(cause) {
			p.noStreamOptions.Store(true)
			p.cfg.Logger.Warn("llm/openai: server rejects stream_options; retrying without them", "model", req.Model)
			continue
		}
		e := p.classify(ctx, cause, false)
		if !e.Retriable() || retries >= p.cfg.MaxRetries || ctx.Err() != nil {
			return nil, e
		}
		retries++
		if err := p.backoff(ctx, e, retries, req.Model); err != nil {
			return nil, err
		}
	}
}

// attempt sends the request once and reads the first payload.
func (p *Provider) attempt(ctx context.Context, b built, withSO bool) (*upstream, error) {
	params, opts := b.with(withSO)
	var res *http.Response
	opts = slices.Concat(opts, []option.RequestOption{option.WithResponseInto(&res)})
	return start(p.chat.NewStreaming(ctx, params, opts...), res)
}

// backoff waits before retry number n (from 1) after e.
func (p *Provider) backoff(ctx context.Context, e *llm.Error, n int, model string) error {
	delay := p.retryDelay(e, n-1)
	p.cfg.Logger.Debug("llm/openai: retrying", "model", model, "attempt", n, "delay", delay, "error", e.Error())
	if err := p.cfg.Sleep(ctx, delay); err != nil {
		if ce := llm.ContextError(ctx); ce != nil {
			return ce
		}
		return &llm.Error{Kind: llm.Canceled, Message: "retry wait interrupted", Err: err}
	}
	return nil
}

// start checks the SDK's result and reads the first payload.
func start(s *chunkStream, res *http.Response) (*upstream, error) {
	if err := s.Err(); err != nil {
		_ = s.Close()
		return nil, err
	}
	r := newSSEReader(res.Body)
	first, err := r.next()
	if err == io.EOF {
		err = errEmptyStream
	}
	if err == nil {
		err = chunkError(first)
	}
	if err != nil {
		r.release()
		_ = s.Close()
		return nil, err
	}
	return &upstream{s: s, sse: r, first: first}, nil
}

// rejectsStreamOptions reports an HTTP 400/422 whose body names stream_options.
func rejectsStreamOptions(err error) bool {
	var se *statusError
	if !errors.As(err, &se) || (se.Status != http.StatusBadRequest && se.Status != http.StatusUnprocessableEntity) {
		return false
	}
	return strings.Contains(strings.ToLower(string(se.Body)), "stream_options")
}

// retryDelay is the server's Retry-After when given, else a jittered
// exponential backoff (wire.Backoff).
func (p *Provider) retryDelay(e *llm.Error, retries int) time.Duration {
	return wire.Backoff(p.cfg.RetryBaseDelay, retries, e.RetryAfter)
}

// parseRetryAfter reads retry-after-ms or Retry-After (wire.ParseRetryAfter).
var parseRetryAfter = wire.ParseRetryAfter
