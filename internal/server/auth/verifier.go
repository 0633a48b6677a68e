package auth

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// defaultHTTPTimeout bounds a JWKS request when NewVerifier gets no client.
const defaultHTTPTimeout = 10 * time.Second

// maxExpSeconds bounds exp (year ~33658) so that it always converts to a time safely.
const maxExpSeconds = 1e12

// Claims are the checked claims of a verified API JWT.
type Claims struct {
	Subject string    // sub, never empty
	Issuer  string    // iss as sent ("" when absent and no issuer is configured)
	Expiry  time.Time // exp
	Scopes  []string  // scope (space-separated) or scp (a string or an array of strings)
	Admin   bool      // Scopes hold the configured admin scope
}

// Verifier checks API JWTs (§ 8.1). It is safe for concurrent use.
type Verifier struct {
	pem        *rsa.PublicKey // nil without auth.publicKeyPem
	jwks       *jwksCache     // nil without auth.jwksUri
	issuer     string
	adminScope string
	now        func() time.Time
}

// NewVerifier validates cfg (which must have auth enabled) and builds its verifier. client
// fetches the JWKS (nil: a client with a 10 s timeout); clock is the time source for exp and
// the JWKS cache (nil: time.Now).
func NewVerifier(cfg Config, client *http.Client, clock func() time.Time) (*Verifier, error) {
	if !cfg.Enabled {
		return nil, &ConfigError{"auth.enabled", "auth is disabled, so there is nothing to verify"}
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if clock == nil {
		clock = time.Now
	}
	if client == nil {
		client = &http.Client{Timeout: defaultHTTPTimeout}
	}
	v := &Verifier{issuer: cfg.Issuer, adminScope: cfg.AdminScope, now: clock}
	if cfg.PublicKeyPEM != "" {
		key, err := ParsePublicKeyPEM(cfg.PublicKeyPEM)
		if err != nil {
			return nil, &ConfigError{"auth.publicKeyPem", err.Error()}
		}
		v.pem = key
	}
	if cfg.JWKSURI != "" {
		ttl := time.Duration(cfg.JWKSCacheSeconds) * time.Second
		v.jwks = &jwksCache{uri: cfg.JWKSURI, ttl: ttl, maxStale: time.Duration(cfg.JWKSMaxStaleSeconds) * time.Second,
			client: client, now: clock}
	}
	return v, nil
}

// unauthorized wraps ErrUnauthorized with a reason for logs.
func unauthorized(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrUnauthorized}, args...)...)
}

// Verify checks token and returns its claims. Every failure wraps ErrUnauthorized. ctx bounds
// nothing but is passed to the JWKS fetch for its values; the fetch has its own timeout.
func (v *Verifier) Verify(ctx context.Context, token string) (Claims, error) {
	jwt, err := parseCompact(token)
	if err != nil {
		return Claims{}, unauthorized("%v", err)
	}
	kid, err := checkRS256Header(jwt.header)
	if err != nil {
		return Claims{}, err
	}
	if err := v.checkSignature(ctx, kid, jwt); err != nil {
		return Claims{}, err
	}
	return v.checkClaims(jwt.payload)
}

// checkRS256Header accepts alg RS256 only and returns the kid ("" when absent). A crit member
// is refused: no extension is understood (RFC 7515 § 4.1.11).
func checkRS256Header(header []byte) (kid string, err error) {
	m, err := jsonMembers(header)
	if err != nil {
		return "", unauthorized("header: %v", err)
	}
	alg, _, ok := stringMember(m, "alg")
	if !ok || alg != "RS256" {
		return "", unauthorized("alg %q is not RS256", clip(alg))
	}
	if _, found := m["crit"]; found {
		return "", unauthorized("crit header is not supported")
	}
	kid, present, ok := stringMember(m, "kid")
	if present && !ok {
		return "", unauthorized("kid is not a string")
	}
	return kid, nil
}

// checkSignature verifies RSASSA-PKCS1-v1_5 SHA-256 with the PEM key, then the JWKS keys.
func (v *Verifier) checkSignature(ctx context.Context, kid string, jwt compactJWT) error {
	digest := sha256.Sum256(jwt.signingInput)
	if v.pem != nil && rsa.VerifyPKCS1v15(v.pem, crypto.SHA256, digest[:], jwt.signature) == nil {
		return nil
	}
	if v.jwks == nil {
		return unauthorized("signature does not verify with the configured key")
	}
	keys, err := v.jwks.keys(ctx, kid)
	if err != nil {
		return unauthorized("jwks: %w", err)
	}
	if len(keys) == 0 {
		return unauthorized("no JWKS key for kid %q", clip(kid))
	}
	for _, key := range keys {
		if rsa.VerifyPKCS1v15(key, crypto.SHA256, digest[:], jwt.signature) == nil {
			return nil
		}
	}
	return unauthorized("signature does not verify with any key")
}

// checkClaims requires sub, an exp after now (no leeway) and the configured iss.
func (v *Verifier) checkClaims(payload []byte) (Claims, error) {
	m, err := jsonMembers(payload)
	if err != nil {
		return Claims{}, unauthorized("payload: %v", err)
	}
	sub, _, ok := stringMember(m, "sub")
	if !ok || strings.TrimSpace(sub) == "" {
		return Claims{}, unauthorized("sub missing or not a non-empty string")
	}
	raw, found := m["exp"]
	if !found {
		return Claims{}, unauthorized("exp missing")
	}
	exp, err := numericDate(raw)
	if err != nil {
		return Claims{}, unauthorized("exp: %v", err)
	}
	if !v.now().Before(exp) {
		return Claims{}, unauthorized("token expired at %s", exp.UTC().Format(time.RFC3339))
	}
	iss, present, ok := stringMember(m, "iss")
	if present && !ok {
		return Claims{}, unauthorized("iss is not a string")
	}
	if v.issuer != "" && iss != v.issuer {
		return Claims{}, unauthorized("iss %q is not the configured issuer", clip(iss))
	}
	scopes := scopeClaim(m)
	return Claims{Subject: sub, Issuer: iss, Expiry: exp, Scopes: scopes,
		Admin: v.adminScope != "" && slices.Contains(scopes, v.adminScope)}, nil
}

// scopeClaim reads the token's scopes: scope, a space-separated string (RFC 8693), else scp,
// a string or an array of strings; anything else is no scope.
func scopeClaim(m map[string]json.RawMessage) []string {
	if s, _, ok := stringMember(m, "scope"); ok {
		return strings.Fields(s)
	}
	if s, _, ok := stringMember(m, "scp"); ok {
		return strings.Fields(s)
	}
	var list []string
	if raw, ok := m["scp"]; ok && json.Unmarshal(raw, &list) == nil {
		return list
	}
	return nil
}

// numericDate parses a JSON number of seconds since the epoch (fractions allowed, strings not).
func numericDate(raw json.RawMessage) (time.Time, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return time.Time{}, errors.New("not a JSON number")
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return time.Time{}, errors.New("not a JSON number")
	}
	if math.Abs(f) > maxExpSeconds {
		return time.Time{}, errors.New("out of range")
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)), nil
}
