package models

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/wire"
)

// Check probes a provider (or the provider of a model, if key names a model
// and no provider): GET <baseURL>/models (<baseURL>/v1/models when the base
// URL names no version) with its key and headers, bounded by
// LoadOptions.CheckTimeout. It returns nil for a 2xx answer, else an
// *llm.Error: Auth for 401/403 or a missing key, Network when the server is
// unreachable, Timeout when it does not answer in time, Server for 5xx and
// BadRequest for other statuses. No error text contains the key.
func (r *Registry) Check(ctx context.Context, key string) error {
	p, ok := r.providers[key]
	if !ok {
		m, err := r.Model(key)
		if err != nil {
			return fmt.Errorf("%w %q (%s)", ErrUnknownProvider, key, r.knownProviders())
		}
		p = r.providers[m.Provider]
	}
	if problem := r.problems[p.key]; problem != "" {
		return &llm.Error{Kind: llm.BadRequest, Message: "misconfigured: providers." + p.key + "." + problem}
	}
	if p.apiKey == "" && p.keyEnv != "" {
		return &llm.Error{Kind: llm.Auth, Message: "no API key: " + p.keyStatus()}
	}
	ctx, cancel := context.WithTimeout(ctx, r.checkTimeout)
	defer cancel()
	err := r.probe(ctx, p)
	if err != nil {
		err.Message = redactText(err.Message, p.apiKey)
		if err.Err != nil {
			err.Err = errors.New(redactText(err.Err.Error(), p.apiKey))
		}
		return err
	}
	return nil
}

// modelsURL is the list-models endpoint under a base URL, following the
// adapter's rule for chat/completions.
func modelsURL(base string) string { return wire.VersionedBase(base) + "/models" }

// probe sends the request and classifies the outcome.
func (r *Registry) probe(ctx context.Context, p *provider) *llm.Error {
	url := modelsURL(p.cfg.BaseURL)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return &llm.Error{Kind: llm.BadRequest, Message: "bad base URL", Err: err}
	}
	for k, v := range p.cfg.Headers {
		req.Header.Set(k, v)
	}
	switch {
	case p.apiKey == "":
	case p.cfg.Protocol == ProtocolAnthropic:
		req.Header.Set("x-api-key", p.apiKey)
		req.Header.Set("anthropic-version", "2023-06-01")
	default:
		req.Header.Set("Authorization", "Bearer "+p.apiKey)
	}
	res, err := r.httpClient.Do(req)
	if err != nil {
		return transportError(ctx, url, err)
	}
	defer res.Body.Close()
	r.log.Debug("models: check", "provider", p.key, "url", url, "status", res.StatusCode)
	if res.StatusCode >= 200 && res.StatusCode < 300 {
		return nil // the body (the model list) is not needed
	}
	body, _ := io.ReadAll(io.LimitReader(res.Body, 4<<10))
	e := &llm.Error{Status: res.StatusCode, Message: fmt.Sprintf("GET %s: %s", url, statusText(res.StatusCode, body))}
	switch s := res.StatusCode; {
	case s == http.StatusUnauthorized || s == http.StatusForbidden:
		e.Kind = llm.Auth
	case s == http.StatusTooManyRequests:
		e.Kind = llm.RateLimited
	case s >= 500:
		e.Kind = llm.Server
	default:
		e.Kind = llm.BadRequest
	}
	return e
}

// transportError classifies a failed request.
func transportError(ctx context.Context, url string, err error) *llm.Error {
	if ce := llm.ContextError(ctx); ce != nil {
		ce.Message = "no answer from " + url + " in time"
		if ce.Kind == llm.Canceled {
			ce.Message = "canceled"
		}
		return ce
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &llm.Error{Kind: llm.Timeout, Message: "no answer from " + url + " in time", Err: err}
	}
	return &llm.Error{Kind: llm.Network, Message: "cannot reach " + url + ": " + rootCause(err)}
}

// rootCause returns the innermost message of err (e.g. "connection
// refused").
func rootCause(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}

// statusText is "HTTP <status>" plus the start of the body.
func statusText(status int, body []byte) string {
	s := fmt.Sprintf("HTTP %d", status)
	text := strings.Join(strings.Fields(string(body)), " ")
	if r := []rune(text); len(r) > 200 {
		text = string(r[:200]) + "…"
	}
	if text != "" {
		s += ": " + text
	}
	return s
}
