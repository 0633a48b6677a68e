package llmtest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"os"
	"path/filepath"

	"github.com/aitexteditor/aite/internal/llm"
)

// RecordEnv is the environment variable that switches RecordOrReplay to
// recording: AITE_RECORD=1.
const RecordEnv = "AITE_RECORD"

// ErrNoTranscript is the error of a Replayer asked for a request it has no
// transcript for.
var ErrNoTranscript = errors.New("llmtest: no transcript")

// Transcript is one recorded model turn, stored as <dir>/<key>.json.
type Transcript struct {
	Key     string           `json:"key"`
	Request json.RawMessage  `json:"request"` // canonical JSON of the request
	Events  []llm.Event      `json:"events"`
	Error   *TranscriptError `json:"error,omitempty"`
}

// TranscriptError is a recorded stream failure.
type TranscriptError struct {
	Kind    llm.ErrorKind `json:"kind"`
	Status  int           `json:"status,omitempty"`
	Message string        `json:"message"`
}

// CanonicalJSON encodes req with sorted object keys and no whitespace
// (schemas and other raw JSON inside included), so equal requests encode
// equally.
func CanonicalJSON(req *llm.Request) ([]byte, error) {
	raw, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return json.Marshal(v) // maps encode with sorted keys
}

// Key is the hex SHA-256 of CanonicalJSON(req).
func Key(req *llm.Request) (string, error) {
	c, err := CanonicalJSON(req)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(c)
	return hex.EncodeToString(sum[:]), nil
}

// RecordOrReplay returns a Recorder around live() when AITE_RECORD=1, else
// a Replayer; both use dir. Capture once against a real server:
//
//	AITE_RECORD=1 AITE_PROVIDER_MAIN_BASE_URL=… go test ./internal/x -run TestY
//
// then commit dir (usually testdata/transcripts) and run the tests as usual:
// they replay the transcripts and never touch the network. live is only
// called when recording.
func RecordOrReplay(dir string, live func() llm.Provider) llm.Provider {
	if os.Getenv(RecordEnv) == "1" {
		return NewRecorder(live(), dir)
	}
	return NewReplayer(dir)
}

// Recorder passes a provider's streams through and writes each completed
// stream (its events and final error) as a transcript keyed by the request.
// A stream the consumer abandons early is not written.
type Recorder struct {
	p   llm.Provider
	dir string
}

// NewRecorder wraps p, writing transcripts under dir.
func NewRecorder(p llm.Provider, dir string) *Recorder { return &Recorder{p: p, dir: dir} }

// Stream relays p's stream and records it.
func (r *Recorder) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		key, err := Key(req)
		if err != nil {
			yield(llm.Event{}, fmt.Errorf("llmtest: key: %w", err))
			return
		}
		canon, _ := CanonicalJSON(req)
		t := Transcript{Key: key, Request: canon}
		for ev, err := range r.p.Stream(ctx, req) {
			if err != nil {
				t.Error = transcriptError(err)
				if werr := r.write(&t); werr != nil {
					err = errors.Join(err, werr)
				}
				yield(ev, err)
				return
			}
			t.Events = append(t.Events, copyEvent(ev))
			if !yield(ev, nil) {
				return
			}
		}
		if err := r.write(&t); err != nil {
			yield(llm.Event{}, err)
		}
	}
}

func transcriptError(err error) *TranscriptError {
	var e *llm.Error
	if errors.As(err, &e) {
		return &TranscriptError{Kind: e.Kind, Status: e.Status, Message: e.Message}
	}
	return &TranscriptError{Kind: llm.Protocol, Message: err.Error()}
}

// write stores t atomically (temporary file, then rename).
func (r *Recorder) write(t *Transcript) error {
	data, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(r.dir, t.Key+".*.tmp")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(append(data, '\n'))
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(r.dir, t.Key+".json"))
}

// Replayer serves recorded transcripts back as streams.
type Replayer struct{ dir string }

// NewReplayer reads transcripts from dir.
func NewReplayer(dir string) *Replayer { return &Replayer{dir: dir} }

// Stream replays the transcript of req. A missing transcript fails with an
// error wrapping ErrNoTranscript that names the key and the request's last
// user message.
func (r *Replayer) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		t, err := r.load(req)
		if err != nil {
			yield(llm.Event{}, err)
			return
		}
		reply := Reply{Events: t.Events}
		if t.Error != nil {
			reply.Err = &llm.Error{Kind: t.Error.Kind, Status: t.Error.Status, Message: t.Error.Message}
		}
		Play(ctx, reply, yield)
	}
}

func (r *Replayer) load(req *llm.Request) (*Transcript, error) {
	key, err := Key(req)
	if err != nil {
		return nil, fmt.Errorf("llmtest: key: %w", err)
	}
	path := filepath.Join(r.dir, key+".json")
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w for key %s (last user message %q) in %s; record it with %s=1",
			ErrNoTranscript, key, req.LastUserMessage(), r.dir, RecordEnv)
	}
	if err != nil {
		return nil, err
	}
	var t Transcript
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("llmtest: transcript %s: %w", path, err)
	}
	return &t, nil
}
