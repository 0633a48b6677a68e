package web_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The codex panel: collect the sample book's characters from the text,
// open one with its names and the items naming it, jump to one, add an
// entry by hand, find every name of an entry in Find, and remove it.
func TestBrowserCodex(t *testing.T) {
	needBrowser(t)
	a := startApp(t, appOptions{})
	tb := newTab(t)
	doc := a.documents(t, "")[0]

	tb.open(a.base, "/#doc="+doc.DocumentID)
	tb.waitJS("the reading pane", itemVisible(0), 20*time.Second)
	tb.click(`[data-tab="codex"]`)
	tb.waitJS("the empty codex", `document.querySelector('.codex-status')?.textContent.includes('empty')`, 10*time.Second)

	// Collect from the text (no model): the characters with their names.
	tb.click(".codex-build")
	tb.waitJS("the entries", `document.querySelectorAll('.codex-list .entry').length >= 8`, 20*time.Second)
	if st := tb.text(".codex-status"); st != "10 entries." {
		t.Errorf("status after the build: %q", st)
	}
	if al := tb.text(`.entry[data-entry="федор-карлович-штейн"] .aliases`); al != "Фёдор Карлович, Ф. К. Штейн, Штейн" {
		t.Errorf("Штейн's other names: %q", al)
	}
	tb.shot("codex")

	// The filter and an entry's card: every item naming it, a click jumps.
	tb.typeInto(".codex-filter", "штейн")
	tb.run("filter", chromedp.Evaluate[chromedp.Void](`document.querySelector('.codex-filter').dispatchEvent(new Event('input'))`))
	tb.waitJS("one entry left", `document.querySelectorAll('.codex-list .entry').length === 1`, 5*time.Second)
	tb.click(`.entry[data-entry="федор-карлович-штейн"]`)
	tb.waitJS("the card with its mentions", `document.querySelectorAll('.codex-mentions .hit').length === 4`, 10*time.Second)
	marks := evalJS[[]string](tb, `[...document.querySelectorAll('.codex-mentions mark')].map(m => m.textContent)`)
	if !containsAll(marks, "Штейна", "Фёдора Карловича") {
		t.Errorf("the names as the text writes them are not marked: %v", marks)
	}
	target := evalJS[int](tb, `Number(document.querySelectorAll('.codex-mentions .hit')[3].dataset.index)`)
	tb.click(`.codex-mentions li:nth-child(4) .hit`)
	tb.waitJS("the item in view", itemVisible(target), 10*time.Second)

	// A new entry by hand, with another name; it is stored (the API sees it).
	tb.click(".codex-back")
	tb.click(".codex-new")
	tb.typeInto(".codex-name", "Часы на башне")
	tb.run("kind", chromedp.SetValue(chromedp.CSS(".codex-kind-field"), "object"))
	tb.typeInto(".codex-aliases", "башенные часы\nчасы ратуши")
	tb.typeInto(".codex-description", "городские часы Верхних Ключей, пошли назад после грозы")
	tb.click(`.codex-form button[type="submit"]`)
	tb.waitJS("the new entry's card", `document.querySelector('.codex-entry h3')?.textContent.startsWith('Часы на башне')`, 10*time.Second)
	var stored struct {
		Entries []struct {
			ID, Name, Kind, Origin string
			Aliases                []string
		} `json:"entries"`
	}
	a.apiCall(t, http.MethodGet, "/document/codex?kind=object&documentId="+doc.DocumentID, "", nil, &stored)
	if len(stored.Entries) != 1 || stored.Entries[0].Name != "Часы на башне" || stored.Entries[0].Origin != "user" || len(stored.Entries[0].Aliases) != 2 {
		t.Fatalf("stored: %+v", stored.Entries)
	}
	id := stored.Entries[0].ID

	// Find by an entry: every name of it.
	tb.click(`[data-tab="find"]`)
	tb.run("entry mode", chromedp.SetValue(chromedp.CSS(".find-mode"), "entry"))
	tb.typeInto(".find-input", "Аркадий Львович")
	tb.click(`.find-form button[type="submit"]`)
	tb.waitJS("the items naming Звёздочкин", `document.querySelectorAll('.find .hit').length >= 20`, 10*time.Second)

	// Remove the new entry (the confirmation answered yes).
	tb.click(`[data-tab="codex"]`)
	tb.run("confirm yes", chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`))
	tb.waitJS("its card", `document.querySelector('.codex-entry')?.dataset.entry === '`+id+`'`, 5*time.Second)
	tb.click(".codex-rm")
	tb.waitJS("the list without it", `!!document.querySelector('.codex-list') && !document.querySelector('.entry[data-entry="`+id+`"]')`, 10*time.Second)
	a.apiCall(t, http.MethodGet, "/document/codex?kind=object&documentId="+doc.DocumentID, "", nil, &stored)
	if len(stored.Entries) != 0 {
		t.Errorf("still stored: %+v", stored.Entries)
	}
}
