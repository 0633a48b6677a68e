package server

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/codex"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
	"github.com/aitexteditor/aite/internal/llm/openai"
)

func sampleMarkdown(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "zvezdochkin.md"))
	require.NoError(t, err)
	return string(src)
}

// cxSend sends a JSON body with a method.
func cxSend(t *testing.T, h http.Handler, method, target string, v any) mtEnvelope {
	t.Helper()
	body, err := json.Marshal(v)
	require.NoError(t, err)
	req := localRequest(method, target, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	return mtDo(t, h, req)
}

// cxRaw sends a GET and returns the raw response.
func cxRaw(t *testing.T, h http.Handler, target string) (*http.Response, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, localRequest(http.MethodGet, target, nil))
	body, err := io.ReadAll(rec.Result().Body)
	require.NoError(t, err)
	return rec.Result(), string(body)
}

func TestDocumentCodexEndpoints(t *testing.T) {
	e := dcServer(t, 0)
	doc := e.upload(t, sampleMarkdown(t))
	q := "?documentId=" + doc.DocumentID
	got := mtData[documentCodex](t, mtGet(t, e.h, "/api/ap/document/codex"+q))
	require.Equal(t, editor.CodexNone, got.Source)
	require.Empty(t, got.Entries)

	built := mtData[codexBuildResult](t, cxSend(t, e.h, http.MethodPost, "/api/ap/document/codex/build",
		map[string]any{"documentId": doc.DocumentID, "withModel": true}))
	require.Equal(t, 10, built.Entries)
	require.Equal(t, 10, built.FromText["added"])
	require.Contains(t, built.Notice, "no model is configured", "the model's part says why it did not run")

	got = mtData[documentCodex](t, mtGet(t, e.h, "/api/ap/document/codex"+q))
	require.Equal(t, editor.CodexStored, got.Source)
	require.Len(t, got.Entries, 10)
	require.Equal(t, "Варя", got.Entries[0].Name)
	require.Equal(t, 30, got.Entries[0].Items) // with "Варина мать" and "Варвара"
	places := mtData[documentCodex](t, mtGet(t, e.h, "/api/ap/document/codex"+q+"&kind=place"))
	require.Len(t, places.Entries, 3)
	mtFail(t, mtGet(t, e.h, "/api/ap/document/codex"+q+"&kind=planet"), http.StatusBadRequest,
		`invalid codex: unknown entry kind "planet" (character, place, object, term, event, style)`, `{}`)

	entry := mtData[codexEntryDetail](t, mtGet(t, e.h, "/api/ap/document/codex/entry"+q+"&entry="+url.QueryEscape("Ф. К. Штейн")))
	require.Equal(t, "Фёдор Карлович Штейн", entry.Entry.Name)
	require.Equal(t, 4, entry.Uses.Items)
	mtFail(t, mtGet(t, e.h, "/api/ap/document/codex/entry"+q+"&entry="+url.QueryEscape("Раскольников")), http.StatusNotFound,
		`no such entry: "Раскольников"`, `{}`)

	// Add an entry of one's own, with a fact; a bad pointer is refused.
	added := mtData[codex.Entry](t, cxSend(t, e.h, http.MethodPost, "/api/ap/document/codex/entry", map[string]any{
		"documentId": doc.DocumentID, "entry": map[string]any{"name": "Анфиса", "aliases": []string{"Анфиса Павловна"},
			"description": "жена Кузовкова", "facts": []any{map[string]any{"text": "печёт пироги", "evidence": []string{"74"}}}}}))
	require.Equal(t, codex.FromUser, added.Origin)
	require.Equal(t, []string{"74:1.3.2.p9"}, added.Facts[0].Evidence, "written as the full pointer")
	bad := cxSend(t, e.h, http.MethodPost, "/api/ap/document/codex/entry", map[string]any{"documentId": doc.DocumentID,
		"entry": map[string]any{"name": "X", "facts": []any{map[string]any{"text": "f", "evidence": []string{"9999"}}}}})
	require.Equal(t, http.StatusBadRequest, bad.Status, bad.Body)
	require.Contains(t, bad.Body, "9999")
	asOf := mtData[codexEntryDetail](t, mtGet(t, e.h, "/api/ap/document/codex/entry"+q+"&entry="+url.QueryEscape("Анфиса")+"&at=9"))
	require.Equal(t, "9:1.1.p6", asOf.At)
	require.Empty(t, asOf.FactsAsOf, "nothing known of her at item 9")

	// Replace (by id), merge, remove.
	added.Description = "жена городского головы"
	replaced := mtData[codex.Entry](t, cxSend(t, e.h, http.MethodPost, "/api/ap/document/codex/entry",
		map[string]any{"documentId": doc.DocumentID, "entry": added}))
	require.Equal(t, added.ID, replaced.ID)
	require.Equal(t, "жена городского головы", replaced.Description)
	merged := mtData[codex.Entry](t, cxSend(t, e.h, http.MethodPost, "/api/ap/document/codex/merge",
		map[string]any{"documentId": doc.DocumentID, "into": "Ерофеич", "from": []string{"Ерофей"}}))
	require.Contains(t, merged.Aliases, "Ерофей")
	del := cxSend(t, e.h, http.MethodDelete, "/api/ap/document/codex/entry"+q+"&entry=anfisa-pavlovna", nil)
	require.Equal(t, http.StatusNotFound, del.Status, "no such id")
	mtData[map[string]any](t, cxSend(t, e.h, http.MethodDelete, "/api/ap/document/codex/entry"+q+"&entry="+url.QueryEscape("анфиса-павловна"), nil))

	// Export and import.
	res, md := cxRaw(t, e.h, "/api/ap/document/codex/export"+q)
	require.Equal(t, "text/markdown; charset=utf-8", res.Header.Get("Content-Type"))
	require.Contains(t, md, "## Characters")
	_, js := cxRaw(t, e.h, "/api/ap/document/codex/export"+q+"&format=json")
	require.Contains(t, js, `"format": "aite-codex"`)
	other := e.upload(t, sampleMarkdown(t))
	imp := mtData[map[string]any](t, cxSend(t, e.h, http.MethodPost, "/api/ap/document/codex/import",
		map[string]any{"documentId": other.DocumentID, "markdown": md}))
	require.EqualValues(t, 9, imp["added"])
	imp = mtData[map[string]any](t, cxSend(t, e.h, http.MethodPost, "/api/ap/document/codex/import",
		map[string]any{"documentId": other.DocumentID, "codex": json.RawMessage(js), "replace": true}))
	require.EqualValues(t, 9, imp["entries"])
	require.Equal(t, http.StatusBadRequest, cxSend(t, e.h, http.MethodPost, "/api/ap/document/codex/import",
		map[string]any{"documentId": other.DocumentID, "appendix": true}).Status, "the book has no appendix")
	withCards := e.upload(t, "# Книга\n\nВаря читала.\n\n## Characters\n\n- Варя: ученица, дочь смотрителя\n")
	imp = mtData[map[string]any](t, cxSend(t, e.h, http.MethodPost, "/api/ap/document/codex/import",
		map[string]any{"documentId": withCards.DocumentID, "appendix": true}))
	require.EqualValues(t, 1, imp["entries"], "the book's own appendix, read under its lock: %v", imp)

	// find by entry.
	found := mtData[documentFound](t, mtGet(t, e.h, "/api/ap/document/find"+q+"&mode=entry&headings=true&q="+url.QueryEscape("Штейн")))
	require.Len(t, found.Results, 4)
	require.Contains(t, found.Results[1].Excerpt, "<mark>Штейна</mark>")

	// A restart reads the codex from the store.
	docs2 := NewDocuments(e.st, func() time.Time { return dcNow })
	h2 := New(Options{Store: e.st, Documents: docs2, Clock: func() time.Time { return dcNow }}).Handler()
	again := mtData[documentCodex](t, mtGet(t, h2, "/api/ap/document/codex"+q))
	require.Equal(t, editor.CodexStored, again.Source)
	require.Len(t, again.Entries, 9)

	mtFail(t, mtGet(t, e.h, "/api/ap/document/codex?documentId=00000000-0000-4000-8000-000000000000"), http.StatusNotFound,
		"Document not found: 00000000-0000-4000-8000-000000000000", `{}`)
}

func TestDocumentSearchByMeaning(t *testing.T) {
	e := dcServer(t, 0)
	doc := e.upload(t, sampleMarkdown(t))
	q := "?documentId=" + doc.DocumentID
	words := mtData[documentFound](t, mtGet(t, e.h, "/api/ap/document/find"+q+"&mode=hybrid&q="+url.QueryEscape("часы на башне")))
	require.Equal(t, "ranked", words.RankedBy, "without a model: by words")
	require.Contains(t, words.Notice, "no embedding model")
	idx := mtData[documentIndex](t, mtGet(t, e.h, "/api/ap/document/index"+q))
	require.False(t, idx.Enabled)
	require.Contains(t, idx.Notice, "AITE_EMBED_MODEL")

	srv := llmtest.NewEmbedServer(t, llmtest.EmbedModels(map[string]int{"emb": 4096},
		map[string]string{"letter": "letter", "письмо": "letter", "конверт": "letter", "post": "post", "почта": "post"}))
	emb := &editor.Embeddings{Embedder: srv.Embedder(openai.EmbedConfig{Model: "emb"}), Model: "emb"}
	e.docs.SetEmbeddings(emb)
	idx = mtData[documentIndex](t, cxSend(t, e.h, http.MethodPost, "/api/ap/document/index", map[string]any{"documentId": doc.DocumentID}))
	require.Equal(t, 105, idx.EmbeddedNow)
	require.Equal(t, 105, idx.Embedded)
	found := mtData[documentFound](t, mtGet(t, e.h, "/api/ap/document/find"+q+"&mode=semantic&limit=3&q="+url.QueryEscape("the letter at the post office")))
	require.Equal(t, "semantic", found.RankedBy)
	require.Len(t, found.Results, 3)
	require.Positive(t, found.Results[0].Score)

	// A restart reads the vectors from the store: only the query is embedded.
	before := srv.Inputs()
	docs2 := NewDocuments(e.st, func() time.Time { return dcNow })
	docs2.SetEmbeddings(emb)
	h2 := New(Options{Store: e.st, Documents: docs2, Clock: func() time.Time { return dcNow }}).Handler()
	found = mtData[documentFound](t, mtGet(t, h2, "/api/ap/document/find"+q+"&mode=auto&q="+url.QueryEscape("письмо")))
	require.Equal(t, "hybrid", found.RankedBy)
	require.Equal(t, before+1, srv.Inputs())

	// A dead endpoint: words, and why.
	srv.FailWith(func(int) *llmtest.Response { return &llmtest.Response{Status: 503, Body: `{"error":"down"}`} })
	found = mtData[documentFound](t, mtGet(t, h2, "/api/ap/document/find"+q+"&mode=hybrid&q="+url.QueryEscape("часы")))
	require.Equal(t, "ranked", found.RankedBy)
	require.Contains(t, found.Notice, "search by meaning failed")
}
