package openai

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"sync"
	"time"
)

// maxEventBytes bounds one SSE line or event.
const maxEventBytes = 16 << 20

// errEventTooLarge reports an SSE line or event over maxEventBytes.
var errEventTooLarge = errors.New("SSE event too large")

// sseReader returns the data payloads of a text/event-stream body, one per
// event: "data:" lines are joined with "\n"; comments and other fields are
// ignored; events whose data is blank are skipped; "[DONE]" ends the stream
// like the end of the body. It replaces the SDK's decoder, which fails the
// whole stream on a blank data line and decodes every chunk by reflection.
type sseReader struct {
	r    *bufio.Reader
	line []byte // a line longer than the buffer, assembled
	data []byte // the current event's data
}

// readers recycles the buffers of the readers of ended streams: a server
// streaming many runs would otherwise allocate one per model call. 4 KiB,
// the HTTP transport's own read buffer: a read of the body returns at most
// that much anyway (the chunked reader reads from the transport's buffer),
// so a larger buffer gains nothing and costs clearing and collecting when
// the pool, emptied by the collector, has none to give; a longer line is
// assembled (readLine).
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 4<<10) }}

func newSSEReader(body io.Reader) *sseReader {
	r := readers.Get().(*bufio.Reader)
	r.Reset(body)
	return &sseReader{r: r}
}

// release gives the buffer back once the stream is done with; nothing read
// may be used after it.
func (s *sseReader) release() {
	if s.r != nil {
		s.r.Reset(nil)
		readers.Put(s.r)
		s.r = nil
	}
}

// What drain reads after [DONE] at most, and how long it waits for it.
const (
	drainBytes = 4 << 10
	drainWait  = 50 * time.Millisecond
)

// drain reads what follows [DONE], normally only the end of the chunked
// body, so that the HTTP transport keeps the connection for the next call
// instead of closing it (over HTTP/1.1 a body closed before its end takes
// its connection with it: one TCP, and over TLS one TLS, handshake per
// model call; HTTP/2, which most TLS endpoints speak, keeps it anyway). A server that sends more than drainBytes after [DONE], or does not
// end the response within drainWait, gets its connection closed as before:
// cancel, the request context's, ends the read.
func (s *sseReader) drain(cancel context.CancelFunc) {
	t := time.AfterFunc(drainWait, cancel)
	defer t.Stop()
	_, _ = io.CopyN(io.Discard, s.r, drainBytes)
}

// next returns the next non-blank data payload (valid until the following
// call), or io.EOF at [DONE] or at the end of the body.
func (s *sseReader) next() ([]byte, error) {
	s.data = s.data[:0]
	has := false
	for {
		line, err := s.readLine()
		if err == io.EOF && has {
			line, err = nil, nil // the last event lacks its blank line
		}
		if err != nil {
			return nil, err
		}
		if len(line) > 0 {
			has = s.field(line, has) || has
			if len(s.data) > maxEventBytes {
				return nil, errEventTooLarge
			}
			continue
		}
		payload := bytes.TrimSpace(s.data)
		switch {
		case !has || len(payload) == 0:
			s.data, has = s.data[:0], false
		case bytes.Equal(payload, []byte("[DONE]")):
			return nil, io.EOF
		default:
			return s.data, nil
		}
	}
}

// field applies one non-empty line; it reports whether the line was data.
// has says whether the event already has data (lines are joined by "\n").
func (s *sseReader) field(line []byte, has bool) bool {
	name, value, _ := bytes.Cut(line, []byte(":"))
	if string(name) != "data" {
		return false // a comment, event:, id: or retry:
	}
	value, _ = bytes.CutPrefix(value, []byte(" "))
	if has {
		s.data = append(s.data, '\n')
	}
	s.data = append(s.data, value...)
	return true
}

// readLine returns the next line without its line ending; io.EOF when the
// body ends (a final unterminated line is returned first).
func (s *sseReader) readLine() ([]byte, error) {
	line, err := s.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		s.line = append(s.line[:0], line...)
		for err == bufio.ErrBufferFull {
			if len(s.line) > maxEventBytes {
				return nil, errEventTooLarge
			}
			line, err = s.r.ReadSlice('\n')
			s.line = append(s.line, line...)
		}
		line = s.line
	}
	if err != nil && (err != io.EOF || len(line) == 0) {
		return nil, err
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r")), nil
}
