package web_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// lighthouseBook is uploaded and downloaded again: LF line ends and no BOM,
// so the stored text is the file byte for byte.
const lighthouseBook = "# Маяк на мысе\n\nСмотритель *Ерофеич* зажигал огонь ровно в семь.\n\n## Часть первая\n\n" +
	"- список\n  - вложенный пункт\n\n> Цитата из вахтенного журнала.\n\n| Час | Ветер |\n|---|---|\n| 7 | норд |\n\n```\nкод\n```\n\nThe end — конец.\n"

// dropFiles drags files from the desktop onto the page at (x, y) and
// drops them, as a person does; between the drag and the drop, while the
// files hover over the page, shot is called.
func (tb *tab) dropFiles(x, y float64, files []string, hover func()) {
	tb.t.Helper()
	data := &input.DragData{Items: []*input.DragDataItem{}, Files: files, DragOperationsMask: 1}
	for _, typ := range []input.DispatchDragEventType{input.DispatchDragEventTypeDragEnter, input.DispatchDragEventTypeDragOver} {
		if _, err := chromedp.Call(tb.ctx, input.DispatchDragEvent, input.DispatchDragEventParams{Type: typ, X: x, Y: y, Data: data}); err != nil {
			tb.t.Fatalf("drag %s: %v", typ, err)
		}
	}
	hover()
	if _, err := chromedp.Call(tb.ctx, input.DispatchDragEvent, input.DispatchDragEventParams{Type: input.DispatchDragEventTypeDrop, X: x, Y: y, Data: data}); err != nil {
		tb.t.Fatalf("drop: %v", err)
	}
}

// Library, upload and download, language, theme and keyboard: add a book
// by dragging a file onto the library, download it again byte for byte,
// refuse a file that is not text, then read it in Russian and in the dark
// with the keyboard.
func TestBrowserLibraryAndSettings(t *testing.T) {
	needBrowser(t)
	a := startApp(t, appOptions{})
	tb := newTab(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "Маяк.md")
	if err := os.WriteFile(src, []byte(lighthouseBook), 0o644); err != nil {
		t.Fatal(err)
	}
	tb.open(a.base, "/")
	tb.waitJS("the library", `!!document.querySelector('.lib-table .doc-link')`, 20*time.Second)

	// Drag and drop.
	tb.dropFiles(700, 400, []string{src}, func() {
		tb.waitJS("the drop zone", `document.querySelector('.library').classList.contains('dragging')`, 5*time.Second)
		tb.shot("library-drop")
	})
	tb.waitJS("the new book", `[...document.querySelectorAll('.lib-table .doc-link')].some(l => l.textContent === 'Маяк')`, 20*time.Second)
	var id string
	for _, d := range a.documents(t, "") {
		if d.Name == "Маяк" {
			id = d.DocumentID
		}
	}
	if stored, _ := a.raw(t, id); stored != lighthouseBook {
		t.Fatalf("stored text differs from the file:\n%q", stored)
	}

	// Download it again.
	downloads := t.TempDir()
	events := chromedp.BrowserEvents(tb.ctx, browser.DownloadProgress)
	on := true
	if _, err := chromedp.CallBrowser(tb.ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllow, DownloadPath: downloads, EventsEnabled: &on}); err != nil {
		t.Fatal(err)
	}
	tb.click(`.lib-table tr[data-id="` + id + `"] .btn`)
	ctx, cancel := context.WithTimeout(tb.ctx, 20*time.Second)
	defer cancel()
	for ev, err := range events {
		if err != nil || ctx.Err() != nil {
			t.Fatalf("waiting for the download: %v %v", err, ctx.Err())
		}
		if ev.State == browser.DownloadProgressStateCompleted {
			break
		}
		if ev.State == browser.DownloadProgressStateCanceled {
			t.Fatal("the download was canceled")
		}
	}
	got, err := os.ReadFile(filepath.Join(downloads, "Маяк.md"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != lighthouseBook {
		t.Fatalf("downloaded %q, want the uploaded file byte for byte", got)
	}

	// A file that is not UTF-8 text is refused with a reason.
	bad := filepath.Join(dir, "picture.md")
	if err := os.WriteFile(bad, []byte{0x89, 'P', 'N', 'G', 0xff, 0xfe}, 0o644); err != nil {
		t.Fatal(err)
	}
	tb.allow("status of 400") // the refused upload
	tb.run("choose a file", chromedp.SetUploadFiles(chromedp.CSS(`.library input[type="file"]`), []string{bad}))
	tb.waitJS("the refusal", `document.querySelector('.lib-status').textContent.includes('not valid UTF-8')`, 10*time.Second)

	// Read it in Russian, in the dark.
	tb.click(`.lib-table tr[data-id="` + id + `"] .doc-link`)
	tb.waitJS("the book", itemVisible(0), 20*time.Second)
	tb.click(".topbar .lang")
	tb.waitJS("Russian", `document.querySelector('[data-tab="contents"]')?.textContent === 'Оглавление' && document.documentElement.lang === 'ru'`, 10*time.Second)
	tb.waitJS("the book again", itemVisible(0), 20*time.Second)
	tb.click(".topbar .theme") // auto → light
	tb.click(".topbar .theme") // light → dark
	tb.waitJS("the dark theme", `document.documentElement.dataset.theme === 'dark' && localStorage.getItem('aite.theme') === 'dark'`, 5*time.Second)
	if bg := evalJS[string](tb, `getComputedStyle(document.body).backgroundColor`); bg != "rgb(21, 23, 26)" {
		t.Errorf("dark background %q", bg)
	}
	for sel, want := range map[string]string{`.item[data-index="4"] li`: "вложенный пункт", `.item[data-index="6"] td`: "7",
		`.item[data-index="5"] blockquote`: "Цитата из вахтенного журнала.", `.item[data-index="7"] pre`: "код\n"} {
		if got := tb.text(sel); got != want {
			t.Errorf("%s: %q, want %q", sel, got, want)
		}
	}
	tb.shot("reader-dark-ru")

	// The keyboard: the reading pane, the outline, find and the help.
	tb.key(kb.Escape) // back to the reading pane
	tb.key("j")
	tb.waitJS("an item focused with j", `document.activeElement?.classList.contains('item')`, 5*time.Second)
	tb.key("]")
	tb.waitJS("the next heading focused with ]", `document.activeElement?.querySelector('h2')?.textContent === 'Часть первая'`, 5*time.Second)
	tb.key("o")
	tb.waitJS("the outline focused with o", `document.activeElement?.classList.contains('heading')`, 5*time.Second)
	tb.key(kb.ArrowDown)
	tb.waitJS("the second heading", `document.activeElement?.textContent.startsWith('Часть первая')`, 5*time.Second)
	tb.key(kb.Enter)
	tb.waitJS("the jump", `document.activeElement?.dataset.index === '2'`, 5*time.Second)
	tb.key("/")
	tb.waitJS("the find box focused with /", `document.activeElement?.classList.contains('find-input')`, 5*time.Second)
	tb.key(kb.Escape)
	tb.key("?")
	tb.waitJS("the shortcuts", `!!document.querySelector('.keys-dialog')`, 5*time.Second)
	if s := tb.text(".keys-dialog"); !strings.Contains(s, "Поиск по книге") {
		t.Errorf("shortcuts: %q", s)
	}
	tb.shot("keys-ru")
	tb.key(kb.Escape)
	tb.waitJS("the shortcuts closed", `!document.querySelector('.keys-dialog')`, 5*time.Second)
}
