package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/reading"
	"github.com/aitexteditor/aite/internal/server/config"
)

// syncBuffer is a bytes.Buffer safe for a writer and a reader goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// serveEnv is an injectable environment.
type serveEnv map[string]string

func (e serveEnv) get(k string) string { return e[k] }

// serving is a running `aite serve`.
type serving struct {
	stdout, stderr *syncBuffer
	done           chan error
	cancel         context.CancelFunc
}

var urlRE = regexp.MustCompile(`http://\S+/api/ap`)

// startServe runs `aite serve args...` in wd with env until the test ends.
func startServe(t *testing.T, wd string, env serveEnv, signals []os.Signal, args ...string) *serving {
	t.Helper()
	cmd := newServeCmd(serveDeps{env: env.get, workDir: wd, signals: signals})
	s := &serving{stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan error, 1)}
	cmd.SetArgs(args)
	cmd.SetOut(s.stdout)
	cmd.SetErr(s.stderr)
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	go func() { s.done <- cmd.ExecuteContext(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			t.Error("serve did not stop")
		}
	})
	return s
}

// url waits for the startup line and returns the API base URL.
func (s *serving) url(t *testing.T) string {
	t.Helper()
	var u string
	require.Eventually(t, func() bool {
		u = urlRE.FindString(s.stdout.String())
		return u != ""
	}, 10*time.Second, 5*time.Millisecond, "stdout: %s\nstderr: %s", s.stdout, s.stderr)
	return u
}

// wait returns the command's error once it has stopped.
func (s *serving) wait(t *testing.T) error {
	t.Helper()
	select {
	case err := <-s.done:
		s.done <- err // for the cleanup
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
		return nil
	}
}

func agentKeys(t *testing.T, api string) []string {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Get(api + "/agents")
	require.NoError(t, err)
	defer resp.Body.Close()
	var env struct {
		Data []struct {
			Key string `json:"key"`
		} `json:"data"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&env))
	var keys []string
	for _, a := range env.Data {
		keys = append(keys, a.Key)
	}
	return keys
}

func TestServeStartsAndStops(t *testing.T) {
	wd := t.TempDir()
	// The flag beats the environment.
	s := startServe(t, wd, serveEnv{"AITE_DATA": "from-env"}, nil, "--addr", "127.0.0.1:0", "--data", "from-flag")
	api := s.url(t)
	require.Regexp(t, `^aite server: http://127\.0\.0\.1:(\d+)/api/ap \(data in .*from-flag; Ctrl-C stops\)\n`+
		`MCP clients: http://127\.0\.0\.1:\d+/mcp \(streamable HTTP\)\n$`, s.stdout.String())
	require.Contains(t, agentKeys(t, api), "bookEditor")
	_, err := os.Stat(filepath.Join(wd, "from-flag", "aite.db"))
	require.NoError(t, err)
	require.NoDirExists(t, filepath.Join(wd, "from-env"))
	require.Contains(t, s.stderr.String(), "no model is configured")

	s.cancel()
	require.NoError(t, s.wait(t))
	require.Contains(t, s.stderr.String(), "shutting down")
}

// webStub is a web app serving one page at /.
type webStub struct{}

func (webStub) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	_, _ = w.Write([]byte("<!doctype html>app"))
}
func (webStub) Serves(p string) bool { return p == "/" }

func TestServeWithTheWebApp(t *testing.T) {
	wd := t.TempDir()
	cmd := newServeCmd(serveDeps{env: serveEnv{}.get, workDir: wd, web: webStub{}})
	s := &serving{stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan error, 1)}
	cmd.SetArgs([]string{"--addr", "127.0.0.1:0", "--data", "d"})
	cmd.SetOut(s.stdout)
	cmd.SetErr(s.stderr)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { s.done <- cmd.ExecuteContext(ctx) }()
	api := s.url(t)
	base := strings.TrimSuffix(api, "/api/ap")
	require.Eventually(t, func() bool { return strings.HasSuffix(s.stdout.String(), "open "+base+"/\n") },
		5*time.Second, 5*time.Millisecond, s.stdout.String())
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Get(base + "/")
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, "<!doctype html>app", string(b))
	require.Contains(t, agentKeys(t, api), "bookEditor", "the API is still there")
	cancel()
	require.NoError(t, s.wait(t))
}

func TestServeStopsOnSIGTERM(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM on Windows")
	}
	wd := t.TempDir()
	s := startServe(t, wd, nil, []os.Signal{syscall.SIGTERM}, "--addr", "127.0.0.1:0", "--data", "d")
	s.url(t) // the handler is installed before the line is printed
	p, err := os.FindProcess(os.Getpid())
	require.NoError(t, err)
	require.NoError(t, p.Signal(syscall.SIGTERM))
	require.NoError(t, s.wait(t))
	require.Contains(t, s.stderr.String(), "shutting down")
}

func TestServeConfigErrors(t *testing.T) {
	wd := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(wd, "bad.json"), []byte(`{"memory": {"k": 0}}`), 0o644))
	tests := []struct {
		name string
		env  serveEnv
		args []string
		want string
	}{
		{"bad addr flag", nil, []string{"--addr", "nowhere"}, "server.addr"},
		{"bad env", serveEnv{"AITE_SSE_HEARTBEAT_MS": "-1"}, nil, "AITE_SSE_HEARTBEAT_MS"},
		{"bad file", nil, []string{"--config", "bad.json"}, "memory.k"},
		{"bad log level", nil, []string{"--log-level", "loud"}, "--log-level"},
		{"arguments", nil, []string{"extra"}, "no arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := newServeCmd(serveDeps{env: tt.env.get, workDir: wd})
			cmd.SetArgs(append(tt.args, "--data", "d"))
			cmd.SetOut(&bytes.Buffer{})
			cmd.SetErr(&bytes.Buffer{})
			err := cmd.Execute()
			require.ErrorContains(t, err, tt.want)
			var ue *reading.UsageError
			require.True(t, errors.As(err, &ue), "%T is a usage error (exit 1)", err)
			require.Equal(t, ExitUsage, ExitCode(err))
		})
	}
	require.NoDirExists(t, filepath.Join(wd, "d"), "nothing is created on a bad configuration")
}

func TestServeHelp(t *testing.T) {
	cmd := newServeCmd(serveDeps{env: serveEnv{}.get})
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"--help"})
	require.NoError(t, cmd.Execute())
	help := out.String()
	for _, k := range config.Keys() {
		require.Contains(t, help, k.Name)
		require.Contains(t, help, k.Env)
	}
	for _, f := range append([]string{"--config", "--cors", "--log-level"}, flagNames()...) {
		require.Contains(t, help, f)
	}
	for _, s := range []string{"AITE_CONFIG", "AITE_MODEL", "OPENAI_API_KEY", "./aite-data", "127.0.0.1:8080", "SIGTERM", "bookEditor"} {
		require.Contains(t, help, s)
	}
}

func flagNames() []string {
	var out []string
	for _, f := range serveFlags {
		out = append(out, "--"+f.name)
	}
	return out
}

func TestServeFlagsNameConfigKeys(t *testing.T) {
	keys := map[string]bool{}
	for _, k := range config.Keys() {
		keys[k.Name] = true
	}
	for _, f := range serveFlags {
		require.True(t, keys[f.key], "--%s names no config key %s", f.name, f.key)
	}
}

func TestDisplayAddr(t *testing.T) {
	tests := map[string]string{"0.0.0.0:80": "localhost:80", "[::]:80": "localhost:80", "127.0.0.1:8080": "127.0.0.1:8080",
		"[::1]:9": "[::1]:9"}
	for in, want := range tests {
		require.Equal(t, want, displayAddr(fakeAddr(in)), in)
	}
	require.True(t, strings.HasPrefix(displayAddr(fakeAddr("weird")), "weird"))
}

type fakeAddr string

func (a fakeAddr) Network() string { return "tcp" }
func (a fakeAddr) String() string  { return string(a) }
