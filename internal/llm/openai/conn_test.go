package openai_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
	"github.com/aitexteditor/aite/internal/llm/openai"
)

// sseServer answers every request with one content delta and [DONE], then
// runs after (nil: the response ends); it counts the connections it
// accepted.
func sseServer(t *testing.T, after func(*http.Request)) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: "+llmtest.ContentChunk("a")+"\n\ndata: "+llmtest.FinishChunk("stop")+"\n\ndata: [DONE]\n\n")
		_ = http.NewResponseController(w).Flush()
		if after != nil {
			after(r)
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &conns
}

// A stream that ended at [DONE] leaves its connection to the next call,
// so calls in a row use one connection; a server that keeps the response
// open after [DONE] does not hold the stream up: it ends all the same, and
// its connection is closed (the next call opens another).
func TestStreamConnectionAfterDone(t *testing.T) {
	cases := []struct {
		name      string
		after     func(*http.Request)
		wantConns int64
	}{
		{"response ends: one connection", nil, 1},
		{"response held open: one per call", func(r *http.Request) { <-r.Context().Done() }, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv, conns := sseServer(t, c.after)
			p := openai.New(openai.Config{BaseURL: srv.URL, MaxRetries: -1, HTTPClient: srv.Client()})
			for range 3 {
				evs, err := drain(p.Stream(context.Background(), userRequest("hi")))
				require.NoError(t, err)
				require.Equal(t, []llm.Event{text("a"), finish(llm.FinishStop)}, evs)
			}
			require.Equal(t, c.wantConns, conns.Load(), "connections opened for 3 calls")
		})
	}
}
