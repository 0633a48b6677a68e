package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/aitexteditor/aite/internal/agent"
	"github.com/aitexteditor/aite/internal/cursoragent"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/store"
	"github.com/aitexteditor/aite/internal/tool"
	"github.com/aitexteditor/aite/internal/tool/booktools"
)

// The errors of Documents.Create (each answered with 400).
var (
	// ErrDocumentEmpty means the Markdown is empty or blank.
	ErrDocumentEmpty = errors.New("document is empty")
	// ErrDocumentTooLarge means the Markdown exceeds documents.maxBytes.
	ErrDocumentTooLarge = errors.New("document is too large")
	// ErrDocumentEncoding means the Markdown is not valid UTF-8.
	ErrDocumentEncoding = errors.New("document is not valid UTF-8")
	// ErrDocumentName means the name is blank or longer than MaxDocumentName.
	ErrDocumentName = errors.New("document name must have 1 to 200 characters")
)

// MaxDocumentName is the longest document name, in characters (§ 2.2).
const MaxDocumentName = 200

// Documents holds the server's documents (§ 2.2): the store is the source of
// truth, and each document used by a tool or the outline and items
// endpoints is loaded once into one editor session (keyed by documentId)
// and kept there. It is safe for concurrent use.
//
// Concurrency: the editor session serialises every one of its calls with
// its own lock, so reads never race. A per-document mutex additionally
// spans each book tool call with the persisting of its edits, and the
// endpoint reads that report a revision, so the in-memory text, the stored
// text and the revision always agree.
//
// Several nodes: on a store shared by several server processes
// (store.DocumentLocks), each node keeps its own copy in memory, so the
// per-document lock is also taken in the store, across the nodes, and a
// copy older than the stored revision (another node edited the document)
// is loaded again before the call: an edit is always made on the current
// text and written as the next revision, never over another node's. A
// reload starts the document's cursors and undo journal afresh; item ids
// are kept (they are stored).
//
// Item ids survive restarts: the store keeps each document's item ids with
// its text (written at create and with every edit), and a document is
// loaded with them, so a pointer the model saw before a restart (in chat
// memory, in the edit history) still names the same item, and a new item
// never gets an id used before. See load for documents without recorded
// ids.
type Documents struct {
	st      store.Store
	clock   func() time.Time
	session *editor.Session
	// Logger receives persistence failures of edits (nil: discarded).
	Logger *slog.Logger

	mu   sync.Mutex
	docs map[string]*docState
}

// docState is the in-memory state of one document.
type docState struct {
	mu       sync.Mutex
	loaded   bool   // the session holds the document
	revision int    // the revision of the session's text
	owner    string // store.Document.Owner
}

// NewDocuments returns the documents of st; clock stamps creations and edits
// (time.Now when nil).
func NewDocuments(st store.Store, clock func() time.Time) *Documents {
	if clock == nil {
		clock = time.Now
	}
	d := &Documents{st: st, clock: clock, session: editor.New(), docs: map[string]*docState{}}
	d.session.SetDataStore(docData{st: st, clock: clock})
	return d
}

func (d *Documents) logger() *slog.Logger {
	if d.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return d.Logger
}

// Create normalises (strip UTF-8 BOM, CRLF/CR → LF), validates (valid UTF-8,
// non-empty, ≤ max bytes) and stores a document at revision 0. The name is
// trimmed and must have 1..MaxDocumentName characters.
func (d *Documents) Create(ctx context.Context, name string, markdown []byte, maxBytes int64) (store.Document, error) {
	return d.createAs(ctx, uuidV4(), name, markdown, maxBytes)
}

// createAs is Create with the document id given.
func (d *Documents) createAs(ctx context.Context, id, name string, markdown []byte, maxBytes int64) (store.Document, error) {
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > MaxDocumentName {
		return store.Document{}, ErrDocumentName
	}
	src, err := normalizeMarkdown(markdown, maxBytes)
	if err != nil {
		return store.Document{}, err
	}
	d.session.Load(id, src)
	ids, next, err := d.session.ItemIDs(id)
	now := d.clock()
	var doc store.Document
	if err == nil {
		doc, err = d.st.CreateDocument(ctx, store.Document{ID: id, Name: name, Markdown: string(src),
			ItemCount: len(ids), ItemIDs: ids, NextItemID: next, CreatedAt: now, UpdatedAt: now, Owner: ownerOf(ctx)})
	}
	if err != nil {
		_ = d.session.Close(id)
		return store.Document{}, fmt.Errorf("create document: %w", err)
	}
	d.mu.Lock()
	d.docs[id] = &docState{loaded: true, owner: doc.Owner}
	d.mu.Unlock()
	return doc, nil
}

// normalizeMarkdown strips a UTF-8 BOM, turns CRLF and CR into LF and checks
// the result.
func normalizeMarkdown(b []byte, maxBytes int64) ([]byte, error) {
	if !utf8.Valid(b) {
		return nil, ErrDocumentEncoding
	}
	b = bytes.TrimPrefix(b, []byte("\uFEFF"))
	b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
	b = bytes.ReplaceAll(b, []byte("\r"), []byte("\n"))
	switch {
	case len(bytes.TrimSpace(b)) == 0:
		return nil, ErrDocumentEmpty
	case maxBytes > 0 && int64(len(b)) > maxBytes:
		return nil, fmt.Errorf("%w: %d bytes, the limit is %d", ErrDocumentTooLarge, len(b), maxBytes)
	}
	return b, nil
}

// entry returns the state of document id, creating it.
func (d *Documents) entry(id string) *docState {
	d.mu.Lock()
	defer d.mu.Unlock()
	ds := d.docs[id]
	if ds == nil {
		ds = &docState{}
		d.docs[id] = ds
	}
	return ds
}

// locked runs f under the lock of document id, loading the document from
// the store into the session first if needed. An unknown document fails
// with an error wrapping store.ErrNotFound (and leaves no state behind).
// On a store shared by several nodes the lock is the store's too, and a
// copy older than the stored revision is loaded again.
func (d *Documents) locked(ctx context.Context, id string, f func(ds *docState) error) error {
	ds := d.entry(id)
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if dl, ok := d.st.(store.DocumentLocks); ok {
		rev, unlock, err := dl.LockDocument(ctx, id)
		if err != nil {
			d.forgetMissing(id, ds, err)
			return err
		}
		defer unlock()
		if ds.loaded && rev != ds.revision {
			d.logger().Info("document changed on another node; loading it again", "documentId", id,
				"revision", ds.revision, "stored", rev)
			ds.loaded = false
		}
	}
	if err := d.loaded(ctx, id, ds); err != nil {
		return err
	}
	return f(ds)
}

// loaded loads document id into the session unless it is there; the
// caller holds ds.mu. A copy loaded without the store's lock (by owner) is
// a consistent stored revision, checked against the stored revision by the
// next locked call like any other copy.
func (d *Documents) loaded(ctx context.Context, id string, ds *docState) error {
	if ds.loaded {
		return nil
	}
	doc, err := d.st.GetDocument(ctx, id)
	if err != nil {
		d.forgetMissing(id, ds, err)
		return err
	}
	if err := d.load(doc); err != nil {
		return err
	}
	ds.loaded, ds.revision, ds.owner = true, doc.Revision, doc.Owner
	return nil
}

// forgetMissing drops the state of a document the store does not have.
func (d *Documents) forgetMissing(id string, ds *docState, err error) {
	if !errors.Is(err, store.ErrNotFound) {
		return
	}
	d.mu.Lock()
	if d.docs[id] == ds {
		delete(d.docs, id)
	}
	d.mu.Unlock()
}

// owner returns the owner of document id, loading it like every access
// but without the store's lock (store.DocumentLocks): a document's owner
// never changes, and the request that asked (the visibility check of a
// document endpoint) takes the lock once, in its handler. A document
// deleted meanwhile is then not found there.
func (d *Documents) owner(ctx context.Context, id string) (string, error) {
	ds := d.entry(id)
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if err := d.loaded(ctx, id, ds); err != nil {
		return "", err
	}
	return ds.owner, nil
}

// load puts a stored document into the session with the item ids it had
// when it was stored. Where those are unknown, the ids it gets are chosen
// so that no pointer handed out before can name another item:
//
//   - ids not recorded, revision 0: the text was never edited, so its ids
//     were always 1..n, and it gets them again;
//   - ids not recorded, edited (stored before ids were kept): every id a
//     process handed out was at most the item count plus the number of
//     edits (each edit adds at most one item), so the items are numbered
//     from above that bound; old pointers then fail as deleted instead of
//     naming the wrong item (bare labels still resolve);
//   - recorded ids that do not fit the text (another parser version split
//     it differently): the items are numbered from the recorded next id,
//     above every id ever used.
//
// The ids chosen depend only on the stored document, so they stay the same
// over further restarts until the next edit records them.
func (d *Documents) load(doc store.Document) error {
	src := []byte(doc.Markdown)
	first := doc.NextItemID
	if first > 0 {
		_, err := d.session.LoadWithIDs(doc.ID, src, doc.ItemIDs, doc.NextItemID)
		if err == nil {
			return nil
		}
		d.logger().Warn("stored item ids do not fit the document; numbering its items anew above them",
			"documentId", doc.ID, "revision", doc.Revision, "err", err)
	}
	info := d.session.Load(doc.ID, src)
	if first == 0 && doc.Revision == 0 {
		return nil
	}
	if first == 0 {
		first = max(doc.ItemCount, info.Items) + doc.Revision + 1
	}
	ids := make([]int, info.Items)
	for i := range ids {
		ids[i] = first + i
	}
	_, err := d.session.LoadWithIDs(doc.ID, src, ids, first+len(ids))
	return err
}

// BookTools returns the book tools (booktools.Tools) bound to document docID,
// by lowercase name. Edit tools run under a per-document lock; each applied
// edit is persisted with store.ApplyDocumentEdit (revision = current + 1,
// the change of the text and of the item ids, the new content when the
// store asks for a snapshot, DocumentEdit row with RunID = runID and ToolID
// = agent.CallID(ctx), op, pointer, newPointer, before, after) and
// reported in Result.Edits with Book = docID and Revision set.
// ag may be nil; otherwise a copy working on the documents' session runs
// cursor-agent tasks.
func (d *Documents) BookTools(ctx context.Context, docID, runID string, ag *cursoragent.Agent) (map[string]tool.Tool, error) {
	if err := d.locked(ctx, docID, func(*docState) error { return nil }); err != nil {
		return nil, fmt.Errorf("book tools of document %s: %w", docID, err)
	}
	env := booktools.Env{Session: d.session, Book: docID}
	if ag != nil {
		a := *ag
		a.Session = d.session
		env.Agent = &a
	}
	out := map[string]tool.Tool{}
	for _, t := range booktools.Tools(env) {
		name := strings.ToLower(t.Name())
		if booktools.Unlocked(name) {
			out[name] = t
			continue
		}
		dt := &docTool{Tool: t, docs: d, docID: docID, runID: runID}
		if booktools.IsEdit(t.Name()) {
			out[name] = &editDocTool{docTool: dt, env: env}
			continue
		}
		out[name] = dt
	}
	return out, nil
}

// editDocTool is a book edit tool: a docTool that can also preview a call
// (agent.Previewer, for edit confirmation) under the document's lock.
type editDocTool struct {
	*docTool
	env booktools.Env
}

// Preview implements agent.Previewer.
func (t *editDocTool) Preview(ctx context.Context, args json.RawMessage) (tool.Result, error) {
	var res tool.Result
	err := t.docs.locked(ctx, t.docID, func(*docState) error {
		var err error
		res, err = booktools.Preview(t.env, t.Name(), args)
		return err
	})
	return res, err
}

var _ agent.Previewer = (*editDocTool)(nil)

// docTool runs a book tool under its document's lock and persists the edits
// the call applied.
type docTool struct {
	tool.Tool
	docs  *Documents
	docID string
	runID string
	// check, when set, runs under the lock before the call; a result
	// refuses the call with it (MCP: the approved edit is still the same).
	check func(s *editor.Session, id string) *tool.Result
}

// Call implements tool.Tool.
func (t *docTool) Call(ctx context.Context, args json.RawMessage) (tool.Result, error) {
	var res tool.Result
	err := t.docs.locked(ctx, t.docID, func(ds *docState) error {
		if t.check != nil {
			if r := t.check(t.docs.session, t.docID); r != nil {
				res = *r
				return nil
			}
		}
		since, err := t.docs.session.Version(t.docID)
		if err != nil {
			return err
		}
		res, err = t.Tool.Call(ctx, args)
		if err != nil || len(res.Edits) == 0 {
			return err
		}
		res = t.docs.persist(ctx, ds, t.docID, t.runID, agent.CallID(ctx), res, since)
		return ctx.Err()
	})
	return res, err
}

// persist stores the edits of one call, each as the next revision. The
// first records what the call changed (the text and the item IDs, from the
// session's version since before the call), the others an empty change, so
// the store journals the call's change instead of copying the document
// (store/journal.go); the document's content is handed over only for the
// snapshots the store writes now and then. If nothing could be stored, the
// call's edits are undone in the session and an error result is
// returned. If a later edit of several fails, the stored document already
// holds them all: they stay applied and only the journaled ones are
// reported.
func (d *Documents) persist(ctx context.Context, ds *docState, docID, runID, toolID string, res tool.Result, since int) tool.Result {
	c := store.DocumentContent{Later: func() store.DocumentContent { return d.content(docID) }}
	first, err := d.change(ctx, ds, docID, since)
	n := 0
	for err == nil && n < len(res.Edits) {
		sp, ids := first.Splice, first.IDs // the text and IDs changed with the call's first edit
		if n > 0 {
			sp, ids = &store.Splice{}, &store.IDSplice{Next: first.IDs.Next}
		}
		if err = d.record(ctx, ds, docID, runID, toolID, c, sp, ids, &res.Edits[n]); err == nil {
			n++
		}
	}
	switch {
	case err == nil:
		return res
	case n > 0:
		d.logger().Error("document edit not journaled", "documentId", docID, "revision", ds.revision+1, "err", err)
		res.Edits = res.Edits[:n]
		return res
	}
	d.logger().Error("document edit not saved", "documentId", docID, "err", err)
	if _, uerr := d.session.Undo(docID, len(res.Edits)); uerr != nil {
		d.logger().Error("undo of an unsaved edit failed; reloading the document", "documentId", docID, "err", uerr)
		ds.loaded = false
	}
	return tool.Errorf("tool_failed", "The edit could not be saved, so it was not applied; the document is unchanged. Try again.")
}

// content returns the content of a loaded document, as the store keeps it.
func (d *Documents) content(docID string) store.DocumentContent {
	var c store.DocumentContent
	src, err := d.session.Source(docID)
	if err == nil {
		c.Markdown = string(src)
		c.ItemIDs, c.NextItemID, err = d.session.ItemIDs(docID)
		c.ItemCount = len(c.ItemIDs)
	}
	if err != nil {
		c.ItemCount = -1 // refused by the store: cannot happen under the document's lock
	}
	return c
}

// change returns what the edits since version since did to a locked
// document, as the store journals it: from the session, at a cost in
// proportion to the change; or, should the session not know it, by
// comparing the stored revision with the session's content.
func (d *Documents) change(ctx context.Context, ds *docState, docID string, since int) (store.DocumentEdit, error) {
	ch, ok, err := d.session.ChangeSince(docID, since)
	if err != nil {
		return store.DocumentEdit{}, err
	}
	if ok {
		return store.DocumentEdit{Splice: &store.Splice{At: ch.Text.Start, Old: ch.Text.Old, New: ch.Text.New},
			IDs: &store.IDSplice{At: ch.At, Old: ch.Old, New: ch.IDs, Next: ch.Next}}, nil
	}
	d.logger().Warn("edit compared with the stored document", "documentId", docID, "revision", ds.revision)
	old, err := d.st.GetDocument(ctx, docID)
	if err != nil {
		return store.DocumentEdit{}, err
	}
	now := d.content(docID)
	return store.DocumentEdit{Splice: spliceOf(old.Markdown, now.Markdown), IDs: idSpliceOf(old.ItemIDs, now.ItemIDs, now.NextItemID)}, nil
}

// record stores one edit, which changed the text by sp and the item IDs by
// ids, as the next revision and stamps it.
func (d *Documents) record(ctx context.Context, ds *docState, docID, runID, toolID string, c store.DocumentContent,
	sp *store.Splice, ids *store.IDSplice, e *tool.Edit) error {
	doc, err := d.st.ApplyDocumentEdit(ctx, docID, c, store.DocumentEdit{
		DocumentID: docID, Revision: ds.revision + 1, RunID: runID, ToolID: toolID, Op: e.Op,
		Pointer: e.Pointer, NewPointer: e.NewPointer, Before: e.Before, After: e.After, At: d.clock(), Splice: sp, IDs: ids})
	if err != nil {
		return err
	}
	ds.revision = doc.Revision
	e.Book, e.Revision = docID, doc.Revision
	return nil
}

// documentSummary is DocumentSummary (times in epoch ms).
type documentSummary struct {
	DocumentID string `json:"documentId"`
	Name       string `json:"name"`
	SizeBytes  int    `json:"sizeBytes"`
	ItemCount  int    `json:"itemCount"`
	Revision   int    `json:"revision"`
	CreatedAt  int64  `json:"createdAt"`
	UpdatedAt  int64  `json:"updatedAt"`
}

// documentDetail is the data of GET /document.
type documentDetail struct {
	documentSummary
	Outline []outlineEntry `json:"outline"`
}

type outlineEntry struct {
	Pointer string `json:"pointer"`
	Level   int    `json:"level"`
	Text    string `json:"text"`
	Index   int    `json:"index"` // [EXT] the heading's item index
	Items   int    `json:"items"` // [EXT] the items of its section, subsections included, the heading excluded
}

// documentItems is the data of GET /document/items.
type documentItems struct {
	DocumentID string         `json:"documentId"`
	Revision   int            `json:"revision"`
	Total      int            `json:"total"`
	From       int            `json:"from"`
	HasMore    bool           `json:"hasMore"`
	Items      []documentItem `json:"items"`
}

type documentItem struct {
	Index    int    `json:"index"`
	Pointer  string `json:"pointer"`
	Type     string `json:"type"`
	Level    int    `json:"level,omitempty"` // headings only
	Markdown string `json:"markdown"`
	Kind     string `json:"kind,omitempty"`  // [EXT] with format=html: the parser's kind (Quote, Table, …)
	Depth    int    `json:"depth,omitempty"` // [EXT] with format=html: the nesting of lists around the item
	HTML     string `json:"html,omitempty"`  // [EXT] with format=html: the item rendered
}

func summarizeDocument(d store.Document) documentSummary {
	return documentSummary{DocumentID: d.ID, Name: d.Name, SizeBytes: d.SizeBytes, ItemCount: d.ItemCount,
		Revision: d.Revision, CreatedAt: d.CreatedAt.UnixMilli(), UpdatedAt: d.UpdatedAt.UnixMilli()}
}

// itemType maps the parser's kinds onto the item types of § 2.2.
func itemType(k document.Kind) string {
	switch k {
	case document.Heading:
		return "heading"
	case document.ListItem:
		return "list_item"
	case document.Code:
		return "code"
	case document.ThematicBreak:
		return "thematic_break"
	case document.HTML:
		return "html"
	case document.FrontMatter:
		return "code" // a verbatim metadata block: nearest is code
	}
	// Paragraph; Quote, Table and FootnoteDef have no type of their own:
	// they are prose blocks, nearest is paragraph.
	return "paragraph"
}

// detail returns the summary and the heading outline of document id, read
// together under its lock.
func (d *Documents) detail(ctx context.Context, id string) (documentDetail, error) {
	var out documentDetail
	err := d.locked(ctx, id, func(*docState) error {
		doc, err := d.st.GetDocument(ctx, id)
		if err != nil {
			return err
		}
		ov, err := d.session.Outline(id)
		if err != nil {
			return err
		}
		out = documentDetail{documentSummary: summarizeDocument(doc), Outline: []outlineEntry{}}
		out.Outline, err = d.flattenOutline(id, out.Outline, ov.Sections)
		return err
	})
	return out, err
}

// flattenOutline appends the headings of secs in document order.
func (d *Documents) flattenOutline(id string, out []outlineEntry, secs []editor.SectionView) ([]outlineEntry, error) {
	for _, s := range secs {
		it, err := d.session.Resolve(id, s.Pointer.String())
		if err != nil {
			return nil, err
		}
		out = append(out, outlineEntry{Pointer: s.Pointer.String(), Level: s.Level, Text: s.Title,
			Index: it.Index, Items: s.Total})
		if out, err = d.flattenOutline(id, out, s.Children); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// items returns up to limit items of document id from index from, each
// rendered as HTML too when html is set.
func (d *Documents) items(ctx context.Context, id string, from, limit int, html bool) (documentItems, error) {
	var out documentItems
	err := d.locked(ctx, id, func(ds *docState) error {
		views, total, err := d.session.ItemsAt(id, from, limit)
		if err != nil {
			return err
		}
		out = documentItems{DocumentID: id, Revision: ds.revision, Total: total, From: from, Items: []documentItem{}}
		for _, it := range views {
			item := documentItem{Index: it.Index, Pointer: it.Pointer.String(), Type: itemType(it.Kind),
				Level: it.Level, Markdown: it.Markdown}
			if html {
				item.Kind, item.Depth, item.HTML = string(it.Kind), listDepth(it.Containers), renderItem(it)
			}
			out.Items = append(out.Items, item)
		}
		out.HasMore = from+len(out.Items) < total
		return nil
	})
	return out, err
}
