package server

import (
	"context"
	"encoding/json"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/agent"
	"github.com/aitexteditor/aite/internal/agentdef"
	"github.com/aitexteditor/aite/internal/store/memory"
)

// guardServer is a server with one agent, behind a real listener (so Host,
// Origin and every header are as a browser or curl sends them).
func guardServer(t *testing.T, g Guard) (*httptest.Server, *RunManager) {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "pic.svg"), []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`), 0o644))
	st := memory.New()
	runs := NewRunManager(st, RunOptions{})
	t.Cleanup(func() { _ = runs.Close(context.Background()) })
	snap := mtLoad(t, mtDefinitions)
	srv := httptest.NewServer(New(Options{Store: st, Runs: runs, Defs: func() *agentdef.Snapshot { return snap },
		Engine: blockingEngine{}, DataDir: dir, Guard: g}).Handler())
	t.Cleanup(srv.Close)
	return srv, runs
}

// blockingEngine runs until the run is canceled.
type blockingEngine struct{}

func (blockingEngine) Run(ctx context.Context, _ agent.Spec) iter.Seq2[agent.Event, error] {
	return func(yield func(agent.Event, error) bool) {
		<-ctx.Done()
		yield(agent.Event{}, ctx.Err())
	}
}

func (blockingEngine) Submit(string, string, json.RawMessage) bool { return false }

func itoa(n int) string { return strconv.Itoa(n) }

// send performs a request with the given headers and returns the status,
// the headers and the body.
func send(t *testing.T, method, url, body string, header map[string]string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	client := &http.Client{Timeout: 5 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var b []byte
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b = make([]byte, 64)
		n, _ := resp.Body.Read(b)
		b = b[:n]
	} else {
		b, _ = io.ReadAll(resp.Body)
	}
	return resp.StatusCode, resp.Header, string(b)
}

// Issue 14: with auth off any web page could drive the API: /query and
// /documents took JSON sent as text/plain or as a form from
// Origin: https://evil.example. Bodies must be application/json (or
// multipart for an upload) and a browser's cross-origin writes are refused;
// nothing runs.
func TestGuardRefusesCrossSiteWrites(t *testing.T) {
	srv, runs := guardServer(t, Guard{})
	query := `{"message":"delete everything","agentKey":"alpha"}`
	cases := []struct {
		name, path, body string
		header           map[string]string
		status           int
		msg              string
	}{
		{"text/plain query", "/api/ap/query", query, map[string]string{"Content-Type": "text/plain"},
			400, "Content-Type must be application/json"},
		{"form query", "/api/ap/query", "message=x", map[string]string{"Content-Type": "application/x-www-form-urlencoded"},
			400, "Content-Type must be application/json"},
		{"no type, a body", "/api/ap/query", query, map[string]string{"Content-Type": ""}, 400, "Content-Type must be application/json"},
		{"text/plain upload", "/api/ap/documents", `{"name":"x","markdown":"# X"}`, map[string]string{"Content-Type": "text/plain"},
			400, "Content-Type must be application/json or multipart/form-data"},
		{"evil origin", "/api/ap/query", query, map[string]string{"Content-Type": "application/json",
			"Origin": "https://evil.example"}, 403, "Cross-origin request refused"},
		{"evil fetch metadata", "/api/ap/run/cancel", `{"runId":"x"}`, map[string]string{"Content-Type": "application/json",
			"Sec-Fetch-Site": "cross-site"}, 403, "Cross-origin request refused"},
		{"evil form upload", "/api/ap/documents", "--b--", map[string]string{"Content-Type": "multipart/form-data; boundary=b",
			"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}, 403, "Cross-origin request refused"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, _, body := send(t, http.MethodPost, srv.URL+c.path, c.body, c.header)
			require.Equal(t, c.status, status, body)
			require.JSONEq(t, `{"code":`+itoa(c.status)+`,"msg":"`+c.msg+`","data":{}}`, body)
		})
	}
	require.Empty(t, runs.List(), "no run was started")

	// The same request from the page's own origin, or from curl, works.
	status, h, _ := send(t, http.MethodPost, srv.URL+"/api/ap/query", query,
		map[string]string{"Content-Type": "application/json; charset=utf-8", "Origin": srv.URL, "Sec-Fetch-Site": "same-origin"})
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, "text/event-stream; charset=utf-8", h.Get("Content-Type"))
}

// Issue 14: the Host header was not checked, so a DNS-rebound name (a page
// of evil.example resolving to 127.0.0.1) could read everything. Without
// auth only the loopback names are answered unless configured.
func TestGuardHostCheck(t *testing.T) {
	srv, _ := guardServer(t, Guard{})
	for host, want := range map[string]int{
		"evil.example": 403, "evil.example:8080": 403, "192.168.1.7:8080": 403, "localhost.evil.example": 403,
		"localhost": 200, "localhost:8080": 200, "127.0.0.1:8080": 200, "127.0.0.9": 200, "[::1]:8080": 200, "app.localhost": 200,
	} {
		status, _, body := send(t, http.MethodGet, srv.URL+"/api/ap/agents", "", map[string]string{"Host": host})
		require.Equal(t, want, status, "%s: %s", host, body)
		if want == 403 {
			require.Contains(t, body, `"msg":"Host not allowed: `)
		}
	}
	configured, _ := guardServer(t, Guard{Hosts: []string{"books.example"}})
	status, _, _ := send(t, http.MethodGet, configured.URL+"/api/ap/agents", "", map[string]string{"Host": "books.example:443"})
	require.Equal(t, 200, status)
	status, _, _ = send(t, http.MethodGet, configured.URL+"/api/ap/agents", "", map[string]string{"Host": "evil.example"})
	require.Equal(t, 403, status)
	open, _ := guardServer(t, Guard{Hosts: []string{"*"}})
	status, _, _ = send(t, http.MethodGet, open.URL+"/api/ap/agents", "", map[string]string{"Host": "anything.example"})
	require.Equal(t, 200, status)
}

// Issue 14, small ones: nosniff on every response, a CSP that forbids
// everything by default and sandboxes an SVG from /data, "//" paths answer
// the 404 envelope instead of a redirect, CORS headers only under /api,
// invalid UTF-8 in /query is a 400.
func TestGuardHeadersPathsAndBodies(t *testing.T) {
	srv, _ := guardServer(t, Guard{CORS: true})
	for _, path := range []string{"/api/ap/agents", "/api/ap/nope", "/elsewhere", "/api/ap/data?file=pic.svg", "/api/ap/viewport?viewportKey=x"} {
		status, h, _ := send(t, http.MethodGet, srv.URL+path, "", nil)
		require.NotZero(t, status)
		require.Equal(t, "nosniff", h.Get("X-Content-Type-Options"), path)
		require.Contains(t, h.Get("Content-Security-Policy"), "sandbox", path)
		require.Contains(t, h.Get("Content-Security-Policy"), "default-src 'none'", path)
	}
	status, h, _ := send(t, http.MethodGet, srv.URL+"/api/ap/data?file=pic.svg", "", nil)
	require.Equal(t, 200, status)
	require.Equal(t, "image/svg+xml", h.Get("Content-Type"))
	require.NotContains(t, h.Get("Content-Security-Policy"), "script-src")

	for _, path := range []string{"//api/ap/agents", "/api//ap/agents", "/api/ap/./agents", "/api/ap/x/../agents"} {
		status, h, body := send(t, http.MethodGet, srv.URL+path, "", nil)
		require.Equal(t, 404, status, path)
		require.Empty(t, h.Get("Location"), path)
		require.JSONEq(t, `{"code":404,"msg":"Not found","data":{}}`, body, path)
	}

	_, h, _ = send(t, http.MethodGet, srv.URL+"/api/ap/agents", "", map[string]string{"Origin": "https://client.example"})
	require.Equal(t, "*", h.Get("Access-Control-Allow-Origin"))
	status, h, _ = send(t, http.MethodOptions, srv.URL+"/api/ap/query", "", map[string]string{"Origin": "https://client.example",
		"Access-Control-Request-Method": "POST"})
	require.Equal(t, http.StatusNoContent, status)
	require.Contains(t, h.Get("Access-Control-Allow-Headers"), "Content-Type")
	status, h, _ = send(t, http.MethodOptions, srv.URL+"/api/ap/document/codex/entry", "", map[string]string{"Origin": "https://client.example",
		"Access-Control-Request-Method": "DELETE"})
	require.Equal(t, http.StatusNoContent, status)
	require.Contains(t, h.Get("Access-Control-Allow-Methods"), "DELETE", "the codex entry endpoint is a DELETE")
	_, h, _ = send(t, http.MethodGet, srv.URL+"/elsewhere", "", map[string]string{"Origin": "https://client.example"})
	require.Empty(t, h.Get("Access-Control-Allow-Origin"), "CORS only under /api")

	status, _, body := send(t, http.MethodPost, srv.URL+"/api/ap/query", "{\"message\":\"bad \xff\xfe byte\"}",
		map[string]string{"Content-Type": "application/json"})
	require.Equal(t, 400, status)
	require.JSONEq(t, `{"code":400,"msg":"Request body is not valid UTF-8","data":{}}`, body)
}

// With CORS limited to named origins, only those get CORS headers and only
// their cross-origin writes pass.
func TestGuardTrustedOrigins(t *testing.T) {
	srv, _ := guardServer(t, Guard{CORS: true, Origins: []string{"https://app.example"}})
	status, h, _ := send(t, http.MethodPost, srv.URL+"/api/ap/run/cancel", `{"runId":"nope"}`,
		map[string]string{"Content-Type": "application/json", "Origin": "https://app.example", "Sec-Fetch-Site": "cross-site"})
	require.Equal(t, 404, status, "trusted: reaches the handler")
	require.Equal(t, "https://app.example", h.Get("Access-Control-Allow-Origin"))
	status, h, _ = send(t, http.MethodPost, srv.URL+"/api/ap/run/cancel", `{"runId":"nope"}`,
		map[string]string{"Content-Type": "application/json", "Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"})
	require.Equal(t, 403, status)
	require.Empty(t, h.Get("Access-Control-Allow-Origin"))
}
