package markdown

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/aitexteditor/aite/internal/atomicfile"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/testbook"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

const bigSize = testbook.NovelSize

// goldmarkParser is the baseline: goldmark's own parse of the same bytes
// with the extensions aite enables (tables, strikethrough, footnotes).
var goldmarkParser = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.Footnote)).Parser()

func goldmarkParse(src []byte) { goldmarkParser.Parse(text.NewReader(src)) }

// BenchmarkParse reports markdown.Parse of the 5.6 MB novel (the parse
// alone: goldmark plus the items, in parts on every core) as a ratio to
// goldmark's own parse of the same bytes (one core) in the same run: wall
// time, and the CPU time it spent. The parse and the index together are
// search.BenchmarkParseAndIndex.
func BenchmarkParse(b *testing.B) {
	src := testbook.Sized(b, bigSize)
	b.SetBytes(int64(len(src)))
	var gm, ours testbook.Timing
	for b.Loop() {
		gm = gm.Add(testbook.Time(func() { goldmarkParse(src) }))
		ours = ours.Add(testbook.Time(func() { Parse(src) }))
	}
	b.ReportMetric(float64(ours.Wall)/float64(gm.Wall), "parse/goldmark")
	b.ReportMetric(float64(ours.CPU)/float64(gm.CPU), "cpu-parse/goldmark")
	b.ReportMetric(float64(ours.Wall.Milliseconds())/float64(b.N), "ms-parse")
	b.ReportMetric(float64(gm.Wall.Milliseconds())/float64(b.N), "ms-goldmark")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkEditSave reports one edit plus an atomic save of the ~5 MB book
// as a ratio to the parse time measured in the same run (target ≤ 0.1).
func BenchmarkEditSave(b *testing.B) {
	for _, backup := range []bool{false, true} {
		name := "no-backup"
		if backup {
			name = "backup"
		}
		b.Run(name, func(b *testing.B) { benchEditSave(b, backup) })
	}
}

func benchEditSave(b *testing.B, backup bool) {
	src := testbook.Sized(b, bigSize)
	path := filepath.Join(b.TempDir(), "book.md")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		b.Fatal(err)
	}
	var parse time.Duration
	for i := 0; i < 3; i++ {
		t0 := time.Now()
		Parse(src)
		parse += time.Since(t0)
	}
	parse /= 3
	d := Parse(src)
	paras := paragraphs(d)
	b.ResetTimer()
	var edit, save time.Duration
	for i := 0; i < b.N; i++ {
		it := paras[(i*7919)%len(paras)]
		t0 := time.Now()
		if _, err := d.ReplaceText(it.Pointer().String(), "An edited paragraph, number "+it.Label+"."); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := atomicfile.Write(path, d.Source(), atomicfile.Options{Backup: backup}); err != nil {
			b.Fatal(err)
		}
		edit += t1.Sub(t0)
		save += time.Since(t1)
	}
	b.ReportMetric(float64(edit+save)/float64(b.N)/float64(parse), "ratio-to-parse")
	b.ReportMetric(float64(edit)/float64(b.N)/float64(parse), "edit-ratio-to-parse")
	b.ReportMetric(float64(edit.Microseconds())/float64(b.N), "µs-edit")
	b.ReportMetric(float64(save.Microseconds())/float64(b.N), "µs-save")
}

func paragraphs(d *document.Document) []*document.Item {
	var out []*document.Item
	for _, it := range d.Items() {
		if it.Kind == document.Paragraph {
			out = append(out, it)
		}
	}
	return out
}

// BenchmarkMemory reports the heap held by a loaded document as a multiple
// of the file size (target ≤ 6).
func BenchmarkMemory(b *testing.B) {
	src := testbook.Sized(b, bigSize)
	var ratio float64
	for i := 0; i < b.N; i++ {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		d := Parse(src)
		runtime.GC()
		runtime.ReadMemStats(&after)
		ratio = float64(after.HeapAlloc-before.HeapAlloc) / float64(len(src))
		runtime.KeepAlive(d)
	}
	b.ReportMetric(ratio, "heap/size")
}

// BenchmarkEncode reports the size of the novel's encoded items as a
// share of the book, and the time to encode them as a ratio to the parse
// (the encoding is written once per version of the book).
func BenchmarkEncode(b *testing.B) {
	src := testbook.Sized(b, bigSize)
	d := Parse(src)
	var parse, enc time.Duration
	var size int
	for b.Loop() {
		t0 := time.Now()
		Parse(src)
		t1 := time.Now()
		e, err := d.Encode()
		if err != nil {
			b.Fatal(err)
		}
		parse, enc, size = parse+t1.Sub(t0), enc+time.Since(t1), len(e)
	}
	b.ReportMetric(float64(size)/float64(len(src)), "encoded/size")
	b.ReportMetric(float64(enc)/float64(parse), "encode/parse")
}

// BenchmarkDecodeOutline reports what a reading command pays to get a
// decoded document's outline, as a ratio to parsing the book.
func BenchmarkDecodeOutline(b *testing.B) {
	src := testbook.Sized(b, bigSize)
	e, err := Parse(src).Encode()
	if err != nil {
		b.Fatal(err)
	}
	var parse, dec time.Duration
	for b.Loop() {
		t0 := time.Now()
		Parse(src)
		t1 := time.Now()
		d, err := document.Decode(src, e, nil)
		if err != nil {
			b.Fatal(err)
		}
		d.Outline()
		parse, dec = parse+t1.Sub(t0), dec+time.Since(t1)
	}
	b.ReportMetric(float64(dec.Microseconds())/float64(b.N), "µs-decode+outline")
	b.ReportMetric(float64(dec)/float64(parse), "decode+outline/parse")
}
