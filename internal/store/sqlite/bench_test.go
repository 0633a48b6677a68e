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
