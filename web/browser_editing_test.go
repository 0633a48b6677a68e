package web_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/aitexteditor/aite/examples"
)

// apiCall sends a request to the app's API (token: Bearer, "" for none)
// and decodes the envelope's data into out (nil: ignored).
func (a *testApp) apiCall(t testing.TB, method, path, token string, body any, out any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, a.base+"/api/ap"+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env struct {
		Code int             `json:"code"`
		Msg  string          `json:"msg"`
		Data json.RawMessage `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil || env.Code != 0 {
		t.Fatalf("%s %s: %d %s (%v)", method, path, env.Code, env.Msg, err)
	}
	if out != nil {
		if err := json.Unmarshal(env.Data, out); err != nil {
			t.Fatal(err)
		}
	}
}

type docSummary struct {
	DocumentID string `json:"documentId"`
	Name       string `json:"name"`
	Revision   int    `json:"revision"`
	ItemCount  int    `json:"itemCount"`
}

func (a *testApp) documents(t testing.TB, token string) []docSummary {
	var out []docSummary
	a.apiCall(t, http.MethodGet, "/documents", token, nil, &out)
	return out
}

// raw returns the current Markdown and revision of a document.
func (a *testApp) raw(t testing.TB, id string) (string, int) {
	var out struct {
		Markdown string `json:"markdown"`
		Revision int    `json:"revision"`
	}
	a.apiCall(t, http.MethodGet, "/document/raw?documentId="+id, "", nil, &out)
	return out.Markdown, out.Revision
}

// open loads the app in English at path (a fresh state: no stored
// language, theme or chat).
func (tb *tab) open(base, path string) {
	tb.t.Helper()
	tb.run("open "+path, chromedp.Navigate(base+"/"),
		chromedp.Evaluate[chromedp.Void](`localStorage.clear(); sessionStorage.clear(); localStorage.setItem('aite.lang', 'en')`),
		chromedp.Navigate(base+path))
}

// itemVisible is a JS expression: the reading pane shows item index.
func itemVisible(index int) string {
	return fmt.Sprintf(`(() => { const el = document.querySelector('.item[data-index="%d"]'); if (!el) return false;
	  const r = el.getBoundingClientRect(), p = document.querySelector('.reader').getBoundingClientRect();
	  return r.top >= p.top - 2 && r.top < p.bottom - 20 })()`, index)
}

// The main scenario of a writer: open the sample book, find, jump, ask the
// book editor to find and rewrite a paragraph, watch the cursor agent's
// progress, approve the diff, see the text and the revisions change, undo,
// reload and find the chat as it was, then stop a run.
func TestBrowserEditingABook(t *testing.T) {
	needBrowser(t)
	a := startApp(t, appOptions{})
	tb := newTab(t)
	doc := a.documents(t, "")[0]
	original, _ := a.raw(t, doc.DocumentID)
	if original != string(examples.Zvezdochkin) {
		t.Fatal("the sample book is not stored as shipped")
	}

	// The library lists the sample book.
	tb.open(a.base, "/")
	tb.waitJS("the library", `document.querySelector('.lib-table .doc-link')?.textContent === 'zvezdochkin'`, 20*time.Second)
	tb.shot("library")

	// Open it: the outline with counts and the reading pane.
	tb.click(".lib-table .doc-link")
	tb.waitJS("the reading pane", itemVisible(0), 20*time.Second)
	tb.waitJS("the outline", `document.querySelectorAll('.tree .heading').length >= 6`, 10*time.Second)
	if c := tb.text(".tree .count"); c != "105" {
		t.Errorf("the book heading counts %q items, want 105", c)
	}
	if h := tb.text(`.item[data-index="0"] h1`); h != "Звёздочкин и часы на башне" {
		t.Errorf("first item: %q", h)
	}
	tb.shot("reader")

	// The outline folds: chapter 3's sections show when it is unfolded, and
	// a click jumps to a heading.
	if n := evalJS[int](tb, `[...document.querySelectorAll('.tree .title')].filter(t => t.offsetParent).length`); n != 6 {
		t.Errorf("%d headings visible before unfolding, want 6", n)
	}
	tb.click(`.tree li[aria-expanded="false"] > .row .fold`)
	tb.waitJS("chapter 3 unfolded", `[...document.querySelectorAll('.tree .title')].filter(t => t.offsetParent).length > 6`, 5*time.Second)
	tb.click(`.tree li[aria-expanded="true"] li[aria-expanded="true"] li .heading`)
	tb.waitJS("the section in view", `document.activeElement?.classList.contains('item') && !!document.activeElement.querySelector('h3')`, 10*time.Second)

	// Every item shows its pointer with a copy button (the clipboard is
	// watched, not read: headless Chromium has no clipboard to read).
	if ptr := evalJS[string](tb, `document.querySelector('.item[data-index="1"]').dataset.pointer`); ptr != "2:1.p1" {
		t.Errorf("pointer of item 1: %q", ptr)
	}
	evalJS[bool](tb, `(() => { window.__copied = []; navigator.clipboard.writeText = (s) => { window.__copied.push(s); return Promise.resolve() }; return true })()`)
	tb.click(`.item[data-index="1"] .ptr-copy`)
	if copied := evalJS[[]string](tb, `window.__copied`); len(copied) != 1 || copied[0] != "2:1.p1" {
		t.Errorf("copied %q, want 2:1.p1", copied)
	}

	// Find: every form of the word, marked; the exact phrase; a click
	// scrolls the reading pane to the item.
	tb.click(`[data-tab="find"]`)
	tb.typeInto(".find-input", "Варя")
	tb.click(`.find-form button[type="submit"]`)
	tb.waitJS("the results", `document.querySelectorAll('.hit').length === 27`, 10*time.Second)
	marks := evalJS[[]string](tb, `[...document.querySelectorAll('.hit mark')].map(m => m.textContent)`)
	if !containsAll(marks, "Варя", "Варю", "Варе", "Вари") {
		t.Errorf("all forms of the word are not marked: %v", marks)
	}
	tb.run("exact mode", chromedp.SetValue(chromedp.CSS(".find-mode"), "exact"))
	tb.typeInto(".find-input", "снова стояла на перроне")
	tb.click(`.find-form button[type="submit"]`)
	tb.waitJS("one exact result", `document.querySelectorAll('.hit').length === 1 && document.querySelector('.hit mark')?.textContent === 'снова стояла на перроне'`, 10*time.Second)
	target := evalJS[int](tb, `Number(document.querySelector('.hit').dataset.index)`)
	// Ranked: the most relevant first, with scores.
	tb.run("ranked mode", chromedp.SetValue(chromedp.CSS(".find-mode"), "ranked"))
	tb.typeInto(".find-input", "перрон картонка")
	tb.click(`.find-form button[type="submit"]`)
	tb.waitJS("ranked results", `document.querySelectorAll('.hit .score').length > 1`, 10*time.Second)
	if first := evalJS[int](tb, `Number(document.querySelector('.hit').dataset.index)`); first != target {
		t.Errorf("the most relevant item is %d, want %d (both words)", first, target)
	}
	tb.run("exact mode again", chromedp.SetValue(chromedp.CSS(".find-mode"), "exact"))
	tb.typeInto(".find-input", "снова стояла на перроне")
	tb.click(`.find-form button[type="submit"]`)
	tb.waitJS("one exact result again", `document.querySelectorAll('.hit').length === 1`, 10*time.Second)
	tb.click(".hit")
	tb.waitJS("the found item in view", itemVisible(target)+` && document.querySelector('.item[data-index="`+fmt.Sprint(target)+`"]').classList.contains('flash')`, 10*time.Second)
	tb.shot("find")

	// Ask the book editor. The cursor agent reads the keyword cursor batch
	// by batch (a progress bar), then the edit waits for approval as a
	// word-level diff.
	tb.typeInto(".chat-input", editCommand)
	tb.click(".composer .send")
	tb.waitJS("the edit to approve", `!!document.querySelector('.card.approval.active')`, 60*time.Second)
	progress := tb.text(`.card.call[data-tool="cursor_agent-run_cursor_agent"] .progress-text`)
	if !strings.Contains(progress, "batch ") || !strings.Contains(progress, " of ~") {
		t.Errorf("cursor agent progress: %q", progress)
	}
	bar := evalJS[struct{ Value, Max float64 }](tb, `(() => { const p = document.querySelector('.card.call[data-tool="cursor_agent-run_cursor_agent"] progress'); return {value: p.value, max: p.max} })()`)
	if bar.Value < 2 || bar.Max < bar.Value {
		t.Errorf("progress bar %v: the cursor agent read more than one batch", bar)
	}
	tb.waitJS("the word diff", `!!document.querySelector('.card.approval .diff del') && !!document.querySelector('.card.approval .diff ins')`, 10*time.Second)
	if ins := tb.text(".card.approval .diff"); !strings.Contains(ins, "провожала профессора") {
		t.Errorf("diff: %q", ins)
	}
	if md, rev := a.raw(t, doc.DocumentID); md != original || rev != 0 {
		t.Fatal("the edit was applied before it was approved")
	}
	// The server offers the approval also as a confirm-tool call under the
	// approval's id; the app shows one card for it, not two.
	tb.waitJS("the confirm-tool twin", `!!document.querySelector('.card.call[data-tool="confirm"]')`, 10*time.Second)
	if n := evalJS[float64](tb, `[...document.querySelectorAll('.card.call[data-tool="confirm"], .card.confirm')].filter(e => e.offsetParent !== null).length`); n != 0 {
		t.Errorf("%v confirm cards are shown beside the approval card", n)
	}
	tb.shot("approval")
	// The new chat is in the chat list while its first run waits.
	tb.waitJS("the new chat listed", `document.querySelector('select.history').options.length === 2 && document.querySelector('select.history').value !== ''`, 10*time.Second)

	tb.click(".card.approval .approve-all")
	tb.waitJS("the answer", `[...document.querySelectorAll('.msg.assistant .content strong')].some(s => s.textContent === 'короче')`, 30*time.Second)
	tb.waitJS("the new text in the reading pane", `[...document.querySelectorAll('.item')].some(el => el.textContent.includes('провожала профессора') && el.classList.contains('flash'))`, 20*time.Second)
	md, rev := a.raw(t, doc.DocumentID)
	if rev != 1 || !strings.Contains(md, rewrittenVar) {
		t.Fatalf("after approval: revision %d, rewritten %v", rev, strings.Contains(md, rewrittenVar))
	}
	if !strings.Contains(tb.text(".card.approval .card-status"), "Approved") {
		t.Errorf("approval status: %q", tb.text(".card.approval .card-status"))
	}
	// A pointer in the answer is a link into the reading pane.
	tb.waitJS("a pointer link in the answer", `!!document.querySelector('.msg.assistant .content button.ptr.link')`, 10*time.Second)
	tb.click(`[data-tab="revisions"]`)
	tb.waitJS("the revision list", `!!document.querySelector('.rev[data-revision="1"] .diff ins')`, 10*time.Second)
	tb.shot("edited")

	// Undo: revision 2 restores the original text exactly.
	tb.click(".rev-bar .btn")
	tb.waitJS("the undone text", `![...document.querySelectorAll('.item')].some(el => el.textContent.includes('провожала профессора')) && !!document.querySelector('.rev[data-revision="2"]')`, 20*time.Second)
	md, rev = a.raw(t, doc.DocumentID)
	if rev != 2 || md != original {
		t.Fatalf("after undo: revision %d, original text %v", rev, md == original)
	}
	if !strings.Contains(tb.text(`.rev[data-revision="2"]`), "Restored revision 0") {
		t.Errorf("revert entry: %q", tb.text(`.rev[data-revision="2"]`))
	}
	// Any earlier version can be restored: revision 1 again.
	tb.click(`.rev[data-revision="1"] .btn`)
	tb.waitJS("revision 1 restored", `!!document.querySelector('.rev[data-revision="3"]') && [...document.querySelectorAll('.item')].some(el => el.textContent.includes('провожала профессора'))`, 20*time.Second)
	if md, rev = a.raw(t, doc.DocumentID); rev != 3 || !strings.Contains(md, rewrittenVar) {
		t.Fatalf("after restoring revision 1: revision %d", rev)
	}
	tb.click(".rev-bar .btn") // and undo that
	tb.waitJS("undone again", `!!document.querySelector('.rev[data-revision="4"]')`, 20*time.Second)
	if md, rev = a.raw(t, doc.DocumentID); rev != 4 || md != original {
		t.Fatalf("after undoing the restore: revision %d, original %v", rev, md == original)
	}

	// Reload: the chat comes back exactly as it was.
	before := evalJS[string](tb, `document.querySelector('.transcript').innerText`)
	tb.run("reload", chromedp.Reload())
	tb.waitJS("the replayed chat", `!!document.querySelector('.card.approval.decided') && [...document.querySelectorAll('.content strong')].length > 0`, 20*time.Second)
	after := evalJS[string](tb, `document.querySelector('.transcript').innerText`)
	if after != before {
		t.Errorf("the replayed chat differs:\n--- live\n%s\n--- replayed\n%s", before, after)
	}
	tb.shot("replayed")

	// A stopped run is canceled on the server.
	tb.click(".chat-head .btn")
	tb.typeInto(".chat-input", stopCommand)
	tb.click(".composer .send")
	tb.waitJS("the streaming answer", `document.querySelector('.content.streaming')?.textContent.includes('Давным-давно') && !document.querySelector('.composer .stop').hidden`, 20*time.Second)
	tb.click(".composer .stop")
	tb.waitJS("the stopped run", `!!document.querySelector('.card.error.stopped') && !document.querySelector('.composer .send').disabled`, 20*time.Second)
	var runs []any
	a.apiCall(t, http.MethodGet, "/runs", "", nil, &runs)
	if len(runs) != 0 {
		t.Errorf("runs still running after stop: %v", runs)
	}
	tb.shot("stopped")
}

func containsAll(have []string, want ...string) bool {
	for _, w := range want {
		found := false
		for _, h := range have {
			if h == w {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}
