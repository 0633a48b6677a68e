package auth

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// echoSubject answers 200 with "subject=<sub>" or "no subject".
var echoSubject = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	if sub, ok := SubjectFrom(r.Context()); ok {
		_, _ = w.Write([]byte("subject=" + sub))
		return
	}
	_, _ = w.Write([]byte("no subject"))
})

func TestMiddleware(t *testing.T) {
	clock := newClock(t0)
	v, err := NewVerifier(Config{Enabled: true, PublicKeyPEM: pemOf(t, key(0))}, nil, clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	good := signRS256(t, key(0), rs256, claimsWith(clock, nil))
	expired := signRS256(t, key(0), rs256, claimsWith(clock, func(c map[string]any) { c["exp"] = clock.Unix(-time.Hour) }))
	foreign := signRS256(t, key(1), rs256, claimsWith(clock, nil))

	tests := []struct {
		name       string
		method     string
		target     string
		auth       []string // Authorization header values
		validation bool
		wantBody   string // "" = the 401 envelope
	}{
		{"OPTIONS without token", http.MethodOptions, "/api/ap/agents", nil, true, "no subject"},
		{"missing bearer", http.MethodGet, "/api/ap/agents", nil, true, ""},
		{"valid bearer", http.MethodGet, "/api/ap/agents", []string{"Bearer " + good}, true, "subject=alice"},
		{"scheme case-insensitive", http.MethodPost, "/api/ap/query", []string{"bearer  " + good}, true, "subject=alice"},
		{"basic scheme", http.MethodGet, "/api/ap/agents", []string{"Basic " + good}, true, ""},
		{"bearer without token", http.MethodGet, "/api/ap/agents", []string{"Bearer "}, true, ""},
		{"bare token", http.MethodGet, "/api/ap/agents", []string{good}, true, ""},
		{"token with a space", http.MethodGet, "/api/ap/agents", []string{"Bearer " + good + " x"}, true, ""},
		{"two headers", http.MethodGet, "/api/ap/agents", []string{"Bearer " + good, "Bearer " + good}, true, ""},
		{"garbage token", http.MethodGet, "/api/ap/agents", []string{"Bearer abc.def"}, true, ""},
		{"expired token", http.MethodGet, "/api/ap/agents", []string{"Bearer " + expired}, true, ""},
		{"foreign key", http.MethodGet, "/api/ap/agents", []string{"Bearer " + foreign}, true, ""},
		{"data with t skips bearer", http.MethodGet, "/api/ap/data?file=a.png&t=tok", nil, true, "no subject"},
		{"data with t and validation off", http.MethodGet, "/api/ap/data?file=a.png&t=tok", nil, false, ""},
		{"data with t, validation off, bearer", http.MethodGet, "/api/ap/data?file=a.png&t=tok", []string{"Bearer " + good}, false, "subject=alice"},
		{"data with empty t", http.MethodGet, "/api/ap/data?file=a.png&t=", nil, true, ""},
		{"data without t", http.MethodGet, "/api/ap/data?file=a.png", nil, true, ""},
		{"POST data with t", http.MethodPost, "/api/ap/data?t=tok", nil, true, ""},
		{"other path with t", http.MethodGet, "/api/ap/chats?t=tok", nil, true, ""},
		{"data sub-path with t", http.MethodGet, "/api/ap/data/x.png?t=tok", nil, true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := Middleware(v, echoSubject, WithDataTokenValidation(tc.validation))
			req := httptest.NewRequest(tc.method, tc.target, nil)
			for _, a := range tc.auth {
				req.Header.Add("Authorization", a)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if tc.wantBody != "" {
				if rec.Code != http.StatusOK || rec.Body.String() != tc.wantBody {
					t.Fatalf("got %d %q, want 200 %q", rec.Code, rec.Body, tc.wantBody)
				}
				return
			}
			if rec.Code != http.StatusUnauthorized || rec.Body.String() != `{"code":401,"msg":"unauthorized","data":{}}` {
				t.Fatalf("got %d %q, want the 401 envelope", rec.Code, rec.Body)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q", ct)
			}
		})
	}
}

func TestMiddlewareOptions(t *testing.T) {
	clock := newClock(t0)
	v, err := NewVerifier(Config{Enabled: true, PublicKeyPEM: pemOf(t, key(0))}, nil, clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h := Middleware(v, echoSubject, WithDataPath("/data"), WithLogger(logger))

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/data?file=a.png&t=tok", nil))
	if rec.Code != http.StatusOK {
		t.Errorf("stripped data path with t: %d, want 200 (validation is on by default)", rec.Code)
	}
	secret := signRS256(t, key(1), rs256, claimsWith(clock, nil))
	req := httptest.NewRequest(http.MethodGet, "/agents", nil)
	req.Header.Set("Authorization", "Bearer "+secret)
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusUnauthorized {
		t.Fatalf("foreign key: %d", rec.Code)
	}
	if !strings.Contains(logs.String(), "does not verify") || strings.Contains(logs.String(), secret) {
		t.Errorf("log = %q: want the reason and never the token", logs.String())
	}
}

func TestMiddlewareNilVerifierPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Middleware(nil, …) did not panic")
		}
	}()
	Middleware(nil, echoSubject)
}

func TestSubjectFrom(t *testing.T) {
	if _, ok := SubjectFrom(context.Background()); ok {
		t.Error("empty context has a subject")
	}
	if _, ok := SubjectFrom(WithSubject(context.Background(), "")); ok {
		t.Error("blank subject reported")
	}
	if sub, ok := SubjectFrom(WithSubject(context.Background(), "bob")); !ok || sub != "bob" {
		t.Errorf("SubjectFrom = %q, %v", sub, ok)
	}
}
