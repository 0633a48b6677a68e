package server

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aitexteditor/aite/internal/api"
)

// sseServer serves one stream per request from events; Serve's result goes
// to the returned channel.
func sseServer(t *testing.T, events chan api.Event, heartbeat time.Duration, done bool) (*httptest.Server, chan error) {
	t.Helper()
	errc := make(chan error, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		errc <- Serve(context.Background(), w, r, newChanSource(events), StreamOptions{Heartbeat: heartbeat, Done: done})
	}))
	t.Cleanup(srv.Close)
	return srv, errc
}

// chanSource is an EventSource fed by a channel: a goroutine collects the
// events; closing the channel ends the source.
type chanSource struct {
	ready  chan struct{}
	mu     sync.Mutex
	buf    []api.Event
	closed bool
}

func newChanSource(in <-chan api.Event) *chanSource {
	s := &chanSource{ready: make(chan struct{}, 1)}
	go func() {
		for e := range in {
			s.mu.Lock()
			s.buf = append(s.buf, e)
			s.mu.Unlock()
			s.signal()
		}
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		s.signal()
	}()
	return s
}

func (s *chanSource) signal() {
	select {
	case s.ready <- struct{}{}:
	default:
	}
}

func (s *chanSource) Ready() <-chan struct{} { return s.ready }

func (s *chanSource) Next(context.Context) ([]api.Event, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.buf
	s.buf = nil
	return out, s.closed && len(out) == 0, nil
}

// open starts a streaming request and returns the response and a reader on
// its body.
func open(t *testing.T, srv *httptest.Server) (*http.Response, *bufio.Reader) {
	t.Helper()
	resp, err := srv.Client().Post(srv.URL, "application/json", strings.NewReader(`{"message":"hi"}`))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp, bufio.NewReader(resp.Body)
}

// readBlock reads up to and including the next blank line.
func readBlock(t *testing.T, br *bufio.Reader) string {
	t.Helper()
	var b strings.Builder
	for {
		line, err := br.ReadString('\n')
		b.WriteString(line)
		if err != nil {
			t.Fatalf("after %q: %v", b.String(), err)
		}
		if line == "\n" {
			return b.String()
		}
	}
}

func frame(t *testing.T, e api.Event) string {
	t.Helper()
	b, err := Frame(e)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func wait(t *testing.T, errc chan error) error {
	t.Helper()
	select {
	case err := <-errc:
		return err
	case <-time.After(10 * time.Second): // a guard against hanging, not a timing assertion
		t.Fatal("Serve did not return")
		return nil
	}
}

var stream = []api.Event{
	{Seq: 1, Type: api.TypeRunStart, Timestamp: 1770863186548, Payload: api.RunStart{RunID: "mtoewf3u", ChatID: "c", AgentKey: "book"}},
	{Seq: 2, Type: api.TypeContentStart, Timestamp: 1770863186549, Payload: api.ContentStart{ContentID: "mtoewf3u_c_1", RunID: "mtoewf3u"}},
	{Seq: 7, Type: api.TypeContentDelta, Timestamp: 1770863186548, Payload: api.ContentDelta{ContentID: "mtoewf3u_c_1", Delta: "Hi <b>&ü\n"}},
	{Seq: 8, Type: api.TypeRunComplete, Timestamp: 1770863186550, Payload: api.RunComplete{RunID: "mtoewf3u", FinishReason: api.FinishStop}},
}

func TestFrameBytes(t *testing.T) {
	want := "id:7\nevent:message\ndata:{\"seq\":7,\"type\":\"content.delta\",\"timestamp\":1770863186548," +
		"\"contentId\":\"mtoewf3u_c_1\",\"delta\":\"Hi <b>&ü\\n\"}\n\n"
	if got := frame(t, stream[2]); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// TestServeStreamsEachEvent steps the producer: event i+1 is handed to Serve
// only after the client has read event i, so each event must have been
// flushed on its own.
func TestServeStreamsEachEvent(t *testing.T) {
	events := make(chan api.Event)
	srv, errc := sseServer(t, events, 0, true)
	resp, br := open(t, srv)
	wantHeaders := map[string]string{
		"Content-Type":      "text/event-stream; charset=utf-8",
		"Cache-Control":     "no-cache, no-transform",
		"X-Accel-Buffering": "no",
		"Connection":        "keep-alive",
		"Content-Encoding":  "",
		"Content-Length":    "",
	}
	if resp.StatusCode != http.StatusOK {
		t.Errorf("status %d", resp.StatusCode)
	}
	for k, v := range wantHeaders {
		if got := resp.Header.Get(k); got != v {
			t.Errorf("header %s = %q, want %q", k, got, v)
		}
	}
	for _, e := range stream {
		events <- e
		if got, want := readBlock(t, br), frame(t, e); got != want {
			t.Errorf("got %q\nwant %q", got, want)
		}
	}
	if got := readBlock(t, br); got != doneFrame {
		t.Errorf("done marker %q", got)
	}
	if rest, err := io.ReadAll(br); err != nil || len(rest) != 0 {
		t.Errorf("after [DONE]: %q, %v", rest, err)
	}
	if err := wait(t, errc); err != nil {
		t.Errorf("Serve: %v", err)
	}
}

func TestServeHeartbeatsBetweenEvents(t *testing.T) {
	events := make(chan api.Event)
	srv, errc := sseServer(t, events, time.Millisecond, false)
	_, br := open(t, srv)
	events <- stream[0]
	if got := readBlock(t, br); got != frame(t, stream[0]) {
		t.Fatalf("first block %q", got)
	}
	for range 2 { // nothing else is pending: only heartbeats can come
		if got := readBlock(t, br); got != heartbeatFrame {
			t.Fatalf("got %q, want a heartbeat", got)
		}
	}
	events <- stream[3]
	for {
		got := readBlock(t, br)
		if got == frame(t, stream[3]) {
			break
		}
		if got != heartbeatFrame {
			t.Fatalf("unexpected block %q", got)
		}
	}
	if rest, _ := io.ReadAll(br); len(rest) != 0 {
		t.Errorf("after the terminal event (no [DONE]): %q", rest)
	}
	if err := wait(t, errc); err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// batchSource hands out its batches, one per Next, then is done.
type batchSource struct{ batches [][]api.Event }

func (s *batchSource) Ready() <-chan struct{} { return nil }

func (s *batchSource) Next(context.Context) ([]api.Event, bool, error) {
	if len(s.batches) == 0 {
		return nil, true, nil
	}
	out := s.batches[0]
	s.batches = s.batches[1:]
	return out, false, nil
}

// Serve writes every event of a batch, up to and with its terminal event,
// then the [DONE] marker; an event that cannot be encoded ends the stream
// with its error after the events before it.
func TestServeWritesBatches(t *testing.T) {
	rec := httptest.NewRecorder()
	src := &batchSource{batches: [][]api.Event{stream[:2], {stream[2], stream[3], stream[2]}, {stream[2]}}}
	if err := Serve(context.Background(), rec, httptest.NewRequest("POST", "/", nil), src, StreamOptions{Done: true}); err != nil {
		t.Fatal(err)
	}
	want := frame(t, stream[0]) + frame(t, stream[1]) + frame(t, stream[2]) + frame(t, stream[3]) + doneFrame
	if got := rec.Body.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}

	bad := api.Event{Seq: 9, Type: api.TypeContentStart, Payload: map[string]any{"f": func() {}}}
	rec = httptest.NewRecorder()
	src = &batchSource{batches: [][]api.Event{{stream[0], stream[1], bad, stream[3]}}}
	if err := Serve(context.Background(), rec, httptest.NewRequest("POST", "/", nil), src, StreamOptions{}); err == nil {
		t.Error("an event that cannot be encoded is not an error")
	}
	if got, want := rec.Body.String(), frame(t, stream[0])+frame(t, stream[1]); got != want {
		t.Errorf("before the bad event: got\n%s\nwant\n%s", got, want)
	}
}

func TestServeClientDisconnect(t *testing.T) {
	events := make(chan api.Event)
	srv, errc := sseServer(t, events, 0, false)
	resp, br := open(t, srv)
	events <- stream[0]
	readBlock(t, br)
	resp.Body.Close()
	if err := wait(t, errc); !errors.Is(err, context.Canceled) {
		t.Errorf("Serve returned %v, want context.Canceled", err)
	}
}

func TestServeContextAndClosedChannel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec := httptest.NewRecorder()
	if err := Serve(ctx, rec, httptest.NewRequest("POST", "/", nil), newChanSource(make(chan api.Event)), StreamOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled ctx: %v", err)
	}
	closed := make(chan api.Event)
	close(closed)
	rec = httptest.NewRecorder()
	if err := Serve(context.Background(), rec, httptest.NewRequest("POST", "/", nil), newChanSource(closed), StreamOptions{}); err != nil {
		t.Errorf("closed channel: %v", err)
	}
	if rec.Body.Len() != 0 || !rec.Flushed || rec.Header().Get("Content-Type") != "text/event-stream; charset=utf-8" {
		t.Errorf("headers not flushed at once: %d %v", rec.Body.Len(), rec.Header())
	}
}

// TestSSEWriterConcurrentFrames writes events and heartbeats from several
// goroutines: every frame must come out whole.
func TestSSEWriterConcurrentFrames(t *testing.T) {
	rec := httptest.NewRecorder()
	sw, err := NewSSEWriter(rec, httptest.NewRequest("POST", "/", nil))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				var err error
				if (g+i)%3 == 0 {
					err = sw.Heartbeat()
				} else {
					err = sw.Write(stream[2])
				}
				if err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	want := frame(t, stream[2])
	blocks := strings.SplitAfter(rec.Body.String(), "\n\n")
	if len(blocks) != 401 || blocks[400] != "" {
		t.Fatalf("%d blocks", len(blocks))
	}
	for _, b := range blocks[:400] {
		if b != want && b != heartbeatFrame {
			t.Fatalf("torn frame %q", b)
		}
	}
}

func TestSSEWriterClientGone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	rec := httptest.NewRecorder()
	sw, err := NewSSEWriter(rec, httptest.NewRequest("POST", "/", nil).WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	for _, err := range []error{sw.Write(stream[0]), sw.Heartbeat(), sw.Done()} {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("got %v, want context.Canceled", err)
		}
	}
	if rec.Body.Len() != 0 {
		t.Errorf("wrote %q after the client left", rec.Body.String())
	}
}

type plainWriter struct{ http.ResponseWriter } // hides Flush

type unwrapWriter struct{ w http.ResponseWriter }

func (u unwrapWriter) Header() http.Header         { return u.w.Header() }
func (u unwrapWriter) Write(b []byte) (int, error) { return u.w.Write(b) }
func (u unwrapWriter) WriteHeader(code int)        { u.w.WriteHeader(code) }
func (u unwrapWriter) Unwrap() http.ResponseWriter { return u.w }

func TestNewSSEWriterFlushSupport(t *testing.T) {
	rec := httptest.NewRecorder()
	if _, err := NewSSEWriter(plainWriter{rec}, httptest.NewRequest("POST", "/", nil)); !errors.Is(err, ErrNoFlush) {
		t.Errorf("got %v, want ErrNoFlush", err)
	}
	if len(rec.Header()) != 0 || rec.Flushed {
		t.Errorf("response touched: %v", rec.Header())
	}
	rec = httptest.NewRecorder()
	if _, err := NewSSEWriter(unwrapWriter{rec}, httptest.NewRequest("POST", "/", nil)); err != nil || !rec.Flushed {
		t.Errorf("through Unwrap: %v, flushed %v", err, rec.Flushed)
	}
}
