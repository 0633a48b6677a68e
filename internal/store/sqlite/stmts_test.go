package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/aitexteditor/aite/internal/store"
)

// TestWriterStatementsArePrepared: on a migrated database every statement
// of writerStatements is prepared at Open (one that is not would be parsed
// at every call, silently slower).
func TestWriterStatementsArePrepared(t *testing.T) {
	s := openTemp(t)
	for _, q := range writerStatements() {
		if s.ws[q] == nil {
			t.Errorf("not prepared: %q", q)
		}
	}
}

// A group commit larger than the biggest prepared INSERT is stored whole,
// in order, through INSERTs of several sizes (700 = 256+256+128+32+16+8+4).
func TestAppendEventLogsInPowerOfTwoInserts(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	now := time.Now()
	if err := s.CreateChat(ctx, store.Chat{ID: "c", Name: "c", CreatedAt: now, UpdatedAt: now}); err != nil {
		t.Fatal(err)
	}
	runs := []string{"r1", "r2", "r3"}
	for _, r := range runs {
		if err := s.CreateRun(ctx, store.Run{ID: r, ChatID: "c", Status: store.RunRunning, StartedAt: now}); err != nil {
			t.Fatal(err)
		}
	}
	var batch []store.Event
	for i := range 700 {
		run := runs[i%3]
		batch = append(batch, store.Event{RunID: run, Seq: int64(i/3 + 1), Type: "content.delta", Timestamp: int64(i),
			Body: json.RawMessage(fmt.Sprintf(`{"i":%d}`, i))})
	}
	if err := s.AppendEventLogs(ctx, batch...); err != nil {
		t.Fatal(err)
	}
	n := 0
	for k, r := range runs {
		got, err := s.ListEvents(ctx, r, 0)
		if err != nil {
			t.Fatal(err)
		}
		for j, e := range got {
			if want := fmt.Sprintf(`{"i":%d}`, 3*j+k); e.Seq != int64(j+1) || string(e.Body) != want {
				t.Fatalf("run %s event %d: seq %d body %s, want seq %d body %s", r, j, e.Seq, e.Body, j+1, want)
			}
		}
		n += len(got)
	}
	if n != 700 {
		t.Fatalf("%d events stored, want 700", n)
	}
}
