package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

// reply is one scripted HTTP response of the fake server.
type reply struct {
	status int               // 0 = 200 with an SSE body
	header map[string]string // extra response headers
	body   string            // the body of an error status
	frames []string          // SSE frames, written and flushed one by one
	// gate, when set, is awaited before frame gateAt is written.
	gate   chan struct{}
	gateAt int
	hang   bool // after the frames, wait until the client goes away
	abort  bool // after the frames, break the connection
}

// captured is one request the fake server received.
type captured struct {
	path   string
	header http.Header
	body   string
}

// fakeServer answers each request with the next scripted reply (the last one
// repeats).
type fakeServer struct {
	*httptest.Server
	mu      sync.Mutex
	replies []reply
	reqs    []captured
}

func newServer(t *testing.T, replies ...reply) *fakeServer {
	t.Helper()
	s := &fakeServer{replies: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	n := len(s.reqs)
	s.reqs = append(s.reqs, captured{path: r.URL.Path, header: r.Header.Clone(), body: string(body)})
	rep := s.replies[min(n, len(s.replies)-1)]
	s.mu.Unlock()
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	if rep.status != 0 && rep.status != http.StatusOK {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rep.status)
		_, _ = io.WriteString(w, rep.body)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	for i, f := range rep.frames {
		if rep.gate != nil && i == rep.gateAt {
			select {
			case <-rep.gate:
			case <-r.Context().Done():
				return
			}
		}
		_, _ = io.WriteString(w, f)
		w.(http.Flusher).Flush()
	}
	if rep.hang {
		<-r.Context().Done()
	}
	if rep.abort {
		panic(http.ErrAbortHandler)
	}
}

// requests returns the captured requests.
func (s *fakeServer) requests() []captured {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]captured(nil), s.reqs...)
}

// newTestProvider returns a Provider for s with a fake sleep; mod adjusts the
// config.
func newTestProvider(s *fakeServer, sl *llmtest.Sleeps, mod ...func(*Config)) *Provider {
	cfg := Config{BaseURL: s.URL, APIKey: "sk-ant-test-secret-123", Sleep: sl.Sleep, RetryBaseDelay: 100 * time.Millisecond}
	for _, m := range mod {
		m(&cfg)
	}
	return New(cfg)
}

// collect runs the stream to its end.
func collect(ctx context.Context, p llm.Provider, req *llm.Request) ([]llm.Event, error) {
	var evs []llm.Event
	for ev, err := range p.Stream(ctx, req) {
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

func simpleRequest() *llm.Request {
	return &llm.Request{Model: "claude-test", Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}
}

// frame is one SSE frame as Anthropic writes it.
func frame(name, data string) string { return "event: " + name + "\ndata: " + data + "\n\n" }

func msgStart(input, cacheRead, cacheWrite int) string {
	return frame("message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":"msg_1","type":"message",`+
		`"role":"assistant","model":"claude-test","content":[],"stop_reason":null,"stop_sequence":null,`+
		`"usage":{"input_tokens":%d,"cache_read_input_tokens":%d,"cache_creation_input_tokens":%d,"output_tokens":1}}}`,
		input, cacheRead, cacheWrite))
}

func ping() string { return frame("ping", `{"type": "ping"}`) }

func textStart(i int) string {
	return frame("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}`, i))
}

func textDelta(i int, s string) string {
	return frame("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%s}}`, i, llmtest.Quote(s)))
}

func thinkingStart(i int) string {
	return frame("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"thinking","thinking":"","signature":""}}`, i))
}

func thinkingDelta(i int, s string) string {
	return frame("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"thinking_delta","thinking":%s}}`, i, llmtest.Quote(s)))
}

func signatureDelta(i int) string {
	return frame("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"signature_delta","signature":"EqQBCgIYAhIM1gbcDa9GJwZA2b3h"}}`, i))
}

func toolStart(i int, id, name string) string {
	return frame("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":%s,"name":%s,"input":{}}}`, i, llmtest.Quote(id), llmtest.Quote(name)))
}

func jsonDelta(i int, s string) string {
	return frame("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%s}}`, i, llmtest.Quote(s)))
}

func blockStop(i int) string {
	return frame("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i))
}

func msgDelta(stop string, output int) string {
	return frame("message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%s,"stop_sequence":null},"usage":{"output_tokens":%d}}`, llmtest.Quote(stop), output))
}

func msgStop() string { return frame("message_stop", `{"type":"message_stop"}`) }

func errorEvent(typ, msg string) string {
	return frame("error", fmt.Sprintf(`{"type":"error","error":{"type":%s,"message":%s}}`, llmtest.Quote(typ), llmtest.Quote(msg)))
}

// textReply is a complete text answer made of the given deltas.
func textReply(deltas ...string) reply {
	frames := []string{msgStart(10, 0, 0), ping(), textStart(0)}
	for _, d := range deltas {
		frames = append(frames, textDelta(0, d))
	}
	frames = append(frames, blockStop(0), msgDelta("end_turn", 5), msgStop())
	return reply{frames: frames}
}

// errorBodyJSON is an Anthropic error response body.
func errorBodyJSON(typ, msg string) string {
	return fmt.Sprintf(`{"type":"error","error":{"type":%s,"message":%s},"request_id":"req_1"}`, llmtest.Quote(typ), llmtest.Quote(msg))
}

// field returns the raw JSON of one top-level field of a request body ("" when
// absent).
func field(t *testing.T, body, name string) string {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(body), &m))
	return string(m[name])
}
