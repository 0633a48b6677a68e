package server

import (
	"net"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

// Issue 14: the real app (model registry, adapter, engine) follows
// PLATFORM_API's retry rule: a failing provider sees two requests (the call
// and the one transparent reconnect), not six; a Retry-After longer than
// the engine waits ends the run at once with a model_error that says so
// (not run_timeout); a reset mid-stream is retriable and not reconnected;
// the provider's address never reaches the client.
func TestAppModelErrorsFollowTheRetryRule(t *testing.T) {
	appLeakCheck(t)
	srv := llmtest.NewServer(t)
	r := appStart(t, t.TempDir(), appEnv{"AITE_MODEL": "vllm:tiny", "AITE_VLLM_BASE_URL": srv.URL + "/v1"})
	runError := func(body string) map[string]any {
		t.Helper()
		types, last := appQuery(t, r, body)
		require.Equal(t, "run.error", last["type"], "%v", types)
		return last["error"].(map[string]any)
	}

	for _, status := range []int{http.StatusInternalServerError, http.StatusTooManyRequests} {
		before := len(srv.Requests())
		srv.SetHandler(func(llmtest.Request) llmtest.Response {
			return llmtest.Response{Status: status, Body: `{"error":{"message":"overloaded"}}`}
		})
		e := runError(`{"message": "hello", "agentKey": "demoOneshot"}`)
		require.Equal(t, "model_error", e["code"])
		require.Equal(t, true, e["retriable"])
		require.Equal(t, 2, len(srv.Requests()[before:]), "HTTP %d: the call and one reconnect", status)
	}

	before := len(srv.Requests())
	srv.SetHandler(func(llmtest.Request) llmtest.Response {
		return llmtest.Response{Status: http.StatusTooManyRequests, Header: http.Header{"Retry-After": {"120"}},
			Body: `{"error":{"message":"quota"}}`}
	})
	e := runError(`{"message": "hello", "agentKey": "demoOneshot"}`)
	require.Equal(t, "model_error", e["code"], "not run_timeout")
	require.Equal(t, true, e["retriable"])
	require.Contains(t, e["message"], "retry after 120 s")
	require.Equal(t, 1, len(srv.Requests()[before:]), "no reconnect into a Retry-After beyond the cap")

	before = len(srv.Requests())
	srv.SetHandler(func(llmtest.Request) llmtest.Response {
		return llmtest.Response{Chunks: []string{llmtest.ContentChunk("par"), llmtest.ContentChunk("tial")}, Abort: true}
	})
	e = runError(`{"message": "hello", "agentKey": "demoOneshot"}`)
	require.Equal(t, true, e["retriable"], "a reset mid-stream is a connection error (§ 3.5)")
	require.Equal(t, 1, len(srv.Requests()[before:]), "never reconnected after output")
	r.stop()
	srv.CloseClientConnections()

	// A provider that cannot be reached: its address stays in the log.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := "http://" + ln.Addr().String() + "/v1"
	require.NoError(t, ln.Close())
	r = appStart(t, t.TempDir(), appEnv{"AITE_MODEL": "vllm:tiny", "AITE_VLLM_BASE_URL": dead})
	types, last := appQuery(t, r, `{"message": "hello", "agentKey": "demoOneshot"}`)
	require.Equal(t, "run.error", last["type"], "%v", types)
	e = last["error"].(map[string]any)
	require.Equal(t, true, e["retriable"])
	require.NotContains(t, e["message"], "127.0.0.1")
	require.NotContains(t, e["message"], ln.Addr().String())
	r.stop()
}
