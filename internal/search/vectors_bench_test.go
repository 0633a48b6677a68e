package search

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/aitexteditor/aite/internal/testbook"
)

// benchDim is the dimension of the benchmarks' vectors: nomic-embed-text's
// (OpenAI's text-embedding-3-small has 1536: twice the memory and the
// scan).
const benchDim = 768

// benchEmbedder embeds in process (feature hashing of stems) and counts the
// texts: a stand-in for the network, whose cost is per text.
type benchEmbedder struct {
	embed func(string) []float32
	texts int
}

func (e *benchEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	e.texts += len(texts)
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = e.embed(t)
	}
	return out, nil
}

func newBenchEmbedder() *benchEmbedder {
	return &benchEmbedder{embed: llmtest.HashEmbedding(benchDim, nil)}
}

// update embeds what the index lacks.
func update(b *testing.B, v *Vectors, d *document.Document, e Embedder) {
	p, _ := v.Missing(d)
	if err := v.Embed(context.Background(), e, p, 64, nil); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkVectorsUpdateAfterOneEdit reports the update of the vector
// index of a ~1 MB book after one edit as a ratio to building it from
// nothing, measured in the same run: texts-ratio counts the texts sent to
// the embedding model (what an update costs over the network), time-ratio
// the time in process (finding what changed hashes every item's text;
// target ≤ 0.05).
func BenchmarkVectorsUpdateAfterOneEdit(b *testing.B) {
	src := testbook.Big(b, 1<<20)
	var build, upd time.Duration
	var buildTexts, updTexts int
	for b.Loop() {
		d := markdown.Parse(src)
		e := newBenchEmbedder()
		v := NewVectors("bench")
		t0 := time.Now()
		update(b, v, d, e)
		t1 := time.Now()
		mid := d.At(d.Len() / 2)
		if _, err := d.InsertAfter(mid.Pointer().String(), "A new paragraph written after the index was built."); err != nil {
			b.Fatal(err)
		}
		n := e.texts
		t2 := time.Now()
		update(b, v, d, e)
		t3 := time.Now()
		build, upd = build+t1.Sub(t0), upd+t3.Sub(t2)
		buildTexts, updTexts = buildTexts+n, updTexts+e.texts-n
	}
	b.ReportMetric(float64(upd)/float64(build), "time-ratio")
	b.ReportMetric(float64(updTexts)/float64(buildTexts), "texts-ratio")
	b.ReportMetric(float64(buildTexts)/float64(b.N), "texts-build")
	b.ReportMetric(float64(updTexts)/float64(b.N), "texts-update")
}

// BenchmarkHybridVsRanked reports a hybrid query (BM25 and vectors, each
// 60 deep, fused) on the ~5 MB book as a ratio to the BM25 query alone
// (20 results), in the same run; the query's vector is made beforehand (a
// network call, not measured). The vectors are scanned in full: the ratio
// grows with the book and the dimension.
func BenchmarkHybridVsRanked(b *testing.B) {
	d := bigDoc(b)
	x := Build(d)
	e := newBenchEmbedder()
	v := NewVectors("bench")
	update(b, v, d, e)
	const query = "the clock on the tower runs backwards"
	q, err := v.Query(context.Background(), e, query)
	if err != nil {
		b.Fatal(err)
	}
	var ranked, hybrid time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := x.Ranked(d, query, Options{}); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		deep := Options{Limit: 60}
		words, err := x.Ranked(d, query, deep)
		if err != nil {
			b.Fatal(err)
		}
		near, err := v.Nearest(d, q, deep)
		if err != nil {
			b.Fatal(err)
		}
		Fuse(20, words, near)
		t2 := time.Now()
		ranked, hybrid = ranked+t1.Sub(t0), hybrid+t2.Sub(t1)
	}
	b.ReportMetric(float64(hybrid)/float64(ranked), "hybrid/ranked")
	b.ReportMetric(float64(hybrid.Microseconds())/float64(b.N), "µs-hybrid")
	b.ReportMetric(float64(ranked.Microseconds())/float64(b.N), "µs-ranked")
	b.ReportMetric(float64(d.Len()), "items")
}

// BenchmarkVectorsMemory reports the heap a vector index holds per 1,000
// items (768 dimensions; a float32 each: 3 KB a vector plus the map), and
// its file size per 1,000 items.
func BenchmarkVectorsMemory(b *testing.B) {
	d := markdown.Parse(testbook.Big(b, 1<<20))
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		v := NewVectors("bench")
		update(b, v, d, newBenchEmbedder())
		v.keys = nil // the item-key cache is per document version, not the index
		runtime.GC()
		runtime.ReadMemStats(&after)
		per := float64(v.Len()) / 1000
		b.ReportMetric((float64(after.HeapAlloc)-float64(before.HeapAlloc))/per/(1<<20), "MiB/1000-items")
		data, err := v.MarshalBinary()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(data))/per/(1<<20), "file-MiB/1000-items")
		runtime.KeepAlive(v)
	}
}
