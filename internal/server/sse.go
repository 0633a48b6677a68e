// Package server is the agent platform HTTP server of PLATFORM_API.md
// (/api/ap). This part holds the SSE layer: SSEWriter and Serve write the
// § 3.1 framing, flushed as soon as the events at hand are written, and Assembler turns the agent
// loop's events into the ordered event stream of § 3.3.
package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/aitexteditor/aite/internal/api"
)

// ErrNoFlush is returned by NewSSEWriter when the response cannot be
// flushed, so events could not be streamed.
var ErrNoFlush = errors.New("server: response writer cannot flush")

// The SSE frames without an event (§ 3.1).
const (
	heartbeatFrame = "event:heartbeat\n\n"
	doneFrame      = "event:message\ndata:[DONE]\n\n"
)

// SSEWriter writes one SSE response (CONVENTIONS habit 9): every frame is
// written whole and flushed at once, frames never interleave, and once the
// client is gone every call returns the request context's error. It is safe
// for concurrent use.
type SSEWriter struct {
	mu    sync.Mutex
	w     http.ResponseWriter
	rc    *http.ResponseController
	gone  func() error  // the request context's Err
	err   error         // sticky write error
	stall time.Duration // the write deadline of one frame (0: none)
	buf   []byte        // the frames of WriteAll, kept for the next call
}

// NewSSEWriter sets the § 3.1 headers, writes status 200 and flushes. Answer
// any 4xx before calling it; it returns ErrNoFlush, without touching the
// response, when w cannot flush.
func NewSSEWriter(w http.ResponseWriter, r *http.Request) (*SSEWriter, error) {
	if !canFlush(w) {
		return nil, ErrNoFlush
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("X-Accel-Buffering", "no")
	if r.ProtoMajor == 1 {
		h.Set("Connection", "keep-alive") // a connection-specific header: HTTP/1.x only
	}
	h.Del("Content-Length")
	h.Del("Content-Encoding")
	w.WriteHeader(http.StatusOK)
	s := &SSEWriter{w: w, rc: http.NewResponseController(w), gone: r.Context().Err}
	if err := s.rc.Flush(); err != nil {
		return nil, fmt.Errorf("server: flush SSE headers: %w", err)
	}
	return s, nil
}

// canFlush reports whether http.ResponseController can flush w, by the
// controller's own rule (FlushError, Flush or Unwrap).
func canFlush(w http.ResponseWriter) bool {
	for {
		switch t := w.(type) {
		case interface{ FlushError() error }, http.Flusher:
			return true
		case interface{ Unwrap() http.ResponseWriter }:
			w = t.Unwrap()
		default:
			return false
		}
	}
}

// Frame returns the bytes of one event (§ 3.1):
// "id:<seq>\nevent:message\ndata:<json>\n\n".
func Frame(e api.Event) ([]byte, error) {
	return appendFrame(nil, e)
}

// appendFrame appends the frame of e to b (b as it was on an error).
func appendFrame(b []byte, e api.Event) ([]byte, error) {
	data, err := e.MarshalJSON()
	if err != nil {
		return b, err
	}
	b = slices.Grow(b, len(data)+32)
	b = append(b, "id:"...)
	b = strconv.AppendInt(b, e.Seq, 10)
	b = append(b, "\nevent:message\ndata:"...)
	b = append(b, data...)
	return append(b, "\n\n"...), nil
}

// Write writes and flushes one event (WriteAll of one).
func (s *SSEWriter) Write(e api.Event) error { return s.WriteAll([]api.Event{e}, false) }

// WriteAll writes events and then flushes once: the frames reach the
// client together, each whole. With done, the [DONE] marker follows the
// last event in the same flush. An event that cannot be encoded ends the
// write with its error, after the events before it have been sent.
func (s *SSEWriter) WriteAll(events []api.Event, done bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.buf[:0]
	for _, e := range events {
		var err error
		if b, err = appendFrame(b, e); err != nil {
			if len(b) > 0 {
				err = errors.Join(err, s.writeLocked(b))
			}
			return err
		}
	}
	if done {
		b = append(b, doneFrame...)
	}
	if cap(b) <= maxKeptFrames {
		s.buf = b // kept for the next events
	}
	return s.writeLocked(b)
}

// Heartbeat writes "event:heartbeat" and a blank line (no id, no data).
func (s *SSEWriter) Heartbeat() error { return s.write([]byte(heartbeatFrame)) }

// Done writes the optional [DONE] marker that may follow a terminal event.
func (s *SSEWriter) Done() error { return s.write([]byte(doneFrame)) }

// maxKeptFrames bounds the frame buffer an SSEWriter keeps between writes.
const maxKeptFrames = 64 << 10

// write writes whole frames and flushes them under the lock.
func (s *SSEWriter) write(b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writeLocked(b)
}

// writeLocked writes and flushes b. Call with s.mu held.
func (s *SSEWriter) writeLocked(b []byte) error {
	if err := s.gone(); err != nil {
		return err
	}
	if s.err != nil {
		return s.err
	}
	if s.stall > 0 {
		s.setDeadline(time.Now().Add(s.stall))
	}
	_, err := s.w.Write(b)
	if err == nil {
		err = s.rc.Flush()
	}
	if err != nil {
		if gone := s.gone(); gone != nil {
			err = gone
		}
		s.err = err
	}
	return err
}

// setDeadline sets the connection's write deadline where the response
// supports it (http.ErrNotSupported elsewhere: no deadline).
func (s *SSEWriter) setDeadline(t time.Time) { _ = s.rc.SetWriteDeadline(t) }

// clearDeadline removes the write deadline, so that it does not outlive the
// stream on a kept-alive connection.
func (s *SSEWriter) clearDeadline() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stall > 0 {
		_ = s.rc.SetWriteDeadline(time.Time{})
	}
}

// Terminal reports whether an event type ends a run's stream.
func Terminal(typ string) bool { return typ == api.TypeRunComplete || typ == api.TypeRunError }

// EventSource is what Serve streams: a run Subscription.
type EventSource interface {
	// Next returns the events available now; done after the last one.
	Next(ctx context.Context) (events []api.Event, done bool, err error)
	// Ready receives a value when Next may have new events.
	Ready() <-chan struct{}
}

// StreamOptions tune Serve.
type StreamOptions struct {
	// Heartbeat is the interval of heartbeat frames without an event (0:
	// none).
	Heartbeat time.Duration
	// Done writes the [DONE] marker after the terminal event.
	Done bool
	// Stall is how long one frame may take to reach the client's
	// connection (its write deadline; 0: no deadline). A client that reads
	// nothing for that long is given up: the stream ends with an error and
	// the connection closes; the client may reattach with its
	// Last-Event-ID. A slow client that keeps reading is never cut off.
	Stall time.Duration
}

// Serve streams src to one client: it opens the SSE response, writes the
// events as soon as src has them (all that Next returned, then one flush),
// writes a heartbeat after
// every heartbeat interval without an event (never inside an event), and
// returns nil after a terminal event (followed by the [DONE] marker when
// asked) or when src is done. It returns the context's error when ctx ends
// or the client goes away, the write error of a frame the client did not
// take within Stall, and NewSSEWriter's error when the response cannot
// stream (nothing written).
func Serve(ctx context.Context, w http.ResponseWriter, r *http.Request, src EventSource, opts StreamOptions) error {
	sw, err := NewSSEWriter(w, r)
	if err != nil {
		return err
	}
	sw.stall = opts.Stall
	defer sw.clearDeadline()
	var tick <-chan time.Time
	rearm := func() {}
	if opts.Heartbeat > 0 {
		t := time.NewTimer(opts.Heartbeat)
		defer t.Stop()
		tick, rearm = t.C, func() { t.Reset(opts.Heartbeat) }
	}
	for {
		events, done, err := src.Next(ctx)
		if err != nil {
			return err
		}
		end := slices.IndexFunc(events, func(e api.Event) bool { return Terminal(e.Type) })
		if end >= 0 {
			return sw.WriteAll(events[:end+1], opts.Done)
		}
		if len(events) > 0 {
			if err := sw.WriteAll(events, false); err != nil {
				return err
			}
		}
		if done {
			return nil
		}
		if len(events) > 0 {
			rearm()
			continue
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-r.Context().Done():
			return r.Context().Err()
		case <-tick:
			if err := sw.Heartbeat(); err != nil {
				return err
			}
			rearm()
		case <-src.Ready():
		}
	}
}
