package editor

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/aitexteditor/aite/internal/document"
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

// BenchmarkSessionEdit times one edit of a book file open in a session
// (Session.Edit: a paragraph replaced, its index kept up to date), spread
// over the whole book, on the 5.6 MB novel and, with
// AITE_BENCH_SIZES=1,2,4,8, on 2, 4 and 8 times it; the index comes from
// the cache as a command finds it. Reported beside the edit's
// min/median/max: the median markdown.Parse of the same book in the same
// process, and the ratio of the medians. Flat as the book grows means the
// edit costs the same at every size.
//
//	AITE_BENCH_SIZES=1,2,4,8 go test ./internal/editor -run XXX -bench SessionEdit -benchtime 400x
func BenchmarkSessionEdit(b *testing.B) {
	for _, m := range testbook.Sizes(b) {
		b.Run(fmt.Sprintf("%dx", m), func(b *testing.B) {
			src := testbook.Sized(b, m*testbook.NovelSize)
			path := filepath.Join(b.TempDir(), "novel.md")
			if err := os.WriteFile(path, src, 0o644); err != nil {
				b.Fatal(err)
			}
			s := New()
			if _, err := s.Open(path); err != nil {
				b.Fatal(err)
			}
			if _, err := s.Search(path, "Симонов", Ranked, search.Options{Limit: 20}); err != nil {
				b.Fatal(err)
			}
			if err := s.Close(path); err != nil { // the cache, with the index
				b.Fatal(err)
			}
			s = New()
			if info, err := s.Open(path); err != nil || !info.Cached {
				b.Fatalf("not from the cache: %v", err)
			}
			views, total, err := s.ItemsAt(path, 0, 1<<31-1)
			if err != nil {
				b.Fatal(err)
			}
			var paras []string
			for _, v := range views[:total] {
				if v.Kind == document.Paragraph {
					paras = append(paras, strconv.Itoa(v.ID)+":")
				}
			}
			stride := max(1, len(paras)/997)
			edits := make([]time.Duration, 0, b.N)
			for i := 0; b.Loop(); i++ {
				text := fmt.Sprintf("Edited paragraph %d, one sentence long.", i)
				t0 := time.Now()
				if _, err := s.Edit(path, document.OpReplace, paras[i*stride%len(paras)], text); err != nil {
					b.Fatal(err)
				}
				edits = append(edits, time.Since(t0))
			}
			parses := make([]time.Duration, 5)
			for i := range parses {
				t0 := time.Now()
				markdown.Parse(src)
				parses[i] = time.Since(t0)
			}
			slices.Sort(parses)
			slices.Sort(edits)
			med, parse := edits[len(edits)/2], parses[len(parses)/2]
			b.ReportMetric(float64(edits[0].Microseconds()), "min-µs")
			b.ReportMetric(float64(med.Microseconds()), "median-µs")
			b.ReportMetric(float64(edits[len(edits)-1].Microseconds()), "max-µs")
			b.ReportMetric(float64(parse.Microseconds())/1000, "parse-ms")
			b.ReportMetric(float64(med)/float64(parse), "edit/parse")
			b.ReportMetric(0, "ns/op")
		})
	}
}
