package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/aitexteditor/aite/internal/store"
)

// maxPayload bounds one notification's payload (PostgreSQL refuses 8000
// bytes and more); longer lists of notes are sent in several.
const maxPayload = 7900

// Reconnection of Listen: the wait after a lost connection doubles from
// listenRetryMin to listenRetryMax.
const (
	listenRetryMin = 50 * time.Millisecond
	listenRetryMax = 5 * time.Second
)

// Listen implements store.Feed: a connection of its own LISTENs on the
// schema's channel. After losing it, Listen connects again (waiting 50 ms,
// doubling up to 5 s; failures go to Options.Logger) and calls fn with the
// zero Note once it listens again.
func (s *Store) Listen(ctx context.Context, fn func(store.Note)) error {
	wait := listenRetryMin
	for {
		listened, err := s.listenOnce(ctx, fn)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if listened {
			wait = listenRetryMin
		}
		s.log.Warn("postgres: listening for run notes failed; retrying", "node", s.node, "in", wait, "err", err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, listenRetryMax)
	}
}

// listenOnce connects, listens and delivers notes until the connection
// fails or ctx is done; listened reports that it got as far as listening.
func (s *Store) listenOnce(ctx context.Context, fn func(store.Note)) (listened bool, err error) {
	conn, err := pgx.ConnectConfig(ctx, s.conn)
	if err != nil {
		return false, err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = conn.Close(cctx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{s.channel}.Sanitize()); err != nil {
		return false, err
	}
	fn(store.Note{})
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return true, err
		}
		for _, note := range decodeNotes(n.Payload) {
			fn(note)
		}
	}
}

// Announce implements store.Feed.
func (s *Store) Announce(ctx context.Context, n store.Note) error {
	if len(n.Body) > store.MaxNoteBody {
		return fmt.Errorf("%w: a note body of %d bytes, the limit is %d", store.ErrInvalid, len(n.Body), store.MaxNoteBody)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, payload := range encodeNotes([]store.Note{n}) {
		if _, err := s.pool.Exec(ctx, `SELECT pg_notify($1, $2)`, s.channel, payload); err != nil {
			return failed(ctx, err, "announcing run %q", n.RunID)
		}
	}
	return nil
}

// A note travels as a JSON array [runId, seq], [runId, seq, flags] (1:
// ended, 2: cancel) or [runId, seq, flags, body] (body in base64); one
// payload holds a JSON array of them.

// encodeNotes returns the payloads that carry notes, each under maxPayload.
func encodeNotes(notes []store.Note) []string {
	var out []string
	buf := []byte{'['}
	for _, n := range notes {
		item, _ := json.Marshal(noteWire(n))
		if len(buf) > 1 && len(buf)+len(item)+1 > maxPayload {
			out = append(out, string(append(buf, ']')))
			buf = []byte{'['}
		}
		if len(buf) > 1 {
			buf = append(buf, ',')
		}
		buf = append(buf, item...)
	}
	if len(buf) > 1 {
		out = append(out, string(append(buf, ']')))
	}
	return out
}

// The flags of a note on the wire.
const (
	flagEnded  = 1
	flagCancel = 2
)

func noteWire(n store.Note) []any {
	flags := 0
	if n.Ended {
		flags |= flagEnded
	}
	if n.Cancel {
		flags |= flagCancel
	}
	switch {
	case len(n.Body) > 0:
		return []any{n.RunID, n.Seq, flags, n.Body}
	case flags == 0:
		return []any{n.RunID, n.Seq}
	}
	return []any{n.RunID, n.Seq, flags}
}

// decodeNotes reads a payload of encodeNotes; anything else gives the zero
// Note (read everything again), never nothing.
func decodeNotes(payload string) []store.Note {
	var items [][]json.RawMessage
	if err := json.Unmarshal([]byte(payload), &items); err != nil {
		return []store.Note{{}}
	}
	out := make([]store.Note, 0, len(items))
	for _, it := range items {
		var n store.Note
		var flags int
		if len(it) < 2 || json.Unmarshal(it[0], &n.RunID) != nil || json.Unmarshal(it[1], &n.Seq) != nil || n.RunID == "" ||
			(len(it) > 2 && json.Unmarshal(it[2], &flags) != nil) || (len(it) > 3 && json.Unmarshal(it[3], &n.Body) != nil) {
			return []store.Note{{}}
		}
		n.Ended, n.Cancel = flags&flagEnded != 0, flags&flagCancel != 0
		out = append(out, n)
	}
	return out
}
