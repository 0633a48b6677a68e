package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/store"
)

// dcViewBook has every kind of block the reading pane renders.
const dcViewBook = "# Глава\n\nПрофессор *Звёздочкин* вошёл.\n\n- один\n  - два\n\n> цитата\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n## Вечер\n\nЗвездочкин читал. Варя тоже читала.\n"

func TestDocumentItemsHTML(t *testing.T) {
	e := dcServer(t, 0)
	doc := e.upload(t, dcViewBook)
	got := mtData[documentItems](t, mtGet(t, e.h, "/api/ap/document/items?documentId="+doc.DocumentID+"&format=html"))
	type view struct {
		Kind  string
		Depth int
		HTML  string
	}
	var views []view
	for _, it := range got.Items {
		views = append(views, view{it.Kind, it.Depth, it.HTML})
	}
	require.Equal(t, []view{
		{"Heading", 0, "<h1>Глава</h1>\n"},
		{"Paragraph", 0, "<p>Профессор <em>Звёздочкин</em> вошёл.</p>\n"},
		{"ListItem", 1, "<ul>\n<li>один</li>\n</ul>\n"},
		{"ListItem", 2, "<ul>\n<li>два</li>\n</ul>\n"}, // dedented, not code
		{"Quote", 0, "<blockquote>\n<p>цитата</p>\n</blockquote>\n"},
		{"Table", 0, "<table>\n<thead>\n<tr>\n<th>a</th>\n<th>b</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>1</td>\n<td>2</td>\n</tr>\n</tbody>\n</table>\n"},
		{"Heading", 0, "<h2>Вечер</h2>\n"},
		{"Paragraph", 0, "<p>Звездочкин читал. Варя тоже читала.</p>\n"},
	}, views)
	// Without format=html nothing is added (the contract's shape).
	plain := mtGet(t, e.h, "/api/ap/document/items?documentId="+doc.DocumentID+"&format=markdown")
	require.NotContains(t, string(plain.Data), `"html"`)
	mtFail(t, mtGet(t, e.h, "/api/ap/document/items?documentId="+doc.DocumentID+"&format=pdf"), http.StatusBadRequest,
		"Invalid format: pdf. Use markdown|html", `{}`)
}

func TestDocumentLayoutAndLocate(t *testing.T) {
	e := dcServer(t, 0)
	doc := e.upload(t, dcViewBook)
	lay := mtData[documentLayout](t, mtGet(t, e.h, "/api/ap/document/layout?documentId="+doc.DocumentID))
	require.Equal(t, 8, lay.Total)
	require.Equal(t, "hpllpphp", lay.Types)
	require.Equal(t, []int{7, 29, 6, 7, 8, 29, 8, 35}, lay.Sizes, "characters, not bytes")

	loc := mtData[documentLocation](t, mtGet(t, e.h, "/api/ap/document/locate?documentId="+doc.DocumentID+"&pointer=1.1.p1"))
	require.Equal(t, documentLocation{DocumentID: doc.DocumentID, Index: 7, Pointer: "8:1.1.p1", Type: "paragraph"}, loc)
	loc = mtData[documentLocation](t, mtGet(t, e.h, "/api/ap/document/locate?documentId="+doc.DocumentID+"&pointer=7"))
	require.Equal(t, 6, loc.Index)

	base := "/api/ap/document/locate?documentId=" + doc.DocumentID
	mtFail(t, mtGet(t, e.h, base), http.StatusBadRequest, "Validation failed", `{"fields": {"pointer": "must not be blank"}}`)
	env := mtGet(t, e.h, base+"&pointer=99:9.p9")
	require.Equal(t, http.StatusBadRequest, env.Status)
	require.Contains(t, env.Msg, "99:9.p9")
	env = mtGet(t, e.h, base+"&pointer=%2B%2B")
	require.Equal(t, http.StatusBadRequest, env.Status)
	unknown := "6f1c2a7e-0000-4000-8000-000000000000"
	for _, path := range []string{"/api/ap/document/layout", "/api/ap/document/locate?pointer=1&x=", "/api/ap/document/find?q=x&x="} {
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		mtFail(t, mtGet(t, e.h, path+sep+"documentId="+unknown), http.StatusNotFound, "Document not found: "+unknown, `{}`)
	}
}

func TestDocumentFind(t *testing.T) {
	e := dcServer(t, 0)
	doc := e.upload(t, dcViewBook)
	find := func(q string) documentFound {
		return mtData[documentFound](t, mtGet(t, e.h, "/api/ap/document/find?documentId="+doc.DocumentID+q))
	}
	// The default mode finds every form of the word, in document order.
	all := find("&q=%D0%97%D0%B2%D0%B5%D0%B7%D0%B4%D0%BE%D1%87%D0%BA%D0%B8%D0%BD%D0%B0") // Звездочкина
	require.Equal(t, "all", all.Mode)
	require.False(t, all.LimitReached)
	require.Equal(t, []foundHit{
		{Index: 1, Pointer: "2:1.p1", Type: "paragraph", Matches: 1, Excerpt: "Профессор <mark>Звёздочкин</mark> вошёл."},
		{Index: 7, Pointer: "8:1.1.p1", Type: "paragraph", Matches: 1, Excerpt: "<mark>Звездочкин</mark> читал. Варя тоже читала."},
	}, all.Results)
	// Every word must be there.
	require.Len(t, find("&q=варя+звездочкин").Results, 1)
	// Exact phrase.
	exact := find("&mode=exact&q=тоже+читала")
	require.Equal(t, []foundHit{{Index: 7, Pointer: "8:1.1.p1", Type: "paragraph", Matches: 1,
		Excerpt: "Звездочкин читал. Варя <mark>тоже читала</mark>."}}, exact.Results)
	require.Empty(t, find("&mode=exact&q=читала+тоже").Results)
	// Ranked: scores, best first.
	ranked := find("&mode=ranked&q=читала+вошёл")
	require.Len(t, ranked.Results, 2)
	require.Positive(t, ranked.Results[0].Score)
	require.GreaterOrEqual(t, ranked.Results[0].Score, ranked.Results[1].Score)
	// Headings only when asked; limit; within.
	require.Empty(t, find("&q=вечер").Results)
	require.Len(t, find("&q=вечер&headings=true").Results, 1)
	limited := find("&q=звездочкин&limit=1")
	require.True(t, limited.LimitReached)
	require.Len(t, limited.Results, 1)
	require.Equal(t, 7, find("&q=звездочкин&within=1.1").Results[0].Index)

	base := "/api/ap/document/find?documentId=" + doc.DocumentID
	mtFail(t, mtGet(t, e.h, base), http.StatusBadRequest, "Validation failed", `{"fields": {"q": "must not be blank"}}`)
	mtFail(t, mtGet(t, e.h, base+"&q=x&mode=fuzzy"), http.StatusBadRequest, "Invalid mode: fuzzy. Use all|exact|ranked|semantic|hybrid|auto|entry", `{}`)
	mtFail(t, mtGet(t, e.h, base+"&q=x&limit=0"), http.StatusBadRequest, "Invalid limit: 0. Use an integer from 1 to 1000", `{}`)
	mtFail(t, mtGet(t, e.h, base+"&q=x&headings=maybe"), http.StatusBadRequest, "headings must be a boolean", `{}`)
	for _, q := range []string{"&q=...", "&q=x&within=1.p1", "&q=x&within=42:9"} {
		env := mtGet(t, e.h, base+q)
		require.Equal(t, http.StatusBadRequest, env.Status, q)
		require.NotEmpty(t, env.Msg, q)
	}
}

func TestDocumentDownload(t *testing.T) {
	e := dcServer(t, 0)
	src := "# Ü\r\n\r\nbody\n"
	doc := mtData[documentSummary](t, e.postJSON(t, "Мой роман", src))
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, localRequest(http.MethodGet, "/api/ap/document/download?documentId="+doc.DocumentID, nil))
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, "# Ü\n\nbody\n", rec.Body.String(), "the stored (normalised) text, byte for byte")
	require.Equal(t, "text/markdown; charset=utf-8", rec.Header().Get("Content-Type"))
	require.Equal(t, "attachment; filename*=UTF-8''%D0%9C%D0%BE%D0%B9%20%D1%80%D0%BE%D0%BC%D0%B0%D0%BD.md",
		rec.Header().Get("Content-Disposition"))
	require.Equal(t, "no-store", rec.Header().Get("Cache-Control"))
	mtFail(t, mtGet(t, e.h, "/api/ap/document/download?documentId=x"), http.StatusBadRequest, "documentId must be a valid UUID", `{}`)
}

// dcRevert posts POST /document/revert.
func (e *dcEnv) revert(t *testing.T, body string) mtEnvelope {
	t.Helper()
	req := localRequest(http.MethodPost, "/api/ap/document/revert", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	return mtDo(t, e.h, req)
}

func (e *dcEnv) raw(t *testing.T, id, query string) string {
	t.Helper()
	return mtData[documentRaw](t, mtGet(t, e.h, "/api/ap/document/raw?documentId="+id+query)).Markdown
}

func TestDocumentRevisionsAndRevert(t *testing.T) {
	e := dcServer(t, 0)
	doc := e.upload(t, dcBook) // "# A\n\nx\n\n## B\n\ny\n\nz\n"
	ctx := context.Background()
	tools, err := e.docs.BookTools(ctx, doc.DocumentID, "run1", nil)
	require.NoError(t, err)
	dcCall(t, tools, "editor-replace_text", "call_1", `{"pointer":"2","markdown":"x, rewritten"}`)
	dcCall(t, tools, "editor-delete", "call_2", `{"pointer":"5"}`)
	dcCall(t, tools, "editor-insert_after", "call_3", `{"pointer":"4","markdown":"w"}`)
	v := []string{dcBook, "# A\n\nx, rewritten\n\n## B\n\ny\n\nz\n", "# A\n\nx, rewritten\n\n## B\n\ny\n",
		"# A\n\nx, rewritten\n\n## B\n\ny\n\nw\n"}
	require.Equal(t, v[3], e.raw(t, doc.DocumentID, ""))
	for rev, want := range v {
		require.Equal(t, want, e.raw(t, doc.DocumentID, "&revision="+itoa(rev)), "revision %d", rev)
	}

	// Restore revision 1: the next revision holds its text; unchanged items
	// keep their pointers.
	res := mtData[revertResult](t, e.revert(t, `{"documentId":"`+doc.DocumentID+`","revision":1}`))
	require.Equal(t, 4, res.Revision)
	require.Equal(t, 1, res.RevertedTo)
	require.Equal(t, v[1], e.raw(t, doc.DocumentID, ""))
	ptrs := dcPointers(t, e.h, doc.DocumentID)
	require.Equal(t, "# A", ptrs["1:1"])
	require.Equal(t, "y", ptrs["4:1.1.p1"], "the paragraph before the change keeps its pointer")
	stored, err := e.st.GetDocument(ctx, doc.DocumentID)
	require.NoError(t, err)
	require.Equal(t, v[1], stored.Markdown)
	require.Equal(t, 4, stored.Revision)

	hist := mtData[documentHistory](t, mtGet(t, e.h, "/api/ap/document/history?documentId="+doc.DocumentID))
	last := hist.Edits[len(hist.Edits)-1]
	require.Equal(t, "revert", last.Op)
	require.Equal(t, 1, *last.RevertedTo)
	require.NotEmpty(t, last.Pointer, "the first item the revert changed")

	// Undo the revert (restore revision 3), then go back to the start.
	mtData[revertResult](t, e.revert(t, `{"documentId":"`+doc.DocumentID+`","revision":3}`))
	require.Equal(t, v[3], e.raw(t, doc.DocumentID, ""))
	mtData[revertResult](t, e.revert(t, `{"documentId":"`+doc.DocumentID+`","revision":0}`))
	require.Equal(t, dcBook, e.raw(t, doc.DocumentID, ""))
	// The book tools go on working on the restored text.
	dcCall(t, tools, "editor-replace_text", "call_4", `{"pointer":"1.p1","markdown":"x again"}`)
	require.Equal(t, "# A\n\nx again\n\n## B\n\ny\n\nz\n", e.raw(t, doc.DocumentID, ""))
	require.Equal(t, dcBook, e.raw(t, doc.DocumentID, "&revision=6"))

	// Errors.
	id := doc.DocumentID
	mtFail(t, e.revert(t, `{"documentId":"`+id+`","revision":7}`), http.StatusBadRequest,
		"No such revision: the document is already at revision 7", `{}`)
	mtFail(t, e.revert(t, `{"documentId":"`+id+`","revision":8}`), http.StatusBadRequest,
		"No such revision: revision 8 (the document is at revision 7)", `{}`)
	mtFail(t, e.revert(t, `{"documentId":"`+id+`","revision":-1}`), http.StatusBadRequest,
		"No such revision: revision -1 (the document is at revision 7)", `{}`)
	mtFail(t, e.revert(t, `{}`), http.StatusBadRequest, "Validation failed",
		`{"fields": {"documentId": "must not be blank", "revision": "must not be null"}}`)
	mtFail(t, e.revert(t, `{"documentId":"x","revision":1}`), http.StatusBadRequest, "documentId must be a valid UUID", `{}`)
	mtFail(t, e.revert(t, `{"documentId":"6f1c2a7e-0000-4000-8000-000000000000","revision":0}`), http.StatusNotFound,
		"Document not found: 6f1c2a7e-0000-4000-8000-000000000000", `{}`)
	mtFail(t, mtGet(t, e.h, "/api/ap/document/raw?documentId="+id+"&revision=x"), http.StatusBadRequest,
		"Invalid revision: x. Use an integer >= 0", `{}`)
}

func TestRevertRefusesUnrecordedEdits(t *testing.T) {
	e := dcServer(t, 0)
	doc := e.upload(t, "a\n")
	ctx := context.Background()
	// An edit stored by an older version: no splice.
	_, err := e.st.ApplyDocumentEdit(ctx, doc.DocumentID, store.DocumentContent{Markdown: "b\n", ItemCount: 1},
		store.DocumentEdit{Revision: 1, Op: "replace", Pointer: "1:p1"})
	require.NoError(t, err)
	r := e.restart() // a process that reads the document from the store
	mtFail(t, r.revert(t, `{"documentId":"`+doc.DocumentID+`","revision":0}`), http.StatusBadRequest,
		"Revision cannot be rebuilt: edit 1 was stored before edits recorded their changes", `{}`)
	require.Equal(t, "b\n", r.raw(t, doc.DocumentID, ""), "nothing changed")
}

func TestSpliceOf(t *testing.T) {
	for _, tc := range []struct{ old, new string }{{"abc", "abc"}, {"", "x"}, {"x", ""}, {"aXc", "aYYc"}, {"aa", "aaa"}, {"héllo", "hèllo"}} {
		sp := spliceOf(tc.old, tc.new)
		require.Equal(t, tc.new, tc.old[:sp.At]+sp.New+tc.old[sp.At+len(sp.Old):], "%q → %q", tc.old, tc.new)
		back, err := unsplice(tc.new, []store.DocumentEdit{{Revision: 1, Splice: sp}})
		require.NoError(t, err)
		require.Equal(t, tc.old, back)
	}
}
