package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"unicode/utf8"

	"github.com/aitexteditor/aite/internal/api"
)

// reqError is a failure of a request answered with an envelope before any
// response byte (§ 1.2): status, msg and data (nil = {}).
type reqError struct {
	status int
	msg    string
	data   any
}

// Error implements error.
func (e *reqError) Error() string { return e.msg }

// badRequest returns a 400 with msg.
func badRequest(format string, args ...any) *reqError {
	return &reqError{status: http.StatusBadRequest, msg: fmt.Sprintf(format, args...)}
}

// invalidFields returns 400 "Validation failed" with data.fields.
func invalidFields(fields map[string]string) *reqError {
	return &reqError{status: http.StatusBadRequest, msg: "Validation failed", data: api.ValidationData{Fields: fields}}
}

// The validation reasons.
const (
	reasonRequired = "must not be blank"
	reasonNotNull  = "must not be null"
)

// writeReqError answers err: a *reqError with its own envelope, anything
// else with 500.
func (s *Server) writeReqError(w http.ResponseWriter, r *http.Request, err error) {
	var re *reqError
	if errors.As(err, &re) {
		writeError(w, re.status, re.msg, re.data)
		return
	}
	s.writeInternal(w, r, err)
}

// decodeRequestJSON reads a JSON request body of at most MaxJSONBody bytes
// into v (§ 1.1) with decodeJSON. An empty body counts as {} so the missing
// fields are reported by validation; a larger body, invalid UTF-8 (which
// encoding/json would silently replace), malformed JSON, trailing data or a
// field of the wrong type give a 400 *reqError.
func decodeRequestJSON(w http.ResponseWriter, r *http.Request, v any) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxJSONBody))
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return badRequest("Request body too large")
		}
		return badRequest("Unreadable request body")
	}
	if !utf8.Valid(body) {
		return badRequest("Request body is not valid UTF-8")
	}
	return decodeJSON(body, v)
}

// decodeJSON decodes the JSON request body body into v: an empty body
// counts as {}; malformed JSON, trailing data or a field of the wrong type
// give a 400 *reqError.
func decodeJSON(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok && te.Field != "" {
			return badRequest("Wrong type for field %s", te.Field)
		}
		return badRequest("Malformed JSON")
	}
	if _, err := dec.Token(); err != io.EOF {
		return badRequest("Malformed JSON")
	}
	return nil
}
