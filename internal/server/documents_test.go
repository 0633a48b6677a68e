package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/agent"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/store"
	"github.com/aitexteditor/aite/internal/store/memory"
	"github.com/aitexteditor/aite/internal/tool"
)

// dcStore is a memory store whose document writes and listing can be made
// to fail.
type dcStore struct {
	*memory.Store
	failApply atomic.Bool
	failList  atomic.Bool
}

var errDCStore = errors.New("disk I/O error: UPDATE documents SET markdown = ?")

func (s *dcStore) ApplyDocumentEdit(ctx context.Context, docID string, c store.DocumentContent, e store.DocumentEdit) (store.Document, error) {
	if s.failApply.Load() {
		return store.Document{}, errDCStore
	}
	return s.Store.ApplyDocumentEdit(ctx, docID, c, e)
}

func (s *dcStore) ListDocuments(ctx context.Context) ([]store.Document, error) {
	if s.failList.Load() {
		return nil, errDCStore
	}
	return s.Store.ListDocuments(ctx)
}

// dcNow is the creation time of the test documents.
var dcNow = time.Date(2026, 2, 3, 4, 5, 6, 789_000_000, time.UTC)

// dcEnv is a server with documents over a dcStore.
type dcEnv struct {
	st   *dcStore
	docs *Documents
	h    http.Handler
}

func dcServer(t *testing.T, maxBytes int64) *dcEnv {
	t.Helper()
	st := &dcStore{Store: memory.New()}
	clock := func() time.Time { return dcNow }
	docs := NewDocuments(st, clock)
	h := New(Options{Store: st, Documents: docs, DocumentMaxBytes: maxBytes, Clock: clock}).Handler()
	return &dcEnv{st: st, docs: docs, h: h}
}

// post sends a POST /documents with a content type.
func (e *dcEnv) post(t *testing.T, contentType string, body []byte) mtEnvelope {
	t.Helper()
	req := localRequest(http.MethodPost, "/api/ap/documents", bytes.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	return mtDo(t, e.h, req)
}

func (e *dcEnv) postJSON(t *testing.T, name, markdown string) mtEnvelope {
	t.Helper()
	body, err := json.Marshal(map[string]string{"name": name, "markdown": markdown})
	require.NoError(t, err)
	return e.post(t, "application/json", body)
}

// upload creates a document through the API and returns its summary.
func (e *dcEnv) upload(t *testing.T, markdown string) documentSummary {
	t.Helper()
	return mtData[documentSummary](t, e.postJSON(t, "Book", markdown))
}

// dcMultipart builds a multipart body with the given parts (a part named
// file gets fileName).
func dcMultipart(t *testing.T, fileName string, parts map[string]string) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for name, content := range parts {
		var w interface{ Write([]byte) (int, error) }
		var err error
		if name == "file" {
			w, err = mw.CreateFormFile("file", fileName)
		} else {
			w, err = mw.CreateFormField(name)
		}
		require.NoError(t, err)
		_, err = w.Write([]byte(content))
		require.NoError(t, err)
	}
	require.NoError(t, mw.Close())
	return mw.FormDataContentType(), buf.Bytes()
}

var uuidV4Pattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestDocumentUploadListRaw(t *testing.T) {
	e := dcServer(t, 0)
	// Row 81: a UUID, revision 0, the normalised text stored unchanged.
	src := "\uFEFF# Title\r\n\r\nFirst line\rsecond line\r\n\r\n- item ü\n"
	want := "# Title\n\nFirst line\nsecond line\n\n- item ü\n"
	doc := e.upload(t, src)
	require.Regexp(t, uuidV4Pattern, doc.DocumentID)
	require.Equal(t, documentSummary{DocumentID: doc.DocumentID, Name: "Book", SizeBytes: len(want), ItemCount: 3,
		Revision: 0, CreatedAt: dcNow.UnixMilli(), UpdatedAt: dcNow.UnixMilli()}, doc)

	list := mtData[[]documentSummary](t, mtGet(t, e.h, "/api/ap/documents"))
	require.Equal(t, []documentSummary{doc}, list)

	raw := mtGet(t, e.h, "/api/ap/document/raw?documentId="+strings.ToUpper(doc.DocumentID))
	require.Equal(t, documentRaw{DocumentID: doc.DocumentID, Revision: 0, Markdown: want}, mtData[documentRaw](t, raw))

	// Multipart: the name defaults to the file name without its extension.
	ct, body := dcMultipart(t, "dir/My Book.md", map[string]string{"file": "# A\r\n"})
	up := mtData[documentSummary](t, e.post(t, ct, body))
	require.Equal(t, "My Book", up.Name)
	require.Equal(t, 4, up.SizeBytes)
	ct, body = dcMultipart(t, "x.md", map[string]string{"file": "# B\n", "name": " Named "})
	require.Equal(t, "Named", mtData[documentSummary](t, e.post(t, ct, body)).Name)
	require.Len(t, mtData[[]documentSummary](t, mtGet(t, e.h, "/api/ap/documents")), 3)
}

func TestDocumentListOrder(t *testing.T) {
	st := memory.New()
	ctx := context.Background()
	for i, id := range []string{"00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002",
		"00000000-0000-4000-8000-000000000003"} {
		at := dcNow.Add(time.Duration([]int{2, 3, 1}[i]) * time.Minute)
		_, err := st.CreateDocument(ctx, store.Document{ID: id, Name: id, Markdown: "x", CreatedAt: at, UpdatedAt: at})
		require.NoError(t, err)
	}
	h := New(Options{Store: st}).Handler()
	var ids []string
	for _, d := range mtData[[]documentSummary](t, mtGet(t, h, "/api/ap/documents")) {
		ids = append(ids, d.DocumentID[len(d.DocumentID)-1:])
	}
	require.Equal(t, []string{"2", "1", "3"}, ids, "updatedAt descending")
}

func TestDocumentUploadErrors(t *testing.T) {
	e := dcServer(t, 64)
	valid := func(env mtEnvelope, fields string) {
		t.Helper()
		mtFail(t, env, http.StatusBadRequest, "Validation failed", `{"fields": `+fields+`}`)
	}
	valid(e.postJSON(t, " ", "# x"), `{"name": "must not be blank"}`)
	valid(e.post(t, "application/json", []byte(`{"name": "n"}`)), `{"markdown": "must not be blank"}`)
	valid(e.post(t, "application/json", []byte(`{}`)), `{"name": "must not be blank", "markdown": "must not be blank"}`)
	valid(e.post(t, "application/json", nil), `{"name": "must not be blank", "markdown": "must not be blank"}`)
	valid(e.postJSON(t, "n", "\uFEFF"), `{"markdown": "must not be empty"}`)
	valid(e.postJSON(t, strings.Repeat("я", 201), "# x"), `{"name": "must have at most 200 characters"}`)
	require.Equal(t, http.StatusOK, e.postJSON(t, strings.Repeat("я", 200), "# x").Status)

	bad := func(env mtEnvelope, msg string) {
		t.Helper()
		mtFail(t, env, http.StatusBadRequest, msg, `{}`)
	}
	bad(e.post(t, "application/json", []byte(`{"name": 1, "markdown": "x"}`)), "Wrong type for field name")
	bad(e.post(t, "application/json", []byte(`{"name": "n", "markdown": "x"`)), "Malformed JSON")
	bad(e.post(t, "application/json", []byte("{\"name\": \"n\", \"markdown\": \"\xff\xfe\"}")), "Document is not valid UTF-8")
	bad(e.postJSON(t, "n", strings.Repeat("a", 65)), "Document too large: the limit is 64 bytes")
	require.Equal(t, http.StatusOK, e.postJSON(t, "n", strings.Repeat("a", 62)+"\r\n").Status, "the normalised size counts")
	bad(e.post(t, "application/json", bytes.Repeat([]byte(" "), 2*64+uploadMargin+1)), "Request body too large")

	ct, body := dcMultipart(t, "", map[string]string{"name": "n"})
	valid(e.post(t, ct, body), `{"file": "is required"}`)
	ct, body = dcMultipart(t, "a.md", map[string]string{"file": ""})
	valid(e.post(t, ct, body), `{"file": "must not be empty"}`)
	ct, body = dcMultipart(t, "a.md", map[string]string{"file": "\xff"})
	bad(e.post(t, ct, body), "Document is not valid UTF-8")
	ct, body = dcMultipart(t, "a.md", map[string]string{"file": strings.Repeat("b", 65)})
	bad(e.post(t, ct, body), "Document too large: the limit is 64 bytes")
	bad(e.post(t, "multipart/form-data", []byte("x")), "Malformed multipart body")
	bad(e.post(t, "multipart/form-data; boundary=zz", []byte("--zz\r\nbroken")), "Malformed multipart body")
	require.Len(t, mtData[[]documentSummary](t, mtGet(t, e.h, "/api/ap/documents")), 2, "only the valid uploads")

	// An unexpected failure is a 500 without internals (row 2).
	e.st.failList.Store(true)
	env := mtGet(t, e.h, "/api/ap/documents")
	mtFail(t, env, http.StatusInternalServerError, "Internal server error", `{}`)
	require.NotContains(t, env.Body, "UPDATE")
}

// dcBook is the book of row 82.
const dcBook = "# A\n\nx\n\n## B\n\ny\n\nz\n"

func TestDocumentOutlineAndItems(t *testing.T) {
	e := dcServer(t, 0)
	doc := e.upload(t, dcBook)
	// Row 82: the outline holds the headings with their label pointers.
	d := mtData[documentDetail](t, mtGet(t, e.h, "/api/ap/document?documentId="+doc.DocumentID))
	require.Equal(t, doc, d.documentSummary)
	require.Equal(t, []outlineEntry{{"1:1", 1, "A", 0, 4}, {"3:1.1", 2, "B", 2, 2}}, d.Outline)

	// Row 83: paging.
	items := func(query string) documentItems {
		return mtData[documentItems](t, mtGet(t, e.h, "/api/ap/document/items?documentId="+doc.DocumentID+query))
	}
	all := items("")
	require.Equal(t, documentItems{DocumentID: doc.DocumentID, Revision: 0, Total: 5, From: 0, HasMore: false,
		Items: []documentItem{
			{Index: 0, Pointer: "1:1", Type: "heading", Level: 1, Markdown: "# A"},
			{Index: 1, Pointer: "2:1.p1", Type: "paragraph", Markdown: "x"},
			{Index: 2, Pointer: "3:1.1", Type: "heading", Level: 2, Markdown: "## B"},
			{Index: 3, Pointer: "4:1.1.p1", Type: "paragraph", Markdown: "y"},
			{Index: 4, Pointer: "5:1.1.p2", Type: "paragraph", Markdown: "z"},
		}}, all)
	page := items("&from=1&limit=2")
	require.Equal(t, 5, page.Total)
	require.True(t, page.HasMore)
	require.Equal(t, all.Items[1:3], page.Items)
	page = items("&from=3&limit=2")
	require.False(t, page.HasMore)
	require.Equal(t, all.Items[3:], page.Items)
	page = items("&from=4&limit=500")
	require.Equal(t, all.Items[4:], page.Items)
	page = items("&from=9")
	require.Equal(t, 9, page.From)
	require.False(t, page.HasMore)
	require.Empty(t, page.Items)
	require.Contains(t, string(mtGet(t, e.h, "/api/ap/document/items?documentId="+doc.DocumentID+"&from=9").Data), `"items":[]`)
}

func TestItemTypes(t *testing.T) {
	e := dcServer(t, 0)
	doc := e.upload(t, "# H\n\n- one\n\n```go\nx\n```\n\n---\n\n<div>\nhi\n</div>\n\n> quoted\n\n| a | b |\n|---|---|\n| 1 | 2 |\n")
	got := mtData[documentItems](t, mtGet(t, e.h, "/api/ap/document/items?documentId="+doc.DocumentID))
	var types []string
	for _, it := range got.Items {
		types = append(types, it.Type)
	}
	require.Equal(t, []string{"heading", "list_item", "code", "thematic_break", "html", "paragraph", "paragraph"}, types)
}

func TestDocumentReadErrors(t *testing.T) {
	e := dcServer(t, 0)
	doc := e.upload(t, dcBook)
	unknown := "6f1c2a7e-0000-4000-8000-000000000000"
	for _, path := range []string{"/api/ap/document", "/api/ap/document/items", "/api/ap/document/raw", "/api/ap/document/history"} {
		mtFail(t, mtGet(t, e.h, path), http.StatusBadRequest, "Validation failed", `{"fields": {"documentId": "must not be blank"}}`)
		mtFail(t, mtGet(t, e.h, path+"?documentId=%20"), http.StatusBadRequest, "Validation failed", `{"fields": {"documentId": "must not be blank"}}`)
		mtFail(t, mtGet(t, e.h, path+"?documentId=not-a-uuid"), http.StatusBadRequest, "documentId must be a valid UUID", `{}`)
		mtFail(t, mtGet(t, e.h, path+"?documentId="+unknown), http.StatusNotFound, "Document not found: "+unknown, `{}`)
	}
	// Row 83: bad from / limit.
	base := "/api/ap/document/items?documentId=" + doc.DocumentID
	for q, msg := range map[string]string{
		"&limit=0": "Invalid limit: 0. Use an integer from 1 to 500", "&limit=501": "Invalid limit: 501. Use an integer from 1 to 500",
		"&limit=x": "Invalid limit: x. Use an integer from 1 to 500", "&from=-1": "Invalid from: -1. Use an integer >= 0",
		"&from=1.5": "Invalid from: 1.5. Use an integer >= 0",
	} {
		mtFail(t, mtGet(t, e.h, base+q), http.StatusBadRequest, msg, `{}`)
	}
	mtFail(t, mtGet(t, e.h, "/api/ap/document/items?documentId="+unknown+"&limit=5"), http.StatusNotFound, "Document not found: "+unknown, `{}`)
	// An unknown document leaves no state behind.
	e.docs.mu.Lock()
	require.Len(t, e.docs.docs, 1)
	e.docs.mu.Unlock()
}

// dcCall calls a book tool as the engine does, with a tool call id.
func dcCall(t *testing.T, tools map[string]tool.Tool, name, callID, args string) tool.Result {
	t.Helper()
	tl, ok := tools[name]
	require.True(t, ok, name)
	res, err := tl.Call(agent.WithCall(context.Background(), callID), json.RawMessage(args))
	require.NoError(t, err)
	return res
}

func TestBookToolsPersistEdits(t *testing.T) {
	e := dcServer(t, 0)
	doc := e.upload(t, dcBook)
	ctx := context.Background()
	tools, err := e.docs.BookTools(ctx, doc.DocumentID, "run1", nil)
	require.NoError(t, err)
	for name := range tools {
		require.Equal(t, strings.ToLower(name), name)
	}
	require.Contains(t, tools, "editor-replace_text")

	res := dcCall(t, tools, "editor-replace_text", "call_1", `{"pointer": "2:1.p1", "markdown": "new x"}`)
	require.False(t, res.IsError, res.Text)
	require.Equal(t, []tool.Edit{{Book: doc.DocumentID, Op: "replace", Pointer: "2:1.p1", NewPointer: "2:1.p1",
		Before: "x", After: "new x", Revision: 1}}, res.Edits)
	res = dcCall(t, tools, "editor-insert_after", "call_2", `{"pointer": "5", "markdown": "w"}`)
	require.Equal(t, 2, res.Edits[0].Revision)
	require.Equal(t, "6:1.1.p3", res.Edits[0].NewPointer)
	res = dcCall(t, tools, "editor-delete", "call_3", `{"pointer": "4"}`)
	require.Equal(t, 3, res.Edits[0].Revision)
	// A refused edit and a read change nothing.
	require.True(t, dcCall(t, tools, "editor-delete", "call_4", `{"pointer": "1"}`).IsError)
	require.Empty(t, dcCall(t, tools, "editor-read", "call_5", `{"pointer": "1"}`).Edits)

	want := "# A\n\nnew x\n\n## B\n\nz\n\nw\n"
	stored, err := e.st.GetDocument(ctx, doc.DocumentID)
	require.NoError(t, err)
	require.Equal(t, want, stored.Markdown)
	require.Equal(t, 3, stored.Revision)
	require.Equal(t, 5, stored.ItemCount)
	require.Equal(t, documentRaw{DocumentID: doc.DocumentID, Revision: 3, Markdown: want},
		mtData[documentRaw](t, mtGet(t, e.h, "/api/ap/document/raw?documentId="+doc.DocumentID)))
	items := mtData[documentItems](t, mtGet(t, e.h, "/api/ap/document/items?documentId="+doc.DocumentID))
	require.Equal(t, 3, items.Revision)
	require.Equal(t, "6:1.1.p2", items.Items[4].Pointer)

	at := dcNow.UnixMilli()
	h := mtGet(t, e.h, "/api/ap/document/history?documentId="+doc.DocumentID)
	require.JSONEq(t, fmt.Sprintf(`{"documentId": %q, "edits": [
		{"revision": 1, "runId": "run1", "toolId": "call_1", "op": "replace", "pointer": "2:1.p1", "newPointer": "2:1.p1", "before": "x", "after": "new x", "at": %d},
		{"revision": 2, "runId": "run1", "toolId": "call_2", "op": "insert_after", "pointer": "5:1.1.p2", "newPointer": "6:1.1.p3", "after": "w", "at": %d},
		{"revision": 3, "runId": "run1", "toolId": "call_3", "op": "delete", "pointer": "4:1.1.p1", "before": "y", "at": %d}]}`,
		doc.DocumentID, at, at, at), string(h.Data))

	_, err = e.docs.BookTools(ctx, "6f1c2a7e-0000-4000-8000-000000000000", "run1", nil)
	require.ErrorIs(t, err, store.ErrNotFound)
}

func TestBookToolsLoadLazily(t *testing.T) {
	st := memory.New()
	ctx := context.Background()
	id := "0e9b8a6c-1111-4222-8333-444455556666"
	_, err := st.CreateDocument(ctx, store.Document{ID: id, Name: "old", Markdown: dcBook, ItemCount: 5, CreatedAt: dcNow, UpdatedAt: dcNow})
	require.NoError(t, err)
	docs := NewDocuments(st, nil)
	h := New(Options{Store: st, Documents: docs}).Handler()
	require.Len(t, mtData[documentDetail](t, mtGet(t, h, "/api/ap/document?documentId="+id)).Outline, 2)
	tools, err := docs.BookTools(ctx, id, "run9", nil)
	require.NoError(t, err)
	res := dcCall(t, tools, "editor-replace_text", "c1", `{"pointer": "1.1.p2", "markdown": "zz"}`)
	require.Equal(t, 1, res.Edits[0].Revision)
	stored, err := st.GetDocument(ctx, id)
	require.NoError(t, err)
	require.Equal(t, "# A\n\nx\n\n## B\n\ny\n\nzz\n", stored.Markdown)
}

func TestBookToolsUndoWhenPersistFails(t *testing.T) {
	e := dcServer(t, 0)
	doc := e.upload(t, dcBook)
	tools, err := e.docs.BookTools(context.Background(), doc.DocumentID, "run1", nil)
	require.NoError(t, err)
	e.st.failApply.Store(true)
	res := dcCall(t, tools, "editor-insert_before", "c1", `{"pointer": "2", "markdown": "new"}`)
	require.True(t, res.IsError)
	require.Equal(t, "tool_failed", res.Code)
	require.NotContains(t, res.Text, "UPDATE")
	require.Empty(t, res.Edits)
	src, err := e.docs.session.Source(doc.DocumentID)
	require.NoError(t, err)
	require.Equal(t, dcBook, string(src), "the edit is undone in memory")

	e.st.failApply.Store(false)
	res = dcCall(t, tools, "editor-insert_before", "c2", `{"pointer": "2", "markdown": "new"}`)
	require.False(t, res.IsError, res.Text)
	require.Equal(t, 1, res.Edits[0].Revision)
	raw := mtData[documentRaw](t, mtGet(t, e.h, "/api/ap/document/raw?documentId="+doc.DocumentID))
	require.Equal(t, "# A\n\nnew\n\nx\n\n## B\n\ny\n\nz\n", raw.Markdown)
}

func TestBookToolsConcurrentRuns(t *testing.T) {
	e := dcServer(t, 0)
	doc := e.upload(t, dcBook)
	const runs, edits = 4, 5
	var wg sync.WaitGroup
	for r := range runs {
		tools, err := e.docs.BookTools(context.Background(), doc.DocumentID, fmt.Sprintf("run%d", r), nil)
		require.NoError(t, err)
		wg.Go(func() {
			for i := range edits {
				res, err := tools["editor-insert_after"].Call(agent.WithCall(context.Background(), fmt.Sprintf("c%d_%d", r, i)),
					json.RawMessage(fmt.Sprintf(`{"pointer": "1", "markdown": "r%d e%d"}`, r, i)))
				if err != nil || res.IsError || len(res.Edits) != 1 {
					t.Errorf("edit r%d e%d: %v %+v", r, i, err, res)
				}
				_, _ = tools["editor-read"].Call(context.Background(), json.RawMessage(`{"pointer": "1", "after": 3}`))
			}
		})
		wg.Go(func() {
			for range edits {
				rec := httptest.NewRecorder()
				e.h.ServeHTTP(rec, localRequest(http.MethodGet, "/api/ap/document/items?documentId="+doc.DocumentID, nil))
				var env struct{ Data documentItems }
				if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil || rec.Code != http.StatusOK {
					t.Errorf("items: %d %s", rec.Code, rec.Body)
				}
				if page := env.Data; page.Total != 5+page.Revision || len(page.Items) != page.Total {
					t.Errorf("revision %d with %d items", page.Revision, page.Total)
				}
			}
		})
	}
	wg.Wait()
	hist := mtData[documentHistory](t, mtGet(t, e.h, "/api/ap/document/history?documentId="+doc.DocumentID))
	require.Len(t, hist.Edits, runs*edits)
	for i, ed := range hist.Edits {
		require.Equal(t, i+1, ed.Revision)
	}
	stored, err := e.st.GetDocument(context.Background(), doc.DocumentID)
	require.NoError(t, err)
	src, err := e.docs.session.Source(doc.DocumentID)
	require.NoError(t, err)
	require.Equal(t, string(src), stored.Markdown)
	require.Equal(t, runs*edits, stored.Revision)
	require.Equal(t, 5+runs*edits, stored.ItemCount)
}

// dcPointers returns the pointer and Markdown of every item of a document,
// read through the items endpoint.
func dcPointers(t *testing.T, h http.Handler, id string) map[string]string {
	t.Helper()
	page := mtData[documentItems](t, mtGet(t, h, "/api/ap/document/items?documentId="+id+"&limit=500"))
	out := map[string]string{}
	for _, it := range page.Items {
		out[it.Pointer] = it.Markdown
	}
	require.Len(t, out, page.Total)
	return out
}

// restart builds a new Documents and server over the same store, as a new
// process does.
func (e *dcEnv) restart() *dcEnv {
	clock := func() time.Time { return dcNow }
	docs := NewDocuments(e.st, clock)
	return &dcEnv{st: e.st, docs: docs, h: New(Options{Store: e.st, Documents: docs, Clock: clock}).Handler()}
}

func TestPointersSurviveARestart(t *testing.T) {
	e := dcServer(t, 0)
	doc := e.upload(t, dcBook)
	ctx := context.Background()
	stored, err := e.st.GetDocument(ctx, doc.DocumentID)
	require.NoError(t, err)
	require.Equal(t, []int{1, 2, 3, 4, 5}, stored.ItemIDs, "the ids are stored at create")
	require.Equal(t, 6, stored.NextItemID)

	tools, err := e.docs.BookTools(ctx, doc.DocumentID, "run1", nil)
	require.NoError(t, err)
	ins := dcCall(t, tools, "editor-insert_before", "c1", `{"pointer": "2:1.p1", "markdown": "new first"}`)
	require.False(t, ins.IsError, ins.Text)
	require.Equal(t, "6:1.p1", ins.Edits[0].NewPointer)
	del := dcCall(t, tools, "editor-delete", "c2", `{"pointer": "4:1.1.p1"}`)
	require.False(t, del.IsError, del.Text)
	before := dcPointers(t, e.h, doc.DocumentID)
	require.Equal(t, map[string]string{"1:1": "# A", "6:1.p1": "new first", "2:1.p2": "x", "3:1.1": "## B",
		"5:1.1.p1": "z"}, before)
	stored, err = e.st.GetDocument(ctx, doc.DocumentID)
	require.NoError(t, err)
	require.Equal(t, []int{1, 6, 2, 3, 5}, stored.ItemIDs, "the ids are stored with every edit")
	require.Equal(t, 7, stored.NextItemID)

	// A new process over the same store sees every pointer unchanged.
	r := e.restart()
	require.Equal(t, before, dcPointers(t, r.h, doc.DocumentID))
	outline := mtData[documentDetail](t, mtGet(t, r.h, "/api/ap/document?documentId="+doc.DocumentID)).Outline
	require.Equal(t, []outlineEntry{{"1:1", 1, "A", 0, 4}, {"3:1.1", 2, "B", 3, 1}}, outline)
	// The pointers of the edit history name the same items (the deleted one none).
	got, err := r.docs.session.Resolve(doc.DocumentID, ins.Edits[0].NewPointer)
	require.NoError(t, err)
	require.Equal(t, "new first", got.Markdown)
	got, err = r.docs.session.Resolve(doc.DocumentID, "2")
	require.NoError(t, err)
	require.Equal(t, "x", got.Markdown, "id 2 is still x, not the paragraph inserted before it")
	_, err = r.docs.session.Resolve(doc.DocumentID, del.Edits[0].Pointer)
	require.ErrorContains(t, err, "no longer exists")

	// An edit through the new instance names the right item, and a new item
	// gets an id never used before (4 was deleted, 6 inserted).
	tools, err = r.docs.BookTools(ctx, doc.DocumentID, "run2", nil)
	require.NoError(t, err)
	rep := dcCall(t, tools, "editor-replace_text", "c3", `{"pointer": "2:1.p1", "markdown": "x2"}`)
	require.False(t, rep.IsError, rep.Text)
	require.Equal(t, tool.Edit{Book: doc.DocumentID, Op: "replace", Pointer: "2:1.p2", NewPointer: "2:1.p2",
		Before: "x", After: "x2", Revision: 3}, rep.Edits[0], "the stale label resolves by id")
	add := dcCall(t, tools, "editor-insert_after", "c4", `{"pointer": "5", "markdown": "w"}`)
	require.False(t, add.IsError, add.Text)
	require.Equal(t, "7:1.1.p2", add.Edits[0].NewPointer)
	stored, err = e.st.GetDocument(ctx, doc.DocumentID)
	require.NoError(t, err)
	require.Equal(t, []int{1, 6, 2, 3, 5, 7}, stored.ItemIDs)
	require.Equal(t, 8, stored.NextItemID)

	// And once more: a second restart keeps them too.
	want := dcPointers(t, r.h, doc.DocumentID)
	require.Equal(t, want, dcPointers(t, r.restart().h, doc.DocumentID))
}

func TestDocumentsWithoutRecordedIDs(t *testing.T) {
	ctx := context.Background()
	st := &dcStore{Store: memory.New()}
	e := &dcEnv{st: st}
	// Stored by an older version: no ids, one edit (an insert before x).
	const legacy = "0e9b8a6c-1111-4222-8333-444455556666"
	_, err := st.CreateDocument(ctx, store.Document{ID: legacy, Name: "old", Markdown: dcBook, ItemCount: 5})
	require.NoError(t, err)
	edited := "# A\n\nnew\n\nx\n\n## B\n\ny\n\nz\n"
	_, err = st.ApplyDocumentEdit(ctx, legacy, store.DocumentContent{Markdown: edited, ItemCount: 6},
		store.DocumentEdit{Revision: 1, Op: "insert_before", Pointer: "2:1.p1", NewPointer: "6:1.p1"})
	require.NoError(t, err)
	// Never edited: the ids are 1..n as they always were.
	const fresh = "1e9b8a6c-1111-4222-8333-444455556666"
	_, err = st.CreateDocument(ctx, store.Document{ID: fresh, Name: "new", Markdown: dcBook, ItemCount: 5})
	require.NoError(t, err)
	// Recorded ids that do not fit the text.
	const misfit = "2e9b8a6c-1111-4222-8333-444455556666"
	_, err = st.CreateDocument(ctx, store.Document{ID: misfit, Name: "odd", Markdown: dcBook, ItemCount: 4,
		ItemIDs: []int{1, 2, 3, 9}, NextItemID: 10})
	require.NoError(t, err)

	r := e.restart()
	require.Equal(t, map[string]string{"1:1": "# A", "2:1.p1": "x", "3:1.1": "## B", "4:1.1.p1": "y", "5:1.1.p2": "z"},
		dcPointers(t, r.h, fresh))
	// The edited one is numbered above every id an older process could have
	// handed out (6 items now + 1 edit), so "6:1.p1" and "2:1.p1" name nothing.
	require.Equal(t, map[string]string{"8:1": "# A", "9:1.p1": "new", "10:1.p2": "x", "11:1.1": "## B",
		"12:1.1.p1": "y", "13:1.1.p2": "z"}, dcPointers(t, r.h, legacy))
	_, err = r.docs.session.Resolve(legacy, "2:1.p1")
	require.ErrorIs(t, err, document.ErrNotFound)
	_, err = r.docs.session.Resolve(legacy, "6:1.p1")
	require.ErrorIs(t, err, document.ErrNotFound)
	require.Equal(t, map[string]string{"10:1": "# A", "11:1.p1": "x", "12:1.1": "## B", "13:1.1.p1": "y", "14:1.1.p2": "z"},
		dcPointers(t, r.h, misfit), "numbered above the recorded next id")

	// The choice is stable over restarts until an edit records it.
	tools, err := r.docs.BookTools(ctx, legacy, "run1", nil)
	require.NoError(t, err)
	res := dcCall(t, tools, "editor-insert_after", "c1", `{"pointer": "13", "markdown": "w"}`)
	require.False(t, res.IsError, res.Text)
	require.Equal(t, "14:1.1.p3", res.Edits[0].NewPointer)
	stored, err := st.GetDocument(ctx, legacy)
	require.NoError(t, err)
	require.Equal(t, []int{8, 9, 10, 11, 12, 13, 14}, stored.ItemIDs)
	require.Equal(t, 15, stored.NextItemID)
	for _, id := range []string{legacy, fresh, misfit} {
		require.Equal(t, dcPointers(t, r.h, id), dcPointers(t, r.restart().h, id))
	}
}
