package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/aitexteditor/aite/internal/agent"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/aitexteditor/aite/internal/store/sqlite"
	"github.com/aitexteditor/aite/internal/testbook"
)

// The document benchmarks of issue 21 run on the 5.6 MB novel
// (testbook.NovelSize) and, with AITE_BENCH_SIZES=1,2,4,8, on 2, 4 and 8
// times it, each document stored in SQLite as `aite serve` keeps it:
//
//	AITE_BENCH_SIZES=1,2,4,8 go test ./internal/server/ -run XXX -bench 'DocumentEdit|DocumentItems' -benchtime 200x

// benchDocuments creates a document of m times the novel in a new SQLite
// store and returns the documents, its id and its source.
func benchDocuments(b *testing.B, m int) (*Documents, string, []byte) {
	b.Helper()
	st, err := sqlite.Open(filepath.Join(b.TempDir(), "aite.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = st.Close() })
	src := testbook.Sized(b, m*testbook.NovelSize)
	docs := NewDocuments(st, nil)
	doc, err := docs.Create(context.Background(), "novel", src, 0)
	if err != nil {
		b.Fatal(err)
	}
	return docs, doc.ID, src
}

// medianParse times markdown.Parse of src n times and returns the median.
func medianParse(src []byte, n int) time.Duration {
	ts := make([]time.Duration, n)
	for i := range ts {
		t0 := time.Now()
		markdown.Parse(src)
		ts[i] = time.Since(t0)
	}
	slices.Sort(ts)
	return ts[n/2]
}

// BenchmarkDocumentEdit times one edit of a stored document through its
// book tool, as a run makes it: the edit in the session, its revision
// stored in SQLite (the edit row, and the text when a snapshot is due) and
// reported. Each iteration replaces another paragraph, spread over the
// whole book. Reported beside the edit's min/median/max: the median
// markdown.Parse of the same book in the same process (the cost of loading
// it), and their ratio.
func BenchmarkDocumentEdit(b *testing.B) {
	for _, m := range testbook.Sizes(b) {
		b.Run(fmt.Sprintf("%dx", m), func(b *testing.B) {
			docs, id, src := benchDocuments(b, m)
			ctx := agent.WithCall(context.Background(), "call")
			tools, err := docs.BookTools(ctx, id, "run", nil)
			if err != nil {
				b.Fatal(err)
			}
			views, _, err := docs.session.ItemsAt(id, 0, 1<<31-1)
			if err != nil {
				b.Fatal(err)
			}
			var paras []int
			for _, v := range views {
				if v.Kind == document.Paragraph {
					paras = append(paras, v.ID)
				}
			}
			stride := max(1, len(paras)/997)
			replace := tools["editor-replace_text"]
			edits := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := range b.N {
				args, _ := json.Marshal(map[string]string{"pointer": strconv.Itoa(paras[i*stride%len(paras)]) + ":",
					"markdown": fmt.Sprintf("Edited paragraph %d, one sentence long.", i)})
				t0 := time.Now()
				res, err := replace.Call(ctx, args)
				edits = append(edits, time.Since(t0))
				if err != nil || res.IsError {
					b.Fatalf("edit %d: %v %s", i, err, res.Text)
				}
			}
			b.StopTimer()
			parse := medianParse(src, 5)
			slices.Sort(edits)
			med := edits[len(edits)/2]
			b.ReportMetric(float64(edits[0].Microseconds()), "min-µs")
			b.ReportMetric(float64(med.Microseconds()), "median-µs")
			b.ReportMetric(float64(edits[len(edits)-1].Microseconds()), "max-µs")
			b.ReportMetric(float64(parse.Microseconds())/1000, "parse-ms")
			b.ReportMetric(float64(med)/float64(parse), "edit/parse")
		})
	}
}

// BenchmarkDocumentItems times GET /document/items of 100 items at the end
// of the book (the page before the last, whose last item may be cut short)
// and of the same 100 items where they first occur (the big books repeat
// the shared books, so the page at the end is also near the start),
// alternately, and reports the median of each and their ratio
// (end/start): a page costs what it holds, not where it is.
func BenchmarkDocumentItems(b *testing.B) {
	for _, m := range testbook.Sizes(b) {
		b.Run(fmt.Sprintf("%dx", m), func(b *testing.B) {
			docs, id, _ := benchDocuments(b, m)
			h := New(Options{Store: docs.st, Documents: docs}).Handler()
			views, total, err := docs.session.ItemsAt(id, 0, 1<<31-1)
			if err != nil {
				b.Fatal(err)
			}
			end := total - 200
			start := samePage(views, end)
			get := func(from int) time.Duration {
				req := localRequest("GET", fmt.Sprintf("/api/ap/document/items?documentId=%s&from=%d&limit=100", id, from), nil)
				w := httptest.NewRecorder()
				t0 := time.Now()
				h.ServeHTTP(w, req)
				d := time.Since(t0)
				if w.Code != 200 {
					b.Fatalf("status %d: %s", w.Code, w.Body)
				}
				return d
			}
			get(0) // loads the document
			first, last := make([]time.Duration, 0, b.N), make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for range b.N {
				first = append(first, get(start))
				last = append(last, get(end))
			}
			b.StopTimer()
			slices.Sort(first)
			slices.Sort(last)
			f, l := first[len(first)/2], last[len(last)/2]
			b.ReportMetric(float64(f.Microseconds()), "first-page-µs")
			b.ReportMetric(float64(l.Microseconds()), "last-page-µs")
			b.ReportMetric(float64(start), "first-page-index")
			b.ReportMetric(float64(end), "last-page-index")
			b.ReportMetric(float64(l)/float64(f), "last/first")
		})
	}
}

// samePage returns the first index from which the 100 items from index at
// occur with the same Markdown.
func samePage(views []editor.ItemView, at int) int {
	for i := range at {
		same := true
		for k := 0; k < 100 && same; k++ {
			same = views[i+k].Markdown == views[at+k].Markdown
		}
		if same {
			return i
		}
	}
	return at
}
