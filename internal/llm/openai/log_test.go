package openai

import (
	"net/http"
	"net/url"
	"testing"
	"time"
)

func TestMasking(t *testing.T) {
	h := http.Header{"Authorization": {"Bearer sk-1"}, "Api-Key": {"k"}, "X-Trace": {"t"}}
	got := maskHeaders(h)
	want := []string{"Api-Key: ***", "Authorization: ***", "X-Trace: t"}
	if len(got) != len(want) {
		t.Fatalf("got %q", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
	u, _ := url.Parse("https://user:pw@host/v1/chat?api_key=s3cret&model=m&access_token=t0k")
	if s := maskURL(u); s != "https://%2A%2A%2A@host/v1/chat?access_token=%2A%2A%2A&api_key=%2A%2A%2A&model=m" {
		t.Fatalf("got %s", s)
	}
}

func TestEndpointBase(t *testing.T) {
	for in, want := range map[string]string{
		"http://h":            "http://h/v1/",
		"http://h/":           "http://h/v1/",
		"http://h/v1":         "http://h/v1/",
		"http://h/api/v1/":    "http://h/api/v1/",
		"http://h/v1beta":     "http://h/v1beta/v1/",
		"http://h/paas/v4":    "http://h/paas/v4/",
		"http://h:11434/api":  "http://h:11434/api/v1/",
		"https://h/openai/v1": "https://h/openai/v1/",
	} {
		if got := endpointBase(in); got != want {
			t.Errorf("endpointBase(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		h    http.Header
		want time.Duration
	}{
		{http.Header{}, 0},
		{http.Header{"Retry-After": {"0.5"}}, 500 * time.Millisecond},
		{http.Header{"Retry-After": {"-3"}}, 0},
		{http.Header{"Retry-After": {"soon"}}, 0},
		{http.Header{"Retry-After": {now.Add(-time.Hour).Format(http.TimeFormat)}}, 0},
		{http.Header{"Retry-After": {now.Add(2 * time.Hour).Format(http.TimeFormat)}}, time.Minute},
		{http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"9"}}, 250 * time.Millisecond},
	} {
		if got := parseRetryAfter(tc.h, now); got != tc.want {
			t.Errorf("%v: got %v, want %v", tc.h, got, tc.want)
		}
	}
}
