package search

import (
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/aitexteditor/aite/internal/testbook"
	"github.com/aitexteditor/aite/internal/textnorm"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

const bigSize = testbook.NovelSize

// bigDoc parses the ~5 MB book.
func bigDoc(b *testing.B) *document.Document {
	return markdown.Parse(testbook.Sized(b, bigSize))
}

// goldmarkParser is goldmark's own parser with the extensions aite enables:
// the baseline of the parse and index benchmarks.
var goldmarkParser = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.Footnote)).Parser()

// BenchmarkParseAndIndex reports what opening a book aite has no cache of
// costs: markdown.Parse and Build of the 5.6 MB novel, as a ratio to
// goldmark's parse of the same bytes (one core) in the same run: wall time
// (target ≤ 1.5), and the CPU time spent on every core.
func BenchmarkParseAndIndex(b *testing.B) {
	src := testbook.Sized(b, bigSize)
	b.SetBytes(int64(len(src)))
	var gm, ours testbook.Timing
	for b.Loop() {
		gm = gm.Add(testbook.Time(func() { goldmarkParser.Parse(text.NewReader(src)) }))
		ours = ours.Add(testbook.Time(func() { Build(markdown.Parse(src)) }))
	}
	b.ReportMetric(float64(ours.Wall)/float64(gm.Wall), "parse+index/goldmark")
	b.ReportMetric(float64(ours.CPU)/float64(gm.CPU), "cpu-parse+index/goldmark")
	b.ReportMetric(float64(ours.Wall.Milliseconds())/float64(b.N), "ms-parse+index")
	b.ReportMetric(float64(gm.Wall.Milliseconds())/float64(b.N), "ms-goldmark")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkBuild reports the index build time of the ~5 MB book as a ratio
// to markdown.Parse of the same bytes, measured in the same run (target
// ≤ 1; ratio-of-fastest compares the fastest run of each, which a busy
// machine disturbs less), and the heap the index holds as a multiple of the book size.
func BenchmarkBuild(b *testing.B) {
	src := testbook.Sized(b, bigSize)
	b.SetBytes(int64(len(src)))
	var parse, build time.Duration
	minParse, minBuild := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	for b.Loop() {
		t0 := time.Now()
		d := markdown.Parse(src)
		t1 := time.Now()
		Build(d)
		t2 := time.Now()
		parse += t1.Sub(t0)
		build += t2.Sub(t1)
		minParse, minBuild = min(minParse, t1.Sub(t0)), min(minBuild, t2.Sub(t1))
	}
	b.ReportMetric(float64(build)/float64(parse), "ratio-to-parse")
	b.ReportMetric(float64(minBuild)/float64(minParse), "ratio-of-fastest")
	b.ReportMetric(float64(build.Milliseconds())/float64(b.N), "ms-build")
	b.ReportMetric(float64(parse.Milliseconds())/float64(b.N), "ms-parse")
	b.ReportMetric(indexHeap(markdown.Parse(src))/float64(len(src)), "heap/size")
}

// BenchmarkBuildBreakdown shows where the build time goes, each part as a
// ratio to markdown.Parse of the same bytes: textnorm.Spans over every
// item, textnorm.Stem over the book's distinct surface words, and the
// whole build run single-threaded (word splitting, word lookups, stems,
// term counts and postings).
func BenchmarkBuildBreakdown(b *testing.B) {
	src := testbook.Sized(b, bigSize)
	vocab := Build(markdown.Parse(src)).lex.words
	var parse, spans, stems, analysis time.Duration
	for b.Loop() {
		t0 := time.Now()
		d := markdown.Parse(src)
		t1 := time.Now()
		for _, it := range d.Items() {
			textnorm.Spans(it.Text)
		}
		t2 := time.Now()
		for w := range vocab {
			textnorm.Stem(w)
		}
		t3 := time.Now()
		(&Index{}).rebuildWith(d, 1)
		t4 := time.Now()
		parse, spans, stems, analysis = parse+t1.Sub(t0), spans+t2.Sub(t1), stems+t3.Sub(t2), analysis+t4.Sub(t3)
	}
	b.ReportMetric(float64(spans)/float64(parse), "spans/parse")
	b.ReportMetric(float64(stems)/float64(parse), "stems/parse")
	b.ReportMetric(float64(analysis)/float64(parse), "analysis/parse")
	b.ReportMetric(float64(len(vocab)), "surface-words")
}

// indexHeap returns the bytes of heap an index of d holds.
func indexHeap(d *document.Document) float64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	x := Build(d)
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(x)
	return float64(after.HeapAlloc) - float64(before.HeapAlloc)
}

// benchQueries runs a search for each query as a sub-benchmark, reporting
// µs per query.
func benchQueries(b *testing.B, queries map[string]string, search func(*Index, *document.Document, string) error) {
	d := bigDoc(b)
	x := Build(d)
	for name, q := range queries {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := search(x, d, q); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/query")
		})
	}
}

// BenchmarkRanked measures BM25 queries on the ~5 MB book (20 results).
func BenchmarkRanked(b *testing.B) {
	benchQueries(b, map[string]string{
		"1-word":    "человек",
		"3-word-ru": "злой больной человек",
		"3-word-en": "proud Darcy Elizabeth",
		"1-word-en": "the",
	}, func(x *Index, d *document.Document, q string) error {
		_, err := x.Ranked(d, q, Options{})
		return err
	})
}

// BenchmarkExact measures phrase queries on the ~5 MB book (20 results).
func BenchmarkExact(b *testing.B) {
	benchQueries(b, map[string]string{
		"ru":   "я человек",
		"en":   "Mr. Darcy",
		"rare": "universally acknowledged",
	}, func(x *Index, d *document.Document, q string) error {
		_, err := x.Exact(d, q, Options{})
		return err
	})
}

// BenchmarkUpdate measures re-indexing one edited paragraph of the ~5 MB
// book (the edit itself is not timed).
func BenchmarkUpdate(b *testing.B) {
	d := bigDoc(b)
	x := Build(d)
	var paras []*document.Item
	for _, it := range d.Items() {
		if it.Kind == document.Paragraph && len(it.Text) > 200 {
			paras = append(paras, it)
		}
	}
	texts := []string{"Я человек больной, я злой человек, а вы — кто вы такой?",
		"It is a truth universally acknowledged, that an edited paragraph must be re-indexed."}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		it := paras[(i*7919)%len(paras)]
		r, err := d.ReplaceText(it.Pointer().String(), texts[i%2])
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		x.Update(d, r.Pointer.ID)
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/update")
}

// BenchmarkDecodeQuery reports what a search costs a command that finds
// the novel's document and index encoded beside it (decode both, run a
// keyword query) instead of parsing and indexing it, as a ratio to the
// parse + index it saves, and the size of the encoded index.
func BenchmarkDecodeQuery(b *testing.B) {
	src := testbook.Sized(b, bigSize)
	d := markdown.Parse(src)
	denc, err := d.Encode()
	if err != nil {
		b.Fatal(err)
	}
	xenc, err := Build(d).Encode()
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range []string{"Симонов", "человек"} {
		b.Run(q, func(b *testing.B) {
			var full, cached time.Duration
			for b.Loop() {
				t0 := time.Now()
				Build(markdown.Parse(src)).ItemsMatching([]string{q})
				t1 := time.Now()
				dd, err := document.Decode(src, denc, nil)
				if err != nil {
					b.Fatal(err)
				}
				x, err := Decode(dd, xenc)
				if err != nil {
					b.Fatal(err)
				}
				x.ItemsMatching([]string{q})
				full, cached = full+t1.Sub(t0), cached+time.Since(t1)
			}
			b.ReportMetric(float64(cached.Microseconds())/float64(b.N), "µs-decoded")
			b.ReportMetric(float64(cached)/float64(full), "decoded/parse+build")
			b.ReportMetric(float64(len(xenc))/float64(len(src)), "index-encoded/size")
		})
	}
}
