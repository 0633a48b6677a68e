package auth

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

const (
	// DefaultChatTokenTTL is chatImageToken.ttlSeconds when unset.
	DefaultChatTokenTTL = 86400 * time.Second
	// MinChatTokenTTL is the smallest lifetime; a shorter positive TTL is raised to it.
	MinChatTokenTTL = 60 * time.Second
)

// chatTokenHeader is the exact header of every issued token.
const chatTokenHeader = `{"alg":"HS256","typ":"JWT"}`

// Issuer issues and verifies chat image tokens (§ 8.2): compact HS256 JWTs whose HMAC key is
// SHA-256(secret as UTF-8) and whose claims are exactly e (expiry, epoch seconds), c (chat id)
// and u (subject). The zero TTL means DefaultChatTokenTTL. Fields must not change while the
// Issuer is in use; it is then safe for concurrent use.
type Issuer struct {
	Secret          string           // chatImageToken.secret; "" = tokens are not issued
	PreviousSecrets []string         // still accepted by Verify, tried in order after Secret
	TTL             time.Duration    // chatImageToken.ttlSeconds; 0 = 24 h, below 60 s = 60 s
	Clock           func() time.Time // nil = time.Now
}

// ChatToken is the content of a verified chat image token.
type ChatToken struct {
	ChatID  string    // c
	Subject string    // u
	Expiry  time.Time // e
}

// chatClaims is the payload in its issued order.
type chatClaims struct {
	E int64  `json:"e"`
	C string `json:"c"`
	U string `json:"u"`
}

// Enabled reports whether tokens can be issued (a secret is configured).
func (i *Issuer) Enabled() bool { return strings.TrimSpace(i.Secret) != "" }

func (i *Issuer) now() time.Time {
	if i.Clock == nil {
		return time.Now()
	}
	return i.Clock()
}

func (i *Issuer) ttl() time.Duration {
	switch {
	case i.TTL <= 0:
		return DefaultChatTokenTTL
	case i.TTL < MinChatTokenTTL:
		return MinChatTokenTTL
	}
	return i.TTL
}

// Issue returns a token for chatID and subject expiring TTL from now (rounded down to a whole
// second). It fails with ErrNotIssuable when there is no secret or either argument is blank.
func (i *Issuer) Issue(chatID, subject string) (string, error) {
	switch {
	case !i.Enabled():
		return "", fmt.Errorf("%w: no secret configured", ErrNotIssuable)
	case strings.TrimSpace(chatID) == "":
		return "", fmt.Errorf("%w: blank chat id", ErrNotIssuable)
	case strings.TrimSpace(subject) == "":
		return "", fmt.Errorf("%w: blank subject", ErrNotIssuable)
	}
	payload, err := json.Marshal(chatClaims{E: i.now().Add(i.ttl()).Unix(), C: chatID, U: subject})
	if err != nil {
		return "", fmt.Errorf("chat image token: %w", err)
	}
	input := encodeSegment([]byte(chatTokenHeader)) + "." + encodeSegment(payload)
	return input + "." + encodeSegment(chatTokenMAC(i.Secret, []byte(input))), nil
}

// chatTokenMAC is HMAC-SHA256 keyed with SHA-256(secret).
func chatTokenMAC(secret string, input []byte) []byte {
	key := sha256.Sum256([]byte(secret))
	mac := hmac.New(sha256.New, key[:])
	mac.Write(input)
	return mac.Sum(nil)
}

// invalid wraps ErrTokenInvalid with a reason for logs.
func invalid(reason string) error { return fmt.Errorf("%w: %s", ErrTokenInvalid, reason) }

// Verify checks token and returns its content. Every defect wraps ErrTokenInvalid, except a
// correctly signed, well-formed token whose e is not after now, which wraps ErrTokenExpired.
// The header must be a JSON object with alg "HS256" and at most typ "JWT" besides (member order
// and spacing are free: the signature covers the bytes as sent). Without a secret every token
// is invalid, whatever PreviousSecrets holds.
func (i *Issuer) Verify(token string) (ChatToken, error) {
	jwt, err := parseCompact(token)
	if err != nil {
		return ChatToken{}, invalid(err.Error())
	}
	if err := checkHS256Header(jwt.header); err != nil {
		return ChatToken{}, err
	}
	if !i.signatureMatches(jwt) {
		return ChatToken{}, invalid("signature does not match any secret")
	}
	ct, err := parseChatClaims(jwt.payload)
	if err != nil {
		return ChatToken{}, err
	}
	if !i.now().Before(ct.Expiry) {
		return ChatToken{}, fmt.Errorf("%w: expired at %s", ErrTokenExpired, ct.Expiry.UTC().Format(time.RFC3339))
	}
	return ct, nil
}

func checkHS256Header(header []byte) error {
	m, err := jsonMembers(header)
	if err != nil {
		return invalid("header: " + err.Error())
	}
	if alg, _, ok := stringMember(m, "alg"); !ok || alg != "HS256" {
		return invalid(fmt.Sprintf("alg %q is not HS256", clip(alg)))
	}
	if typ, present, ok := stringMember(m, "typ"); present && (!ok || typ != "JWT") {
		return invalid(fmt.Sprintf("typ %q is not JWT", clip(typ)))
	}
	for name := range m {
		if name != "alg" && name != "typ" {
			return invalid(fmt.Sprintf("unexpected header member %q", clip(name)))
		}
	}
	return nil
}

// signatureMatches tries the current secret, then each non-empty previous one.
func (i *Issuer) signatureMatches(jwt compactJWT) bool {
	if !i.Enabled() {
		return false
	}
	secrets := append([]string{i.Secret}, i.PreviousSecrets...)
	for _, s := range secrets {
		if s != "" && hmac.Equal(chatTokenMAC(s, jwt.signingInput), jwt.signature) {
			return true
		}
	}
	return false
}

// parseChatClaims requires exactly the members e (an integer), c and u (non-empty strings).
func parseChatClaims(payload []byte) (ChatToken, error) {
	m, err := jsonMembers(payload)
	if err != nil {
		return ChatToken{}, invalid("payload: " + err.Error())
	}
	for name := range m {
		if name != "e" && name != "c" && name != "u" {
			return ChatToken{}, invalid(fmt.Sprintf("unexpected claim %q", clip(name)))
		}
	}
	raw, found := m["e"]
	if !found {
		return ChatToken{}, invalid("e missing")
	}
	e, err := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 64)
	if err != nil || e > maxExpSeconds || e < -maxExpSeconds {
		return ChatToken{}, invalid("e is not an integer number of seconds")
	}
	c, _, okC := stringMember(m, "c")
	u, _, okU := stringMember(m, "u")
	if !okC || !okU || c == "" || u == "" {
		return ChatToken{}, invalid("c or u missing or not a non-empty string")
	}
	return ChatToken{ChatID: c, Subject: u, Expiry: time.Unix(e, 0)}, nil
}
