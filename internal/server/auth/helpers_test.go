package auth

import (
	"crypto"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// testKeys are generated once per test binary: RSA generation is slow under -race.
var testKeys = sync.OnceValue(func() []*rsa.PrivateKey {
	keys := make([]*rsa.PrivateKey, 3)
	for i := range keys {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic(err)
		}
		keys[i] = k
	}
	return keys
})

// key returns test key i (0, 1 or 2).
func key(i int) *rsa.PrivateKey { return testKeys()[i] }

// pemOf encodes the public half of k as a PKIX "PUBLIC KEY" block.
func pemOf(t testing.TB, k *rsa.PrivateKey) string {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
}

// mustJSON marshals v (maps marshal with sorted keys).
func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// signRS256 builds a compact JWT over the given header and claims, signed with k.
func signRS256(t testing.TB, k *rsa.PrivateKey, header, claims map[string]any) string {
	t.Helper()
	input := encodeSegment(mustJSON(t, header)) + "." + encodeSegment(mustJSON(t, claims))
	digest := sha256.Sum256([]byte(input))
	sig, err := rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, digest[:])
	if err != nil {
		t.Fatal(err)
	}
	return input + "." + encodeSegment(sig)
}

// signHS256 builds a compact JWT from raw header and payload JSON with an HMAC-SHA256 of key.
func signHS256(rawHeader, rawPayload string, key []byte) string {
	input := encodeSegment([]byte(rawHeader)) + "." + encodeSegment([]byte(rawPayload))
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(input))
	return input + "." + encodeSegment(mac.Sum(nil))
}

// fakeClock is a settable clock safe for concurrent use.
type fakeClock struct{ ns atomic.Int64 }

func newClock(t time.Time) *fakeClock {
	c := &fakeClock{}
	c.ns.Store(t.UnixNano())
	return c
}

func (c *fakeClock) Now() time.Time                  { return time.Unix(0, c.ns.Load()) }
func (c *fakeClock) Advance(d time.Duration)         { c.ns.Add(int64(d)) }
func (c *fakeClock) Set(t time.Time)                 { c.ns.Store(t.UnixNano()) }
func (c *fakeClock) Unix(offset time.Duration) int64 { return c.Now().Add(offset).Unix() }

// t0 is the fixed "now" of the tests.
var t0 = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

// jwkOf is the JWK of k's public half.
func jwkOf(kid string, k *rsa.PrivateKey) map[string]any {
	return map[string]any{
		"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256",
		"n": encodeSegment(k.N.Bytes()),
		"e": encodeSegment(big.NewInt(int64(k.E)).Bytes()),
	}
}

// jwksServer serves a replaceable JWKS document (or a status) and counts requests.
type jwksServer struct {
	*httptest.Server
	mu     sync.Mutex
	keys   []map[string]any
	status int
	hits   atomic.Int32
}

func newJWKSServer(t *testing.T, keys ...map[string]any) *jwksServer {
	s := &jwksServer{keys: keys, status: http.StatusOK}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.status != http.StatusOK {
			w.WriteHeader(s.status)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": s.keys})
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *jwksServer) setKeys(keys ...map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys = keys
}

func (s *jwksServer) setStatus(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status = status
}
