package openai

import (
	"net/http"
	"testing"
	"time"
)

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
		{http.Header{"Retry-After": {now.Add(2 * time.Hour).Format(http.TimeFormat)}}, 2 * time.Hour},
		{http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"9"}}, 250 * time.Millisecond},
	} {
		if got := parseRetryAfter(tc.h, now); got != tc.want {
			t.Errorf("%v: got %v, want %v", tc.h, got, tc.want)
		}
	}
}
