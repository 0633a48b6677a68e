package main

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

// A failing model call makes the same two requests from the command line as
// from the server (internal/server's TestAppModelErrorsFollowTheRetryRule):
// the call and its one reconnect (llm.Reconnect), with no adapter retries
// below it. That holds for the agent runtime's calls (aite ask) and for the
// cursor agent's, made outside the runtime (aite navigate).
func TestFailingModelIsReconnectedOnce(t *testing.T) {
	w := newWorld(t, func(llmtest.Request, int) llmtest.Response { return say("unused") }, nil)
	for _, status := range []int{http.StatusInternalServerError, http.StatusTooManyRequests} {
		w.srv.SetHandler(func(llmtest.Request) llmtest.Response {
			return llmtest.Response{Status: status, Body: `{"error":{"message":"overloaded"}}`}
		})
		for _, args := range [][]string{
			{"ask", w.book, "hello"},
			{"navigate", w.book, "the first paragraph", "--keywords", "Звездочкин", "--mode", "first"},
		} {
			before := len(w.srv.Requests())
			r := run(t, "", args...)
			require.NotEqual(t, 0, r.code, "%v: %s", args, r.stderr)
			require.Equal(t, 2, len(w.srv.Requests())-before, "HTTP %d, aite %s: the call and one reconnect", status, args[0])
		}
	}
}
