package auth

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
)

// maxTokenBytes bounds the compact token accepted by both verifiers.
const maxTokenBytes = 16 << 10

// compactJWT is a split compact JWS: decoded header, payload and signature plus the signing
// input (the first two segments and their dot, as sent).
type compactJWT struct {
	header       []byte
	payload      []byte
	signature    []byte
	signingInput []byte
}

// parseCompact splits token into its three base64url segments and decodes them. Segments must
// be unpadded base64url (RFC 7515 § 2); header and payload must be JSON objects.
func parseCompact(token string) (compactJWT, error) {
	if len(token) > maxTokenBytes {
		return compactJWT{}, errors.New("token too long")
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return compactJWT{}, errors.New("not a compact JWT (want three segments)")
	}
	var t compactJWT
	var err error
	if t.header, err = decodeSegment(parts[0]); err != nil {
		return compactJWT{}, errors.New("header: " + err.Error())
	}
	if t.payload, err = decodeSegment(parts[1]); err != nil {
		return compactJWT{}, errors.New("payload: " + err.Error())
	}
	if t.signature, err = decodeSegment(parts[2]); err != nil {
		return compactJWT{}, errors.New("signature: " + err.Error())
	}
	if !isJSONObject(t.header) || !isJSONObject(t.payload) {
		return compactJWT{}, errors.New("header or payload is not a JSON object")
	}
	t.signingInput = []byte(token[:len(parts[0])+1+len(parts[1])])
	return t, nil
}

func decodeSegment(s string) ([]byte, error) {
	if s == "" {
		return nil, errors.New("empty segment")
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil {
		return nil, errors.New("not unpadded base64url")
	}
	return b, nil
}

func isJSONObject(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '{' && json.Valid(b)
}

// encodeSegment is the unpadded base64url form of b.
func encodeSegment(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// jsonMembers decodes a JSON object into its raw members.
func jsonMembers(b []byte) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// stringMember decodes member name of m as a JSON string; ok is false when it is absent or
// not a string.
func stringMember(m map[string]json.RawMessage, name string) (s string, present, ok bool) {
	raw, present := m[name]
	if !present {
		return "", false, false
	}
	if err := json.Unmarshal(raw, &s); err != nil || !bytes.HasPrefix(bytes.TrimSpace(raw), []byte(`"`)) {
		return "", true, false
	}
	return s, true, true
}

// clip shortens an attacker-supplied value before it goes into a log reason.
func clip(s string) string {
	const limit = 40
	if len(s) > limit {
		return s[:limit] + "…"
	}
	return s
}
