package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/aitexteditor/aite/internal/llm/openai"
)

// Response is one scripted HTTP reply of a Server.
type Response struct {
	Status int         // 0 or 2xx: an SSE stream; >= 400: an error response
	Header http.Header // extra response headers, e.g. Retry-After
	Body   string      // body of an error response
	Chunks []string    // SSE payloads, each written as "data: <chunk>\n\n" and flushed
	Raw    bool        // write Chunks verbatim instead (whole frames, comments, broken lines)
	NoDone bool        // omit the final "data: [DONE]\n\n"
	Delay  time.Duration
	Hang   bool // after the chunks, hold the connection open until the client goes away
	Abort  bool // after the chunks, cut the connection without finishing the response
}

// Request is one request the Server received.
type Request struct {
	N      int // 1-based arrival number
	Method string
	Path   string
	Header http.Header // as received, Authorization included
	Body   []byte
	JSON   map[string]any // Body decoded, nil when not a JSON object
}

// Server is a fake OpenAI-compatible endpoint (httptest) that streams
// scripted SSE chunks exactly as given, flushing after each. It answers
// requests with the queued Responses in order, or with a handler func. It is
// safe for concurrent use.
type Server struct {
	*httptest.Server
	mu      sync.Mutex
	queue   []Response
	handler func(Request) Response
	reqs    []Request
}

// NewServer starts a Server that answers with responses in order and, once
// they are used up, with HTTP 400 naming the request number. It is closed
// when the test ends.
func NewServer(t testing.TB, responses ...Response) *Server {
	s := &Server{queue: responses}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// NewServerFunc starts a Server whose replies come from fn (dynamic replies,
// oracles). fn may be called concurrently.
func NewServerFunc(t testing.TB, fn func(Request) Response) *Server {
	s := NewServer(t)
	s.handler = fn
	return s
}

// SetHandler makes fn answer every later request (dynamic replies that
// depend on the request, e.g. on ids the server assigned); queued responses
// are then ignored. fn may be called concurrently.
func (s *Server) SetHandler(fn func(Request) Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handler = fn
}

// Enqueue appends responses to the script.
func (s *Server) Enqueue(responses ...Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, responses...)
}

// Requests returns the requests received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Provider returns an adapter pointed at the server, with retries that do
// not sleep. cfg's BaseURL, HTTPClient and (when nil) Sleep are filled in.
func (s *Server) Provider(cfg openai.Config) *openai.Provider {
	cfg.BaseURL = s.URL
	cfg.HTTPClient = s.Client()
	if cfg.Sleep == nil {
		cfg.Sleep = NoSleep
	}
	return openai.New(cfg)
}

// serve records the request and writes the chosen response.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rec := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	if err := json.Unmarshal(body, &rec.JSON); err != nil {
		rec.JSON = nil
	}
	resp := s.next(&rec)
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	if resp.Status >= 300 {
		writeError(w, resp)
		return
	}
	writeStream(w, r, resp)
}

// next records rec and picks its response.
func (s *Server) next(rec *Request) Response {
	s.mu.Lock()
	rec.N = len(s.reqs) + 1
	s.reqs = append(s.reqs, *rec)
	handler := s.handler
	var resp Response
	ok := len(s.queue) > 0
	if ok {
		resp, s.queue = s.queue[0], s.queue[1:]
	}
	s.mu.Unlock()
	switch {
	case handler != nil:
		return handler(*rec)
	case ok:
		return resp
	}
	return Response{Status: http.StatusBadRequest,
		Body: fmt.Sprintf(`{"error":{"message":"llmtest.Server: no response scripted for request #%d"}}`, rec.N)}
}

func writeError(w http.ResponseWriter, resp Response) {
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(resp.Status)
	_, _ = io.WriteString(w, resp.Body)
}

// writeStream writes the SSE response, flushing after every frame.
func writeStream(w http.ResponseWriter, r *http.Request, resp Response) {
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(max(resp.Status, http.StatusOK))
	_ = rc.Flush()
	for _, c := range resp.Chunks {
		if resp.Delay > 0 && !wait(r, resp.Delay) {
			return
		}
		frame := c
		if !resp.Raw {
			frame = "data: " + c + "\n\n"
		}
		if _, err := io.WriteString(w, frame); err != nil {
			return
		}
		_ = rc.Flush()
	}
	if resp.Abort {
		panic(http.ErrAbortHandler)
	}
	if resp.Hang {
		<-r.Context().Done()
		return
	}
	if !resp.NoDone {
		_, _ = io.WriteString(w, "data: [DONE]\n\n")
		_ = rc.Flush()
	}
}

// wait sleeps d unless the client goes away first.
func wait(r *http.Request, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}
