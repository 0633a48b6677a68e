package agentctx

import (
	"errors"
	"testing"
)

func mustContext(t *testing.T, js string) Context {
	t.Helper()
	c, err := ParseContext([]byte(js))
	if err != nil {
		t.Fatalf("ParseContext: %v", err)
	}
	return c
}

func mustDecode(t *testing.T, js string) any {
	t.Helper()
	v, err := Decode([]byte(js))
	if err != nil {
		t.Fatalf("Decode(%s): %v", js, err)
	}
	return v
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := Encode(v)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	return string(b)
}

func mustPath(t *testing.T, s string) Path {
	t.Helper()
	p, err := ParsePath(s)
	if err != nil {
		t.Fatalf("ParsePath(%q): %v", s, err)
	}
	return p
}

// wantCode asserts err carries code ("" = no error).
func wantCode(t *testing.T, err error, code Code) {
	t.Helper()
	if code == "" {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	var e *Error
	if !errors.As(err, &e) || e.Code != code {
		t.Fatalf("error = %v, want code %s", err, code)
	}
	if !errors.Is(err, &Error{Code: code}) {
		t.Fatalf("errors.Is(%v, %s) = false", err, code)
	}
}

// readJSON reads path s in view v and returns its JSON, or "<absent>".
func readJSON(t *testing.T, v View, s string) string {
	t.Helper()
	got, ok := Read(v, mustPath(t, s))
	if !ok {
		return "<absent>"
	}
	return jsonOf(t, got)
}
