package auth

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

const testIssuer = "https://idp.example"

// claimsWith returns valid claims (sub, iss, exp in an hour) changed by edit.
func claimsWith(clock *fakeClock, edit func(map[string]any)) map[string]any {
	c := map[string]any{"sub": "alice", "iss": testIssuer, "exp": clock.Unix(time.Hour)}
	if edit != nil {
		edit(c)
	}
	return c
}

var rs256 = map[string]any{"alg": "RS256", "typ": "JWT"}

func mustDecode(t *testing.T, seg string) []byte {
	t.Helper()
	b, err := decodeSegment(seg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func header(kv ...any) map[string]any {
	h := map[string]any{}
	for i := 0; i < len(kv); i += 2 {
		h[kv[i].(string)] = kv[i+1]
	}
	return h
}

// newTestVerifier has the PEM of key 0 and a JWKS serving key 1 as kid "k1".
func newTestVerifier(t *testing.T) (*Verifier, *fakeClock, *jwksServer) {
	t.Helper()
	srv := newJWKSServer(t, jwkOf("k1", key(1)))
	clock := newClock(t0)
	v, err := NewVerifier(Config{Enabled: true, PublicKeyPEM: pemOf(t, key(0)), JWKSURI: srv.URL,
		Issuer: testIssuer, JWKSCacheSeconds: 300}, srv.Client(), clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	return v, clock, srv
}

func TestVerify(t *testing.T) {
	v, clock, _ := newTestVerifier(t)
	pemText := pemOf(t, key(0))
	valid := signRS256(t, key(0), rs256, claimsWith(clock, nil))
	parts := strings.Split(valid, ".")
	otherPayload := encodeSegment(mustJSON(t, claimsWith(clock, func(c map[string]any) { c["sub"] = "mallory" })))
	unsigned := parts[0] + "." + parts[1]
	noneHeader := encodeSegment([]byte(`{"alg":"none","typ":"JWT"}`))

	tests := []struct {
		name, token string
		wantErr     string // substring of the reason; "" = valid
	}{
		{"valid PEM token", valid, ""},
		{"valid JWKS token with kid", signRS256(t, key(1), header("alg", "RS256", "kid", "k1"), claimsWith(clock, nil)), ""},
		{"valid JWKS token without kid", signRS256(t, key(1), rs256, claimsWith(clock, nil)), ""},
		{"fractional exp", signRS256(t, key(0), rs256, claimsWith(clock, func(c map[string]any) { c["exp"] = float64(clock.Unix(time.Minute)) + 0.5 })), ""},
		{"alg none with empty signature", noneHeader + "." + parts[1] + ".", "signature: empty segment"},
		{"alg none with a signature", noneHeader + "." + parts[1] + "." + parts[2], `alg "none"`},
		{"HS256 keyed with the PEM text", signHS256(`{"alg":"HS256","typ":"JWT"}`, string(mustJSON(t, claimsWith(clock, nil))), []byte(pemText)), `alg "HS256"`},
		{"ES256 header over an RSA signature", signRS256(t, key(0), header("alg", "ES256"), claimsWith(clock, nil)), `alg "ES256"`},
		{"lower-case alg", signRS256(t, key(0), header("alg", "rs256"), claimsWith(clock, nil)), `alg "rs256"`},
		{"missing alg", signRS256(t, key(0), header("typ", "JWT"), claimsWith(clock, nil)), "is not RS256"},
		{"crit header", signRS256(t, key(0), header("alg", "RS256", "crit", []string{"b64"}), claimsWith(clock, nil)), "crit"},
		{"unknown signing key", signRS256(t, key(2), rs256, claimsWith(clock, nil)), "does not verify"},
		{"kid names another key", signRS256(t, key(2), header("alg", "RS256", "kid", "k1"), claimsWith(clock, nil)), "does not verify"},
		{"tampered payload", parts[0] + "." + otherPayload + "." + parts[2], "does not verify"},
		{"truncated signature", unsigned + "." + encodeSegment(mustDecode(t, parts[2])[1:]), "does not verify"},
		{"padded segment", unsigned + "." + parts[2] + "==", "base64url"},
		{"missing sub", signRS256(t, key(0), rs256, claimsWith(clock, func(c map[string]any) { delete(c, "sub") })), "sub"},
		{"blank sub", signRS256(t, key(0), rs256, claimsWith(clock, func(c map[string]any) { c["sub"] = " " })), "sub"},
		{"numeric sub", signRS256(t, key(0), rs256, claimsWith(clock, func(c map[string]any) { c["sub"] = 42 })), "sub"},
		{"missing exp", signRS256(t, key(0), rs256, claimsWith(clock, func(c map[string]any) { delete(c, "exp") })), "exp missing"},
		{"string exp", signRS256(t, key(0), rs256, claimsWith(clock, func(c map[string]any) { c["exp"] = "99999999999" })), "not a JSON number"},
		{"expired exp", signRS256(t, key(0), rs256, claimsWith(clock, func(c map[string]any) { c["exp"] = clock.Unix(-time.Second) })), "expired"},
		{"exp equal to now", signRS256(t, key(0), rs256, claimsWith(clock, func(c map[string]any) { c["exp"] = clock.Unix(0) })), "expired"},
		{"huge exp", signRS256(t, key(0), rs256, claimsWith(clock, func(c map[string]any) { c["exp"] = 1e300 })), "out of range"},
		{"wrong issuer", signRS256(t, key(0), rs256, claimsWith(clock, func(c map[string]any) { c["iss"] = "https://evil.example" })), "not the configured issuer"},
		{"missing issuer", signRS256(t, key(0), rs256, claimsWith(clock, func(c map[string]any) { delete(c, "iss") })), "not the configured issuer"},
		{"one segment", "abc", "three segments"},
		{"four segments", valid + ".x", "three segments"},
		{"empty", "", "three segments"},
		{"payload not an object", parts[0] + "." + encodeSegment([]byte(`[1]`)) + "." + parts[2], "not a JSON object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			claims, err := v.Verify(context.Background(), tc.token)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("Verify() = %v, want success", err)
				}
				if claims.Subject != "alice" || claims.Issuer != testIssuer || !claims.Expiry.After(clock.Now()) {
					t.Errorf("claims = %+v", claims)
				}
				return
			}
			if !errors.Is(err, ErrUnauthorized) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Verify() = %v, want ErrUnauthorized containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestVerifyWithoutIssuerAcceptsAnyIss(t *testing.T) {
	clock := newClock(t0)
	v, err := NewVerifier(Config{Enabled: true, PublicKeyPEM: pemOf(t, key(0))}, nil, clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	for _, iss := range []any{nil, "https://anyone.example"} {
		c := claimsWith(clock, func(c map[string]any) { c["iss"] = iss })
		if iss == nil {
			delete(c, "iss")
		}
		if _, err := v.Verify(context.Background(), signRS256(t, key(0), rs256, c)); err != nil {
			t.Errorf("iss %v: %v", iss, err)
		}
	}
	// Without a JWKS, a token the PEM does not verify fails without any fetch.
	if _, err := v.Verify(context.Background(), signRS256(t, key(1), rs256, claimsWith(clock, nil))); !errors.Is(err, ErrUnauthorized) {
		t.Errorf("foreign key: %v", err)
	}
}

func TestVerifyExpiryFollowsTheClock(t *testing.T) {
	v, clock, _ := newTestVerifier(t)
	token := signRS256(t, key(0), rs256, claimsWith(clock, func(c map[string]any) { c["exp"] = clock.Unix(time.Minute) }))
	if _, err := v.Verify(context.Background(), token); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute - time.Nanosecond)
	if _, err := v.Verify(context.Background(), token); err != nil {
		t.Fatalf("1 ns before exp: %v", err)
	}
	clock.Advance(time.Nanosecond)
	if _, err := v.Verify(context.Background(), token); !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("at exp: %v, want ErrUnauthorized (no leeway)", err)
	}
}

func FuzzVerify(f *testing.F) {
	clock := newClock(t0)
	v, err := NewVerifier(Config{Enabled: true, PublicKeyPEM: pemOf(f, key(0))}, nil, clock.Now)
	if err != nil {
		f.Fatal(err)
	}
	good := signRS256(f, key(0), rs256, claimsWith(clock, nil))
	for _, s := range []string{good, good[:len(good)-2], "a.b.c", "", "e30.e30.e30"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, token string) {
		claims, err := v.Verify(context.Background(), token)
		switch {
		case err == nil && token != good:
			t.Fatalf("Verify(%q) accepted a token it did not issue: %+v", token, claims)
		case err != nil && !errors.Is(err, ErrUnauthorized):
			t.Fatalf("Verify(%q) = %v, not ErrUnauthorized", token, err)
		}
	})
}

// The scope (space-separated) or scp (string or array) claim names the
// token's scopes; the configured admin scope makes the token an admin's.
func TestVerifyScopesAndAdmin(t *testing.T) {
	clock := newClock(t0)
	v, err := NewVerifier(Config{Enabled: true, PublicKeyPEM: pemOf(t, key(0)), AdminScope: "aite:admin"}, nil, clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		key    string
		value  any
		scopes []string
		admin  bool
	}{
		{"scope", "read aite:admin", []string{"read", "aite:admin"}, true},
		{"scp", []any{"aite:admin"}, []string{"aite:admin"}, true},
		{"scp", "read write", []string{"read", "write"}, false},
		{"scope", "aite:administrator", []string{"aite:administrator"}, false},
		{"scope", 7, nil, false},
		{"", nil, nil, false},
	}
	for _, c := range cases {
		claims := claimsWith(clock, func(m map[string]any) {
			if c.key != "" {
				m[c.key] = c.value
			}
		})
		got, err := v.Verify(context.Background(), signRS256(t, key(0), rs256, claims))
		if err != nil {
			t.Fatalf("%s=%v: %v", c.key, c.value, err)
		}
		if !slices.Equal(got.Scopes, c.scopes) || got.Admin != c.admin {
			t.Errorf("%s=%v: scopes %v admin %v, want %v %v", c.key, c.value, got.Scopes, got.Admin, c.scopes, c.admin)
		}
	}
}
