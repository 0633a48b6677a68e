package cursor

import (
	"testing"
	"time"

	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/aitexteditor/aite/internal/search"
	"github.com/aitexteditor/aite/internal/testbook"
)

// BenchmarkKeywordWalk walks a keyword cursor over the ~5 MB book to the
// end once indexed and reports book megabytes per second (target ≥ 200).
func BenchmarkKeywordWalk(b *testing.B) {
	for _, kw := range []string{"Elizabeth", "человек", "Darcy Elizabeth"} {
		b.Run(kw, func(b *testing.B) {
			src := testbook.Big(b, 5<<20)
			d := markdown.Parse(src)
			x := search.Build(d)
			b.SetBytes(int64(len(src)))
			b.ResetTimer()
			items := 0
			for i := 0; i < b.N; i++ {
				r := &Registry{cursors: map[string]*Cursor{}, targets: map[string]*targetSet{}}
				s := NewSpec(Keyword)
				s.Name, s.Keywords, s.MaxElements, s.MaxBytes = "k", []string{kw}, 200, 65536
				if _, err := r.Create(d, s); err != nil {
					b.Fatal(err)
				}
				for {
					p, err := r.Next(d, x, "k")
					if err != nil {
						b.Fatal(err)
					}
					items += len(p.Items)
					if !p.HasMore {
						break
					}
				}
			}
			b.ReportMetric(float64(items)/float64(b.N), "items/walk")
		})
	}
}

// BenchmarkFullScanWalk walks the whole ~5 MB book in 64 KB portions.
func BenchmarkFullScanWalk(b *testing.B) {
	src := testbook.Big(b, 5<<20)
	d := markdown.Parse(src)
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := &Registry{cursors: map[string]*Cursor{}, targets: map[string]*targetSet{}}
		s := NewSpec(FullScan)
		s.Name, s.MaxElements, s.MaxBytes = "f", 200, 65536
		if _, err := r.Create(d, s); err != nil {
			b.Fatal(err)
		}
		for {
			p, err := r.Next(d, nil, "f")
			if err != nil {
				b.Fatal(err)
			}
			if !p.HasMore {
				break
			}
		}
	}
}

// BenchmarkFirstPortion measures creating a cursor and taking its first
// portion on the indexed ~5 MB book (target < 1 ms).
func BenchmarkFirstPortion(b *testing.B) {
	src := testbook.Big(b, 5<<20)
	d := markdown.Parse(src)
	x := search.Build(d)
	for _, t := range []Type{Keyword, FullScan} {
		b.Run(string(t), func(b *testing.B) {
			var total time.Duration
			for i := 0; i < b.N; i++ {
				r := &Registry{cursors: map[string]*Cursor{}, targets: map[string]*targetSet{}}
				s := NewSpec(t)
				s.Name = "c"
				if t == Keyword {
					s.Keywords = []string{"Elizabeth"}
				}
				t0 := time.Now()
				if _, err := r.Create(d, s); err != nil {
					b.Fatal(err)
				}
				if _, err := r.Next(d, x, "c"); err != nil {
					b.Fatal(err)
				}
				total += time.Since(t0)
			}
			b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs-first-portion")
		})
	}
}
