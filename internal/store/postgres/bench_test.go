package postgres_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/aitexteditor/aite/internal/store"
	"github.com/aitexteditor/aite/internal/store/postgres/pgtest"
)

// BenchmarkAppendEventLogs times one group commit of the run manager on
// PostgreSQL: one content delta for each of 200 runs in one AppendEventLogs
// (locks, checks, insert, note, commit).
//
//	AITE_TEST_POSTGRES=postgres://… go test -run '^$' -bench AppendEventLogs ./internal/store/postgres/
func BenchmarkAppendEventLogs(b *testing.B) {
	const runs = 200
	s := pgtest.Open(b, pgtest.DSN(b), "bench")
	if _, err := s.RenewLease(bg, time.Hour); err != nil {
		b.Fatal(err)
	}
	if err := s.CreateChat(bg, store.Chat{ID: "c"}); err != nil {
		b.Fatal(err)
	}
	for i := range runs {
		if err := s.CreateRun(bg, store.Run{ID: fmt.Sprint("r", i), ChatID: "c"}); err != nil {
			b.Fatal(err)
		}
	}
	body := json.RawMessage(`{"seq":1,"type":"content.delta","timestamp":1770863186548,"contentId":"mtoewf3u_c_1","delta":"<12:1770863186548000000>"}`)
	group := make([]store.Event, runs)
	b.ResetTimer()
	for i := range b.N {
		for r := range group {
			group[r] = store.Event{RunID: fmt.Sprint("r", r), Seq: int64(i + 1), Type: "content.delta", Timestamp: 1, Body: body}
		}
		if err := s.AppendEventLogs(bg, group...); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*runs)/b.Elapsed().Seconds(), "events/s")
}
