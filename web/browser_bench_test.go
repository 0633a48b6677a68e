package web_test

import (
	"bytes"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/aitexteditor/aite/internal/testbook"
)

// The performance of the web app, measured in the browser against a
// baseline of the same run:
//
//   - BenchmarkReaderBigBookToEnd: the time from navigation to the last item
//     of a 5.6 MB book being on screen, against loading the same text as one
//     plain <pre> page and scrolling it to its end (target: at most 3×);
//   - BenchmarkStreamDeltaToScreen: the delay from the fake model writing a
//     content delta to the frame that shows it, through aite (the server
//     relays the delta, the app appends it), against the browser reading
//     the same stream straight from the fake model (target: p99 ≤ 50 ms).
//
// go test ./web/ -run XXX -bench . -benchtime 5x

// bigBookSize is the size of the "5.6 MB novel".
const bigBookSize = 5_600_000

// bigBook is testbook.Big cut to bigBookSize at a paragraph break.
func bigBook(b testing.TB) []byte {
	book := testbook.Big(b, bigBookSize)
	if cut := bytes.LastIndex(book[:min(len(book), bigBookSize)], []byte("\n\n")); cut > 0 {
		book = book[:cut+1]
	}
	return book
}

// prePage serves a text as one plain <pre> page.
func prePage(b *testing.B, text []byte) string {
	page := "<!doctype html><meta charset=utf-8><title>pre</title><pre>" + html.EscapeString(string(text)) + "</pre>"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(page))
	}))
	b.Cleanup(srv.Close)
	return srv.URL + "/"
}

// navigateTimed loads url from a blank page and returns the time from the
// navigation start until expr (polled every frame) is a number: the
// expression returns performance.now() once the page is ready.
func (tb *tab) navigateTimed(url, expr string) time.Duration {
	tb.t.Helper()
	tb.run("blank", chromedp.Navigate("about:blank"))
	tb.run("navigate", chromedp.Navigate(url))
	ms, err := chromedp.Run(tb.ctx, chromedp.Poll[float64](expr, chromedp.WithPollingTimeout(2*time.Minute)))
	if err != nil {
		tb.t.Fatalf("waiting for %s: %v", url, err)
	}
	return time.Duration(ms * float64(time.Millisecond))
}

func BenchmarkReaderBigBookToEnd(b *testing.B) {
	needBrowser(b)
	book := bigBook(b)
	a := startApp(b, appOptions{})
	var doc docSummary
	a.apiCall(b, http.MethodPost, "/documents", "", map[string]string{"name": "Collected works", "markdown": string(book)}, &doc)
	pre := prePage(b, book)
	tb := newTab(b)
	tb.open(a.base, "/") // English, clean storage
	last := doc.ItemCount - 1
	appReady := fmt.Sprintf(`(() => { const el = document.querySelector('.item[data-index="%d"]'); if (!el) return false;
	  const r = el.getBoundingClientRect(), p = document.querySelector('.reader').getBoundingClientRect();
	  return r.bottom <= p.bottom + 30 && r.top >= p.top - 2 ? performance.now() : false })()`, last)
	preReady := `document.readyState === 'complete' && (scrollTo(0, document.documentElement.scrollHeight),
	  innerHeight + scrollY >= document.documentElement.scrollHeight - 2) ? performance.now() : false`
	var app, base time.Duration
	var blank, frames, worst float64
	b.ResetTimer()
	for range b.N {
		base += tb.navigateTimed(pre, preReady)
		app += tb.navigateTimed(a.base+"/#doc="+doc.DocumentID+"&at=end", appReady)
		s := evalJS[struct{ Blank, Frames, Worst float64 }](tb, scrollThroughJS+`(400, 300)`)
		blank, frames, worst = blank+s.Blank, frames+s.Frames, max(worst, s.Worst)
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(100*blank/frames, "blank-%")
	b.ReportMetric(worst, "worst-frame-ms")
	b.ReportMetric(float64(app.Milliseconds())/n, "app-ms")
	b.ReportMetric(float64(base.Milliseconds())/n, "pre-ms")
	b.ReportMetric(float64(app)/float64(base), "ratio")
	b.ReportMetric(float64(len(book))/1e6, "MB")
	b.ReportMetric(float64(doc.ItemCount), "items")
}

// scrollThroughJS scrolls the reading pane from the start, dy pixels a
// frame for the given number of frames (a fast fling), and counts the
// frames whose middle shows no text yet and the longest frame.
const scrollThroughJS = `(async (steps, dy) => {
  const r = document.querySelector('.reader');
  r.scrollTop = 0;
  await new Promise((res) => requestAnimationFrame(res));
  let blank = 0, worst = 0, last = performance.now();
  for (let i = 0; i < steps; i++) {
    r.scrollTop += dy;
    await new Promise((res) => requestAnimationFrame(res));
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
    const p = r.getBoundingClientRect();
    const el = document.elementFromPoint(p.left + p.width / 2, p.top + p.height / 2);
    if (!el || !el.closest('.item')) blank++;
  }
  return { blank, frames: steps, worst };
})`

// latencyObserverJS records, for every stamped delta that appears under
// root, the time of the next animation frame minus its stamp, in ms.
const latencyObserverJS = `((root) => {
  window.__lat = [];
  const seen = new Set();
  new MutationObserver(() => {
    for (const m of root.textContent.matchAll(/⟦(\d+)⟧/g)) {
      if (seen.has(m[1])) continue;
      seen.add(m[1]);
      const sent = Number(m[1]) / 1000;
      requestAnimationFrame(() => window.__lat.push(performance.timeOrigin + performance.now() - sent));
    }
  }).observe(root, { subtree: true, childList: true, characterData: true });
  return true;
})`

// directPage reads the fake model's stamped stream straight (no aite in
// between) into a text node, as the app does.
const directPage = `<!doctype html><meta charset=utf-8><title>direct</title><div id="out"></div><script>
const out = document.getElementById('out');
window.startDirect = async (n, gap) => {
  const text = document.createTextNode('');
  out.append(text);
  const res = await fetch('/v1/chat/completions', { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ model: 'x', stream: true, messages: [{ role: 'user', content: 'LATENCY ' + n + ' ' + gap }] }) });
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += value;
    let i;
    while ((i = buf.indexOf('\n\n')) >= 0) {
      const line = buf.slice(0, i).replace(/^data: /, '');
      buf = buf.slice(i + 2);
      if (line === '[DONE]') continue;
      const d = JSON.parse(line).choices?.[0]?.delta?.content;
      if (d) text.appendData(d);
    }
  }
  return true;
};
</script>`

// percentile returns the p-th percentile (0..100) of xs.
func percentile(xs []float64, p float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	if len(s) == 0 {
		return 0
	}
	return s[min(len(s)-1, int(float64(len(s))*p/100))]
}

func BenchmarkStreamDeltaToScreen(b *testing.B) {
	needBrowser(b)
	const deltas, gapMs = 200, 10
	a := startApp(b, appOptions{})
	a.model.page = directPage
	doc := a.documents(b, "")[0]
	tb := newTab(b)
	var app, direct []float64
	b.ResetTimer()
	for range b.N {
		// Straight from the fake model.
		tb.run("direct", chromedp.Navigate(a.model.srv.URL+"/direct"))
		evalJS[bool](tb, latencyObserverJS+`(document.getElementById('out'))`)
		evalJS[bool](tb, fmt.Sprintf(`startDirect(%d, %d)`, deltas, gapMs))
		tb.waitJS("the direct deltas", fmt.Sprintf(`window.__lat.length === %d`, deltas), time.Minute)
		direct = append(direct, evalJS[[]float64](tb, `window.__lat`)...)

		// Through aite and the app.
		tb.open(a.base, "/#doc="+doc.DocumentID)
		tb.waitJS("the chat", `!!document.querySelector('.transcript')`, 20*time.Second)
		evalJS[bool](tb, latencyObserverJS+`(document.querySelector('.transcript'))`)
		tb.ask(fmt.Sprintf("LATENCY %d %d", deltas, gapMs))
		tb.waitJS("the streamed deltas", fmt.Sprintf(`window.__lat.length === %d`, deltas), time.Minute)
		app = append(app, evalJS[[]float64](tb, `window.__lat`)...)
		tb.waitJS("the end of the run", `!document.querySelector('.chat.running')`, 20*time.Second)
	}
	b.StopTimer()
	b.ReportMetric(percentile(app, 50), "p50-ms")
	b.ReportMetric(percentile(app, 99), "p99-ms")
	b.ReportMetric(percentile(direct, 50), "direct-p50-ms")
	b.ReportMetric(percentile(direct, 99), "direct-p99-ms")
	b.ReportMetric(percentile(app, 99)/max(percentile(direct, 99), 1), "p99-ratio")
}

// The reading pane on a 5.6 MB book: opened at its end, the last item is
// on screen; a heading of the outline half way through and a pointer are
// reached; scrolling through shows text in every frame once it has
// loaded (the figures are in BenchmarkReaderBigBookToEnd).
func TestBrowserBigBook(t *testing.T) {
	needBrowser(t)
	book := bigBook(t)
	a := startApp(t, appOptions{})
	var doc docSummary
	a.apiCall(t, http.MethodPost, "/documents", "", map[string]string{"name": "Collected works", "markdown": string(book)}, &doc)
	tb := newTab(t)
	tb.open(a.base, "/#doc="+doc.DocumentID+"&at=end")
	tb.waitJS("the last item", itemVisible(doc.ItemCount-1), time.Minute)
	// A heading in the middle of the book, from the outline.
	mid := evalJS[int](tb, `(() => { const hs = [...document.querySelectorAll('.tree li')]; return Math.floor(hs.length / 2) })()`)
	index := evalJS[int](tb, fmt.Sprintf(`(() => { const li = document.querySelectorAll('.tree li')[%d]; li.querySelector('.heading').click(); return Number(li.dataset.index) })()`, mid))
	tb.waitJS("the heading half way", itemVisible(index), 30*time.Second)
	// A pointer near the end, from the address.
	ptr := evalJS[string](tb, fmt.Sprintf(`fetch('/api/ap/document/items?documentId=%s&from=%d&limit=1').then(r => r.json()).then(e => e.data.items[0].pointer)`,
		doc.DocumentID, doc.ItemCount-100))
	tb.run("jump by address", chromedp.Evaluate[chromedp.Void](`location.hash = '#doc=`+doc.DocumentID+`&at=`+ptr+`'`))
	tb.waitJS("the pointer's item", itemVisible(doc.ItemCount-100), 30*time.Second)
	if n := evalJS[int](tb, `document.querySelectorAll('.item').length`); n > 1000 {
		t.Errorf("%d items in the page: the reading pane is not virtualised", n)
	}
	tb.shot("big-book")
}
