package sqlite_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/aitexteditor/aite/internal/store"
	"github.com/aitexteditor/aite/internal/store/sqlite"
)

// BenchmarkAppendEvents appends batches of 20 SSE-sized events to one run, one transaction per
// batch (what a run's flusher does every storage.eventFlushMs), and reports events/s. The
// database lives in $TMPDIR: point it at the real disk to measure fsync (tmpfs makes FULL and
// NORMAL look alike).
func BenchmarkAppendEvents(b *testing.B) {
	for _, mode := range []sqlite.Synchronous{sqlite.SyncFull, sqlite.SyncNormal} {
		b.Run("sync="+string(mode), func(b *testing.B) {
			s, err := sqlite.Open(filepath.Join(b.TempDir(), "bench.db"), sqlite.WithSynchronous(mode))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			if err := s.CreateChat(bg, store.Chat{ID: "c1"}); err != nil {
				b.Fatal(err)
			}
			if err := s.CreateRun(bg, store.Run{ID: "r1", ChatID: "c1"}); err != nil {
				b.Fatal(err)
			}
			const size = 20
			batch := make([]store.Event, size)
			seq := int64(1)
			for b.Loop() {
				for i := range batch {
					batch[i] = killEvent(seq)
					seq++
				}
				if err := s.AppendEvents(bg, "r1", batch...); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(seq-1)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// killEvent builds event seq of run r1, shaped like a content.delta on the wire.
func killEvent(seq int64) store.Event {
	body := fmt.Sprintf(`{"seq":%d,"type":"content.delta","timestamp":%d,"contentId":"r1_c_1","delta":"tok %d"}`, seq, 1770863186000+seq, seq)
	return store.Event{Seq: seq, Type: "content.delta", Timestamp: 1770863186000 + seq, Body: json.RawMessage(body)}
}

// BenchmarkAppendEventLogs is the server's group commit under load: each transaction stores one
// or two events of each of 100 running runs (AppendEventLogs), and reports events/s.
func BenchmarkAppendEventLogs(b *testing.B) {
	s, err := sqlite.Open(filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateChat(bg, store.Chat{ID: "c1"}); err != nil {
		b.Fatal(err)
	}
	const runs = 100
	for i := range runs {
		if err := s.CreateRun(bg, store.Run{ID: fmt.Sprintf("r%03d", i), ChatID: "c1"}); err != nil {
			b.Fatal(err)
		}
	}
	seq := int64(1)
	n := 0
	for b.Loop() {
		var group []store.Event
		for i := range runs {
			for k := range 1 + i%2 {
				e := killEvent(seq + int64(k))
				e.RunID = fmt.Sprintf("r%03d", i)
				group = append(group, e)
			}
		}
		// Odd runs get two events per group: keep every run's seqs increasing.
		if err := s.AppendEventLogs(bg, group...); err != nil {
			b.Fatal(err)
		}
		seq += 2
		n += len(group)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "events/s")
}
