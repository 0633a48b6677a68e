package editor

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/aitexteditor/aite/internal/search"
	"github.com/aitexteditor/aite/internal/testbook"
)

// BenchmarkStateLoad5MB times what the recorded item IDs add to a command
// on a 5 MB book, as a ratio to the whole command in the same run. The
// command is what `aite find BOOK Симонов` does: open the book (read, parse,
// load its state) and search. The state part is reading the state file,
// checking the file's hash and restoring the IDs (readRecord + adopt); it
// is timed on its own right after each command. "carried" times the same
// after another program changed one paragraph (hashing every item, aligning
// and writing the state anew), against the same command.
func BenchmarkStateLoad5MB(b *testing.B) {
	src := testbook.Big(b, 5<<20)
	path := filepath.Join(b.TempDir(), "big.md")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		b.Fatal(err)
	}
	if _, err := New().Open(path); err != nil { // records the state
		b.Fatal(err)
	}
	var command, state, carry time.Duration
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		s := New()
		if _, err := s.Open(path); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Search(path, "Симонов", Ranked, search.Options{Limit: 20}); err != nil {
			b.Fatal(err)
		}
		command += time.Since(t0)

		d := markdown.Parse(src)
		t1 := time.Now()
		rec, err := readRecord(path)
		if err != nil || rec == nil {
			b.Fatal(err)
		}
		if origin, _ := adopt(d, rec, ""); origin != IDsRecorded {
			b.Fatalf("the state was not used: %s", origin)
		}
		state += time.Since(t1)

		changed := markdown.Parse(append([]byte("Вставка другой программой.\n\n"), src...))
		t2 := time.Now()
		if origin, _ := adopt(changed, rec, ""); origin != IDsCarried {
			b.Fatalf("not carried: %s", origin)
		}
		if err := writeRecord(filepath.Join(b.TempDir(), "other.md"), recordOf(changed, "")); err != nil {
			b.Fatal(err)
		}
		carry += time.Since(t2)
	}
	b.ReportMetric(float64(command.Milliseconds())/float64(b.N), "command-ms/op")
	b.ReportMetric(float64(state.Microseconds())/1000/float64(b.N), "state-ms/op")
	b.ReportMetric(float64(state)/float64(command), "state/command")
	b.ReportMetric(float64(carry)/float64(command), "carried/command")
	b.ReportMetric(float64(len(src))/(1<<20), "MB")
}
