package server

import (
	"crypto/rand"
	"crypto/sha1"
	"encoding/hex"
	"strings"
)

// uuidCanonical parses a UUID in its 8-4-4-4-12 hex form, case-insensitive,
// surrounding blanks ignored, and returns it in lowercase canonical form
// (§ 1.3). Other forms (no hyphens, braces, urn:uuid:) are refused.
func uuidCanonical(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if len(s) != 36 {
		return "", false
	}
	b := []byte(strings.ToLower(s))
	for i, c := range b {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return "", false
			}
		default:
			if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
				return "", false
			}
		}
	}
	return string(b), true
}

// uuidV4 returns a new random (version 4, RFC 9562 variant) UUID in
// lowercase canonical form.
func uuidV4() string {
	var u [16]byte
	_, _ = rand.Read(u[:]) // crypto/rand.Read never fails (it panics on a broken system)
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return formatUUID(u)
}

// sampleNamespace is the UUID namespace of uuidV5 (RFC 9562 § 5.5).
var sampleNamespace = [16]byte{0x6b, 0x3e, 0x0c, 0x52, 0x1d, 0x4a, 0x4e, 0x8f, 0x9a, 0x43, 0x2f, 0x61, 0x5c, 0x0d, 0x77, 0x1e}

// uuidV5 returns the name-based UUID of name: the same on every node, so
// nodes starting at once register one sample book, not one each.
func uuidV5(name string) string {
	h := sha1.New()
	h.Write(sampleNamespace[:])
	h.Write([]byte(name))
	var u [16]byte
	copy(u[:], h.Sum(nil))
	u[6] = u[6]&0x0f | 0x50
	u[8] = u[8]&0x3f | 0x80
	return formatUUID(u)
}

// formatUUID writes u in the canonical lowercase 8-4-4-4-12 form.
func formatUUID(u [16]byte) string {
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	hex.Encode(b[9:13], u[4:6])
	hex.Encode(b[14:18], u[6:8])
	hex.Encode(b[19:23], u[8:10])
	hex.Encode(b[24:36], u[10:16])
	b[8], b[13], b[18], b[23] = '-', '-', '-', '-'
	return string(b[:])
}
