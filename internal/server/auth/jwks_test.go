package auth

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// jwksVerifier builds a verifier on srv (and the PEM of key 0 when withPEM), cache 300 s.
func jwksVerifier(t *testing.T, srv *jwksServer, withPEM bool) (*Verifier, *fakeClock) {
	t.Helper()
	clock := newClock(t0)
	cfg := Config{Enabled: true, JWKSURI: srv.URL, Issuer: testIssuer, JWKSCacheSeconds: 300}
	if withPEM {
		cfg.PublicKeyPEM = pemOf(t, key(0))
	}
	v, err := NewVerifier(cfg, srv.Client(), clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	return v, clock
}

// tokenFor signs valid claims with key i, naming kid when it is not "".
func tokenFor(t *testing.T, clock *fakeClock, i int, kid string) string {
	h := header("alg", "RS256")
	if kid != "" {
		h["kid"] = kid
	}
	return signRS256(t, key(i), h, claimsWith(clock, func(c map[string]any) { c["exp"] = clock.Unix(24 * time.Hour) }))
}

// step is one Verify call of a scenario and the expected server hit count after it.
type step struct {
	advance  time.Duration
	key      int
	kid      string
	ok       bool
	wantHits int32
}

func runSteps(t *testing.T, v *Verifier, clock *fakeClock, srv *jwksServer, steps []step) {
	t.Helper()
	for i, s := range steps {
		clock.Advance(s.advance)
		_, err := v.Verify(context.Background(), tokenFor(t, clock, s.key, s.kid))
		if (err == nil) != s.ok {
			t.Fatalf("step %d: Verify() = %v, want ok=%v", i, err, s.ok)
		}
		if err != nil && !errors.Is(err, ErrUnauthorized) {
			t.Fatalf("step %d: %v does not wrap ErrUnauthorized", i, err)
		}
		if got := srv.hits.Load(); got != s.wantHits {
			t.Fatalf("step %d: JWKS fetched %d times, want %d", i, got, s.wantHits)
		}
	}
}

func TestPEMFirstThenJWKS(t *testing.T) {
	srv := newJWKSServer(t, jwkOf("k1", key(1)), jwkOf("k2", key(2)))
	v, clock := jwksVerifier(t, srv, true)
	runSteps(t, v, clock, srv, []step{
		{key: 0, kid: "k1", ok: true, wantHits: 0}, // the PEM verifies: no fetch, whatever the kid says
		{key: 1, kid: "k1", ok: true, wantHits: 1}, // the PEM fails: JWKS by kid
		{key: 2, kid: "k2", ok: true, wantHits: 1},
		{key: 2, ok: true, wantHits: 1},             // no kid: every RSA key is tried
		{key: 2, kid: "k1", ok: false, wantHits: 1}, // kid selects k1 only
	})
}

func TestPEMWorksWhileJWKSIsUnreachable(t *testing.T) {
	srv := newJWKSServer(t)
	v, clock := jwksVerifier(t, srv, true)
	srv.Close()
	if _, err := v.Verify(context.Background(), tokenFor(t, clock, 0, "")); err != nil {
		t.Fatalf("PEM token with JWKS down: %v", err)
	}
	_, err := v.Verify(context.Background(), tokenFor(t, clock, 1, "k1"))
	if !errors.Is(err, ErrUnauthorized) || !strings.Contains(err.Error(), "jwks: fetch") {
		t.Fatalf("JWKS token with JWKS down: %v", err)
	}
}

func TestJWKSCacheHonoured(t *testing.T) {
	srv := newJWKSServer(t, jwkOf("k1", key(1)))
	v, clock := jwksVerifier(t, srv, false)
	runSteps(t, v, clock, srv, []step{
		{key: 1, kid: "k1", ok: true, wantHits: 1},
		{advance: 299 * time.Second, key: 1, kid: "k1", ok: true, wantHits: 1},
		{advance: time.Second, key: 1, kid: "k1", ok: true, wantHits: 2}, // 300 s: expired, refetched
		{advance: time.Second, key: 1, ok: true, wantHits: 2},
	})
}

func TestJWKSUnknownKidRefetchesOnce(t *testing.T) {
	srv := newJWKSServer(t, jwkOf("k1", key(1)))
	v, clock := jwksVerifier(t, srv, false)
	runSteps(t, v, clock, srv, []step{{key: 1, kid: "k1", ok: true, wantHits: 1}})
	srv.setKeys(jwkOf("k1", key(1)), jwkOf("k2", key(2))) // rotation at the identity provider
	runSteps(t, v, clock, srv, []step{
		{key: 2, kid: "k2", ok: false, wantHits: 1},                           // within 10 s of the last fetch: rate-limited
		{advance: 10 * time.Second, key: 2, kid: "k2", ok: true, wantHits: 2}, // one refetch finds k2
		{key: 2, kid: "k2", ok: true, wantHits: 2},
		{advance: 10 * time.Second, key: 2, kid: "nope", ok: false, wantHits: 3}, // one refetch, still unknown
		{key: 2, kid: "nope", ok: false, wantHits: 3},                            // no second refetch
		{advance: 5 * time.Second, key: 2, kid: "nope", ok: false, wantHits: 3},
		{advance: 5 * time.Second, key: 2, kid: "nope", ok: false, wantHits: 4},
	})
}

func TestJWKSFetchFailure(t *testing.T) {
	srv := newJWKSServer(t, jwkOf("k1", key(1)))
	srv.setStatus(http.StatusInternalServerError)
	v, clock := jwksVerifier(t, srv, false)
	_, err := v.Verify(context.Background(), tokenFor(t, clock, 1, "k1"))
	if !errors.Is(err, ErrUnauthorized) || !strings.Contains(err.Error(), "HTTP status 500") {
		t.Fatalf("Verify() = %v, want ErrUnauthorized naming the status", err)
	}
	srv.setStatus(http.StatusOK)
	runSteps(t, v, clock, srv, []step{
		{key: 1, kid: "k1", ok: false, wantHits: 1},                           // backing off after the failure
		{advance: 10 * time.Second, key: 1, kid: "k1", ok: true, wantHits: 2}, // retried and recovered
	})
	// An expired cache that cannot be refreshed is not used.
	srv.setStatus(http.StatusBadGateway)
	runSteps(t, v, clock, srv, []step{{advance: 300 * time.Second, key: 1, kid: "k1", ok: false, wantHits: 3}})
}

func TestJWKSBadDocuments(t *testing.T) {
	tests := []struct {
		name, body, wantErr string
	}{
		{"not JSON", `<html>`, "invalid JWKS document"},
		{"no keys", `{"keys":[]}`, "no usable RSA"},
		{"only EC keys", `{"keys":[{"kty":"EC","kid":"e","crv":"P-256","x":"AA","y":"AA"}]}`, "no usable RSA"},
		{"encryption key", `{"keys":[{"kty":"RSA","use":"enc","n":"AQAB","e":"AQAB"}]}`, "no usable RSA"},
		{"tiny modulus", `{"keys":[{"kty":"RSA","n":"AQAB","e":"AQAB"}]}`, "no usable RSA"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := parseJWKS([]byte(tc.body)); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("parseJWKS() = %v, want %q", err, tc.wantErr)
			}
		})
	}
	set, err := parseJWKS(mustJSON(t, map[string]any{"keys": []any{
		jwkOf("k1", key(1)),
		map[string]any{"kty": "RSA", "kid": "rs512", "alg": "RS512", "n": "AQAB", "e": "AQAB"},
	}}))
	if err != nil || len(set.keys) != 1 || set.keys[0].kid != "k1" {
		t.Fatalf("parseJWKS(mixed) = %+v, %v; want only k1", set, err)
	}
}

func TestJWKSConcurrentVerifiesShareOneFetch(t *testing.T) {
	srv := newJWKSServer(t, jwkOf("k1", key(1)))
	v, clock := jwksVerifier(t, srv, false)
	token := tokenFor(t, clock, 1, "k1")
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Go(func() {
			if _, err := v.Verify(context.Background(), token); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := srv.hits.Load(); got != 1 {
		t.Errorf("JWKS fetched %d times, want 1", got)
	}
}

func TestJWKSFetchIgnoresCallerCancellation(t *testing.T) {
	srv := newJWKSServer(t, jwkOf("k1", key(1)))
	v, clock := jwksVerifier(t, srv, false)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := v.Verify(ctx, tokenFor(t, clock, 1, "k1")); err != nil {
		t.Fatalf("a cancelled request context failed the shared fetch: %v", err)
	}
}

// Issue 14: when refreshing the JWKS fails after its cache time, every
// request got 401. The keys last fetched keep serving for
// jwksMaxStaleSeconds beyond the cache time (refetches still rate-limited),
// then the failure is final.
func TestJWKSRefreshFailureKeepsCachedKeysForABoundedTime(t *testing.T) {
	srv := newJWKSServer(t, jwkOf("k1", key(1)))
	clock := newClock(t0)
	v, err := NewVerifier(Config{Enabled: true, JWKSURI: srv.URL, Issuer: testIssuer, JWKSCacheSeconds: 300,
		JWKSMaxStaleSeconds: 600}, srv.Client(), clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	runSteps(t, v, clock, srv, []step{{key: 1, kid: "k1", ok: true, wantHits: 1}})
	srv.setStatus(http.StatusServiceUnavailable) // the identity provider is down
	runSteps(t, v, clock, srv, []step{
		{advance: 300 * time.Second, key: 1, kid: "k1", ok: true, wantHits: 2},  // expired: refetch fails, cached keys serve
		{advance: time.Second, key: 1, kid: "k1", ok: true, wantHits: 2},        // within 10 s of the failure: no refetch
		{advance: 298 * time.Second, key: 1, kid: "k1", ok: true, wantHits: 3},  // still within the 600 s grace
		{advance: 2 * time.Second, key: 2, kid: "k2", ok: false, wantHits: 3},   // an unknown key is not trusted meanwhile
		{advance: 300 * time.Second, key: 1, kid: "k1", ok: false, wantHits: 4}, // 900 s after the fetch: grace over
	})
	srv.setStatus(http.StatusOK)
	runSteps(t, v, clock, srv, []step{{advance: 10 * time.Second, key: 1, kid: "k1", ok: true, wantHits: 5}})
}
