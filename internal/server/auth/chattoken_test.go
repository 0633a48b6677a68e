package auth

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

const chatID = "3f2b8c1e-7a4d-4e2f-9b1a-0c5d6e7f8a9b"

func TestChatTokenRoundTrip(t *testing.T) {
	clock := newClock(t0)
	iss := &Issuer{Secret: "s3cret", TTL: time.Hour, Clock: clock.Now}
	token, err := iss.Issue(chatID, "alice")
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("token %q is not compact", token)
	}
	if h, _ := base64.RawURLEncoding.DecodeString(parts[0]); string(h) != `{"alg":"HS256","typ":"JWT"}` {
		t.Errorf("header = %s", h)
	}
	wantPayload := fmt.Sprintf(`{"e":%d,"c":%q,"u":"alice"}`, t0.Add(time.Hour).Unix(), chatID)
	if p, _ := base64.RawURLEncoding.DecodeString(parts[1]); string(p) != wantPayload {
		t.Errorf("payload = %s, want %s", p, wantPayload)
	}
	// The key is SHA-256(secret): an independent HMAC gives the same token.
	key := sha256.Sum256([]byte("s3cret"))
	if want := signHS256(`{"alg":"HS256","typ":"JWT"}`, wantPayload, key[:]); token != want {
		t.Errorf("token = %s, want %s", token, want)
	}
	got, err := iss.Verify(token)
	if err != nil {
		t.Fatal(err)
	}
	if got.ChatID != chatID || got.Subject != "alice" || !got.Expiry.Equal(t0.Add(time.Hour)) {
		t.Errorf("Verify() = %+v", got)
	}
}

func TestChatTokenTTL(t *testing.T) {
	for _, tc := range []struct {
		ttl, want time.Duration
	}{{0, 86400 * time.Second}, {time.Second, 60 * time.Second}, {90 * time.Second, 90 * time.Second}} {
		clock := newClock(t0)
		iss := &Issuer{Secret: "x", TTL: tc.ttl, Clock: clock.Now}
		token, err := iss.Issue(chatID, "alice")
		if err != nil {
			t.Fatal(err)
		}
		ct, err := iss.Verify(token)
		if err != nil || !ct.Expiry.Equal(t0.Add(tc.want)) {
			t.Errorf("TTL %v: expiry %v, %v; want now+%v", tc.ttl, ct.Expiry, err, tc.want)
		}
	}
}

func TestChatTokenNotIssuable(t *testing.T) {
	for _, tc := range []struct {
		secret, chat, sub string
	}{{"", chatID, "alice"}, {"  ", chatID, "alice"}, {"x", "", "alice"}, {"x", chatID, " "}} {
		iss := &Issuer{Secret: tc.secret}
		if _, err := iss.Issue(tc.chat, tc.sub); !errors.Is(err, ErrNotIssuable) {
			t.Errorf("Issue(%q, %q) with secret %q = %v, want ErrNotIssuable", tc.chat, tc.sub, tc.secret, err)
		}
	}
}

func TestChatTokenVerify(t *testing.T) {
	clock := newClock(t0)
	iss := &Issuer{Secret: "current", PreviousSecrets: []string{"", "old1", "old2"}, Clock: clock.Now}
	mac := func(secret string) []byte { k := sha256.Sum256([]byte(secret)); return k[:] }
	std := `{"alg":"HS256","typ":"JWT"}`
	future, past := clock.Unix(time.Hour), clock.Unix(-time.Second)
	claims := func(e int64) string { return fmt.Sprintf(`{"e":%d,"c":"chat","u":"alice"}`, e) }
	good := signHS256(std, claims(future), mac("current"))
	gp := strings.Split(good, ".")

	tests := []struct {
		name, token string
		want        error // nil = valid
	}{
		{"current secret", good, nil},
		{"previous secret", signHS256(std, claims(future), mac("old2")), nil},
		{"unknown secret", signHS256(std, claims(future), mac("other")), ErrTokenInvalid},
		{"raw secret as key", signHS256(std, claims(future), []byte("current")), ErrTokenInvalid},
		{"reordered header", signHS256(`{"typ":"JWT","alg":"HS256"}`, claims(future), mac("current")), nil},
		{"header without typ", signHS256(`{"alg":"HS256"}`, claims(future), mac("current")), nil},
		{"header with spaces", signHS256(`{ "alg" : "HS256", "typ" : "JWT" }`, claims(future), mac("current")), nil},
		{"header with kid", signHS256(`{"alg":"HS256","typ":"JWT","kid":"1"}`, claims(future), mac("current")), ErrTokenInvalid},
		{"typ JWS", signHS256(`{"alg":"HS256","typ":"JWS"}`, claims(future), mac("current")), ErrTokenInvalid},
		{"alg none", signHS256(`{"alg":"none","typ":"JWT"}`, claims(future), mac("current")), ErrTokenInvalid},
		{"alg HS512", signHS256(`{"alg":"HS512","typ":"JWT"}`, claims(future), mac("current")), ErrTokenInvalid},
		{"alg RS256", signHS256(`{"alg":"RS256","typ":"JWT"}`, claims(future), mac("current")), ErrTokenInvalid},
		{"alg lower case", signHS256(`{"alg":"hs256","typ":"JWT"}`, claims(future), mac("current")), ErrTokenInvalid},
		{"expired", signHS256(std, claims(past), mac("current")), ErrTokenExpired},
		{"expires now", signHS256(std, claims(clock.Unix(0)), mac("current")), ErrTokenExpired},
		{"expired previous secret", signHS256(std, claims(past), mac("old1")), ErrTokenExpired},
		{"expired and forged", signHS256(std, claims(past), mac("other")), ErrTokenInvalid},
		{"missing e", signHS256(std, `{"c":"chat","u":"alice"}`, mac("current")), ErrTokenInvalid},
		{"e as string", signHS256(std, fmt.Sprintf(`{"e":"%d","c":"chat","u":"alice"}`, future), mac("current")), ErrTokenInvalid},
		{"e in milliseconds (out of range)", signHS256(std, fmt.Sprintf(`{"e":%d,"c":"chat","u":"alice"}`, future*1000), mac("current")), ErrTokenInvalid},
		{"e fractional", signHS256(std, fmt.Sprintf(`{"e":%d.5,"c":"chat","u":"alice"}`, future), mac("current")), ErrTokenInvalid},
		{"missing c", signHS256(std, fmt.Sprintf(`{"e":%d,"u":"alice"}`, future), mac("current")), ErrTokenInvalid},
		{"missing u", signHS256(std, fmt.Sprintf(`{"e":%d,"c":"chat"}`, future), mac("current")), ErrTokenInvalid},
		{"empty u", signHS256(std, fmt.Sprintf(`{"e":%d,"c":"chat","u":""}`, future), mac("current")), ErrTokenInvalid},
		{"numeric c", signHS256(std, fmt.Sprintf(`{"e":%d,"c":7,"u":"alice"}`, future), mac("current")), ErrTokenInvalid},
		{"extra claim", signHS256(std, fmt.Sprintf(`{"e":%d,"c":"chat","u":"alice","x":1}`, future), mac("current")), ErrTokenInvalid},
		{"standard claim names", signHS256(std, fmt.Sprintf(`{"exp":%d,"sub":"alice","c":"chat"}`, future), mac("current")), ErrTokenInvalid},
		{"expired with extra claim", signHS256(std, fmt.Sprintf(`{"e":%d,"c":"chat","u":"alice","x":1}`, past), mac("current")), ErrTokenInvalid},
		{"tampered payload", gp[0] + "." + encodeSegment([]byte(claims(future+1))) + "." + gp[2], ErrTokenInvalid},
		{"tampered header", encodeSegment([]byte(`{"typ":"JWT","alg":"HS256"}`)) + "." + gp[1] + "." + gp[2], ErrTokenInvalid},
		{"signature stripped", gp[0] + "." + gp[1] + ".", ErrTokenInvalid},
		{"two segments", gp[0] + "." + gp[1], ErrTokenInvalid},
		{"padded signature", good + "=", ErrTokenInvalid},
		{"garbage", "not-a-token", ErrTokenInvalid},
		{"empty", "", ErrTokenInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ct, err := iss.Verify(tc.token)
			if tc.want == nil {
				if err != nil || ct.ChatID != "chat" || ct.Subject != "alice" {
					t.Fatalf("Verify() = %+v, %v; want success", ct, err)
				}
				return
			}
			if !errors.Is(err, tc.want) || TokenErrorCode(err) != tc.want.Error() {
				t.Fatalf("Verify() = %v (code %q), want %v", err, TokenErrorCode(err), tc.want)
			}
		})
	}
}

func TestChatTokenWithoutSecretNeverVerifies(t *testing.T) {
	k := sha256.Sum256([]byte("old"))
	token := signHS256(`{"alg":"HS256","typ":"JWT"}`, fmt.Sprintf(`{"e":%d,"c":"c","u":"u"}`, time.Now().Add(time.Hour).Unix()), k[:])
	iss := &Issuer{PreviousSecrets: []string{"old"}}
	if _, err := iss.Verify(token); !errors.Is(err, ErrTokenInvalid) {
		t.Fatalf("Verify() without a secret = %v, want ErrTokenInvalid", err)
	}
}

func TestTokenErrorCode(t *testing.T) {
	if got := TokenErrorCode(errors.New("other")); got != "" {
		t.Errorf("TokenErrorCode(other) = %q", got)
	}
	if got := TokenErrorCode(fmt.Errorf("wrapped: %w", ErrTokenExpired)); got != "CHAT_IMAGE_TOKEN_EXPIRED" {
		t.Errorf("TokenErrorCode(expired) = %q", got)
	}
}

func FuzzChatTokenVerify(f *testing.F) {
	iss := &Issuer{Secret: "s", Clock: func() time.Time { return t0 }}
	good, err := iss.Issue(chatID, "alice")
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{good, good + "x", "a.b.c", "", "..", "e30.e30.e30"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, token string) {
		ct, err := iss.Verify(token)
		switch {
		case err == nil && (ct.ChatID == "" || ct.Subject == "" || !ct.Expiry.After(t0)):
			t.Fatalf("Verify(%q) accepted %+v", token, ct)
		case err != nil && TokenErrorCode(err) == "":
			t.Fatalf("Verify(%q) = %v, which has no error code", token, err)
		}
	})
}
