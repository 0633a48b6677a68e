package auth

import "errors"

// ErrConfig means the auth configuration breaks a startup rule of § 8.1; the concrete error is
// a *ConfigError naming the field.
var ErrConfig = errors.New("auth: invalid configuration")

// ErrUnauthorized means an API request carries no usable Bearer token: missing, malformed,
// wrong algorithm, bad signature, expired, wrong issuer, or no key available to check it.
// Verify wraps it with the reason, for logs only; clients get the fixed 401 envelope.
var ErrUnauthorized = errors.New("unauthorized")

// ErrTokenInvalid is any defect of a chat image token other than expiry: malformed, other
// algorithm or header, bad signature, claims other than exactly e, c, u, or a missing claim.
// Its text is the errorCode of the 403 body.
var ErrTokenInvalid = errors.New("CHAT_IMAGE_TOKEN_INVALID")

// ErrTokenExpired means a correctly signed, well-formed chat image token whose e lies in the
// past. Its text is the errorCode of the 403 body.
var ErrTokenExpired = errors.New("CHAT_IMAGE_TOKEN_EXPIRED")

// ErrNotIssuable means no chat image token can be issued: no secret is configured, or the
// chat id or subject is blank.
var ErrNotIssuable = errors.New("auth: chat image token not issuable")

// ErrInvalidFile is step 1 of § 8.3 (400); its text is the response message.
var ErrInvalidFile error = &messageError{"Invalid file parameter"}

// ErrInvalidFilename is step 2 of § 8.3 (400); its text is the response message.
var ErrInvalidFilename error = &messageError{"Invalid filename"}

// ErrFileNotFound is step 4 of § 8.3 (404); its text is the response message. The wrapping
// error may name the path: answer with this sentinel's text, never with the wrapper's.
var ErrFileNotFound error = &messageError{"File not found"}

// TokenErrorCode returns the errorCode of the 403 body for a chat image token error
// (CHAT_IMAGE_TOKEN_EXPIRED or CHAT_IMAGE_TOKEN_INVALID), or "" when err is neither.
func TokenErrorCode(err error) string {
	switch {
	case errors.Is(err, ErrTokenExpired):
		return ErrTokenExpired.Error()
	case errors.Is(err, ErrTokenInvalid):
		return ErrTokenInvalid.Error()
	}
	return ""
}

// messageError is a sentinel whose text is an HTTP response message of § 8.3 (capitalised, so
// not built with errors.New, whose texts start in lower case by convention).
type messageError struct{ msg string }

func (e *messageError) Error() string { return e.msg }
