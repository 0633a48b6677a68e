package reading

import (
	"testing"
	"time"

	"github.com/aitexteditor/aite/internal/bookview"
	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/aitexteditor/aite/internal/testbook"
	"github.com/aitexteditor/aite/internal/textnorm"
)

// BenchmarkHighlight times the excerpt of one hit of `aite find` (the
// words matching the query wrapped in ** **), over every item of the
// 5.6 MB novel holding a common word, and reports it per hit and as a
// share of the whole find (open, search, excerpts) in the same run.
func BenchmarkHighlight(b *testing.B) {
	d := markdown.Parse(testbook.Sized(b, testbook.NovelSize))
	for _, q := range []string{"человек", "Симонов", "the"} {
		b.Run(q, func(b *testing.B) {
			bk := NewBook(bookview.New(d, nil), false)
			f, err := bk.Find(FindRequest{Words: []string{q}, Mode: FindKeyword})
			if err != nil {
				b.Fatal(err)
			}
			m := textnorm.NewMatcher(q)
			var hl, find time.Duration
			for b.Loop() {
				t0 := time.Now()
				for _, h := range f.Results {
					Highlight(h.Kind, 0, h.Text, m, ExcerptRunes)
				}
				t1 := time.Now()
				if _, err := bk.Find(FindRequest{Words: []string{q}, Mode: FindKeyword}); err != nil {
					b.Fatal(err)
				}
				hl, find = hl+t1.Sub(t0), find+time.Since(t1)
			}
			b.ReportMetric(float64(hl.Microseconds())/float64(b.N*len(f.Results)), "µs/hit")
			b.ReportMetric(float64(hl)/float64(find), "highlight/find")
			b.ReportMetric(float64(len(f.Results)), "hits")
		})
	}
}
