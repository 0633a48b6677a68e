// Package server is the agent platform HTTP server of PLATFORM_API.md
// (/api/ap). This part holds the SSE layer: SSEWriter and Serve write the
// § 3.1 framing with one flush per event, and Assembler turns the agent
// loop's events into the ordered event stream of § 3.3.
package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
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
	mu   sync.Mutex
	w    http.ResponseWriter
	rc   *http.ResponseController
	gone func() error // the request context's Err
	err  error        // sticky write error
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
	data, err := e.MarshalJSON()
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(data)+32)
	b = append(b, "id:"...)
	b = strconv.AppendInt(b, e.Seq, 10)
	b = append(b, "\nevent:message\ndata:"...)
	b = append(b, data...)
	return append(b, "\n\n"...), nil
}

// Write writes and flushes one event.
func (s *SSEWriter) Write(e api.Event) error {
	b, err := Frame(e)
	if err != nil {
		return err
	}
	return s.write(b)
}

// Heartbeat writes "event:heartbeat" and a blank line (no id, no data).
func (s *SSEWriter) Heartbeat() error { return s.write([]byte(heartbeatFrame)) }

// Done writes the optional [DONE] marker that may follow a terminal event.
func (s *SSEWriter) Done() error { return s.write([]byte(doneFrame)) }

// write writes one whole frame and flushes it under the lock.
func (s *SSEWriter) write(b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.gone(); err != nil {
		return err
	}
	if s.err != nil {
		return s.err
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

// Terminal reports whether an event type ends a run's stream.
func Terminal(typ string) bool { return typ == api.TypeRunComplete || typ == api.TypeRunError }

// Serve streams events to one client: it opens the SSE response, writes each
// event as it arrives (flushed before the next is read), writes a heartbeat
// after every heartbeat interval without an event (never inside an event; 0
// turns heartbeats off), and returns nil after a terminal event (followed by
// the [DONE] marker when done is set) or when events is closed. It returns
// the context's error when ctx ends or the client goes away, and
// NewSSEWriter's error when the response cannot stream (nothing written).
func Serve(ctx context.Context, w http.ResponseWriter, r *http.Request, events <-chan api.Event, heartbeat time.Duration, done bool) error {
	sw, err := NewSSEWriter(w, r)
	if err != nil {
		return err
	}
	var tick <-chan time.Time
	rearm := func() {}
	if heartbeat > 0 {
		t := time.NewTimer(heartbeat)
		defer t.Stop()
		tick, rearm = t.C, func() { t.Reset(heartbeat) }
	}
	return pump(ctx, r.Context(), sw, events, done, tick, rearm)
}

// pump is Serve's loop; rearm restarts the heartbeat timer.
func pump(ctx, client context.Context, sw *SSEWriter, events <-chan api.Event, done bool, tick <-chan time.Time, rearm func()) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-client.Done():
			return client.Err()
		case <-tick:
			if err := sw.Heartbeat(); err != nil {
				return err
			}
			rearm()
		case e, ok := <-events:
			if !ok {
				return nil
			}
			if err := sw.Write(e); err != nil {
				return err
			}
			if Terminal(e.Type) {
				if done {
					return sw.Done()
				}
				return nil
			}
			rearm()
		}
	}
}
