package auth

import (
	"context"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"time"
)

const (
	// jwksFetchTimeout bounds one JWKS request.
	jwksFetchTimeout = 5 * time.Second
	// jwksMinRefetch is the least time between a fetch attempt and a refetch caused by an
	// unknown kid, and between a failed attempt and the next one.
	jwksMinRefetch = 10 * time.Second
	// jwksMaxBytes bounds the JWKS document.
	jwksMaxBytes = 1 << 20
)

// jwksCache holds the RSA keys of one JWKS document. It is safe for concurrent use; at most
// one fetch runs at a time.
type jwksCache struct {
	uri      string
	ttl      time.Duration
	maxStale time.Duration // how much longer than ttl a document serves while fetching fails
	client   *http.Client
	now      func() time.Time

	fetchMu sync.Mutex // held for a whole fetch, so concurrent callers share one result

	mu          sync.Mutex // guards the fields below
	set         *keySet    // nil until the first successful fetch
	lastAttempt time.Time
	lastErr     error // the outcome of the last attempt
}

// keySet is one fetched JWKS document.
type keySet struct {
	keys      []namedKey
	fetchedAt time.Time
}

type namedKey struct {
	kid string
	key *rsa.PublicKey
}

// lookup returns the keys with the given kid, or every key when kid is "".
func (s *keySet) lookup(kid string) []*rsa.PublicKey {
	var out []*rsa.PublicKey
	for _, k := range s.keys {
		if kid == "" || k.kid == kid {
			out = append(out, k.key)
		}
	}
	return out
}

// keys returns the candidate keys for kid, fetching the document when the cache is empty or
// expired, and refetching once (rate-limited) when kid is not in a fresh document.
func (c *jwksCache) keys(ctx context.Context, kid string) ([]*rsa.PublicKey, error) {
	set, err := c.current(ctx)
	if err != nil {
		return nil, err
	}
	if found := set.lookup(kid); len(found) > 0 || kid == "" {
		return found, nil
	}
	set, err = c.refresh(ctx, func(now time.Time) (bool, error) {
		// Someone else refreshed meanwhile: use their document. Otherwise respect the rate limit.
		return c.set == set && now.Sub(c.lastAttempt) >= jwksMinRefetch, nil
	})
	if err != nil {
		return nil, err
	}
	return set.lookup(kid), nil
}

// current returns a document younger than the cache time, fetching one when needed. While
// fetching fails, the last document serves for maxStale beyond its cache time, so a JWKS
// outage does not lock every user out at once.
func (c *jwksCache) current(ctx context.Context) (*keySet, error) {
	c.mu.Lock()
	set := c.set
	fresh := c.freshLocked(c.now())
	c.mu.Unlock()
	if fresh {
		return set, nil
	}
	got, err := c.refresh(ctx, func(now time.Time) (bool, error) {
		if c.freshLocked(now) {
			return false, nil
		}
		if c.lastErr != nil && now.Sub(c.lastAttempt) < jwksMinRefetch {
			return false, fmt.Errorf("not retrying yet after: %w", c.lastErr)
		}
		return true, nil
	})
	if err == nil {
		return got, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.set != nil && c.now().Before(c.set.fetchedAt.Add(c.ttl+c.maxStale)) {
		return c.set, nil // stale but within the grace time
	}
	return nil, err
}

func (c *jwksCache) freshLocked(now time.Time) bool {
	return c.set != nil && now.Before(c.set.fetchedAt.Add(c.ttl))
}

// refresh serialises fetches: with fetchMu held, decide (called with mu held) says whether to
// fetch now; otherwise the current document is returned (or decide's error). A fetch records
// its outcome; a failed one leaves the previous document in place and returns the error.
func (c *jwksCache) refresh(ctx context.Context, decide func(now time.Time) (bool, error)) (*keySet, error) {
	c.fetchMu.Lock()
	defer c.fetchMu.Unlock()
	c.mu.Lock()
	now := c.now()
	fetch, err := decide(now)
	set := c.set
	c.mu.Unlock()
	if err != nil || !fetch {
		if err == nil && set == nil {
			err = errors.New("no JWKS document")
		}
		return set, err
	}
	fetched, err := c.fetch(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lastAttempt, c.lastErr = now, err
	if err != nil {
		return nil, err
	}
	fetched.fetchedAt = now
	c.set = fetched
	return fetched, nil
}

// fetch downloads and parses the document. The request keeps ctx's values but not its
// cancellation: a client that goes away must not turn into a failed attempt for everyone.
func (c *jwksCache) fetch(ctx context.Context) (*keySet, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), jwksFetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.uri, nil)
	if err != nil {
		return nil, fmt.Errorf("fetch: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch: %w", err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch: HTTP status %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, jwksMaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("fetch: reading the body: %w", err)
	}
	if len(body) > jwksMaxBytes {
		return nil, fmt.Errorf("fetch: document larger than %d bytes", jwksMaxBytes)
	}
	return parseJWKS(body)
}

// jwk is the part of a JSON Web Key the verifier reads.
type jwk struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Use string `json:"use"`
	Alg string `json:"alg"`
	N   string `json:"n"`
	E   string `json:"e"`
}

// parseJWKS keeps the RSA signature keys usable for RS256 and skips every other key; a
// document without any is an error.
func parseJWKS(body []byte) (*keySet, error) {
	var doc struct {
		Keys []jwk `json:"keys"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("invalid JWKS document: %w", err)
	}
	set := &keySet{}
	for _, k := range doc.Keys {
		if k.Kty != "RSA" || (k.Use != "" && k.Use != "sig") || (k.Alg != "" && k.Alg != "RS256") {
			continue
		}
		if key, err := rsaKey(k.N, k.E); err == nil {
			set.keys = append(set.keys, namedKey{kid: k.Kid, key: key})
		}
	}
	if len(set.keys) == 0 {
		return nil, errors.New("JWKS document has no usable RSA signature key")
	}
	return set, nil
}

// rsaKey builds a public key from the base64url modulus and exponent of a JWK.
func rsaKey(n64, e64 string) (*rsa.PublicKey, error) {
	decode := func(s string) ([]byte, error) {
		return base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	}
	nb, err := decode(n64)
	if err != nil {
		return nil, err
	}
	eb, err := decode(e64)
	if err != nil || len(eb) == 0 || len(eb) > 4 {
		return nil, errors.New("bad exponent")
	}
	e := 0
	for _, b := range eb {
		e = e<<8 | int(b)
	}
	n := new(big.Int).SetBytes(nb)
	if e < 3 || e%2 == 0 || n.BitLen() < minRSABits {
		return nil, errors.New("unusable RSA key")
	}
	return &rsa.PublicKey{N: n, E: e}, nil
}
