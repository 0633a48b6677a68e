package storetest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/store"
)

var documentTests = []test{
	{"Plans/UpsertAndLatest", testPlans},
	{"Documents/RoundTrip", testDocumentRoundTrip},
	{"Documents/EditsAndConflicts", testDocumentEdits},
	{"Documents/ListOrder", testDocumentList},
	{"Documents/ItemIDs", testDocumentItemIDs},
	{"Documents/ItemIDsRejected", testDocumentItemIDsRejected},
	{"Documents/Journal", testDocumentJournal},
	{"Documents/JournalRejected", testDocumentJournalRejected},
	{"Tasks/Upsert", testTasks},
	{"DocumentData/PutAndGet", testDocumentData},
}

func testPlans(t *testing.T, s store.Store) {
	addChatRun(t, s)
	addRun(t, s, "c1", "r2")
	addChat(t, s, "c2", 0)
	_, err := s.LatestPlan(bg, "c1")
	requireIs(t, err, store.ErrNotFound, "no plan yet")

	p1 := store.Plan{ID: "plan_r1", ChatID: "c1", RunID: "r1", UpdatedAt: at(1),
		Tasks: json.RawMessage(`[{"taskId":"0a1b2c3d","description":"Read","status":"init"}]`)}
	p2 := store.Plan{ID: "plan_r2", ChatID: "c1", RunID: "r2", UpdatedAt: at(2), Tasks: json.RawMessage(`[]`)}
	require.NoError(t, s.SavePlan(bg, p1))
	require.NoError(t, s.SavePlan(bg, p2))
	latest, err := s.LatestPlan(bg, "c1")
	require.NoError(t, err)
	require.Equal(t, "plan_r2", latest.ID)

	// Continuing plan_r1 in run r2 keeps its id and makes it the latest.
	p1.RunID, p1.UpdatedAt = "r2", at(3)
	p1.Tasks = json.RawMessage(`[{"taskId":"0a1b2c3d","description":"Read","status":"completed"}]`)
	require.NoError(t, s.SavePlan(bg, p1))
	latest, err = s.LatestPlan(bg, "c1")
	require.NoError(t, err)
	want := p1
	want.UpdatedAt = ms(at(3))
	require.Equal(t, want, latest)
	got, err := s.GetPlan(bg, "plan_r2")
	require.NoError(t, err)
	require.Equal(t, string(p2.Tasks), string(got.Tasks))

	// Ties on updated_at: the greatest id wins.
	p3 := store.Plan{ID: "plan_r3", ChatID: "c1", RunID: "r2", UpdatedAt: at(3), Tasks: json.RawMessage(`[]`)}
	require.NoError(t, s.SavePlan(bg, p3))
	latest, err = s.LatestPlan(bg, "c1")
	require.NoError(t, err)
	require.Equal(t, "plan_r3", latest.ID)

	_, err = s.LatestPlan(bg, "c2")
	requireIs(t, err, store.ErrNotFound, "plans are per chat")
	_, err = s.GetPlan(bg, "plan_nope")
	requireIs(t, err, store.ErrNotFound)
	requireIs(t, s.SavePlan(bg, store.Plan{ID: "p", ChatID: "nope", RunID: "r1", Tasks: json.RawMessage(`[]`)}), store.ErrNotFound)
	requireIs(t, s.SavePlan(bg, store.Plan{ID: "p", ChatID: "c1", RunID: "nope", Tasks: json.RawMessage(`[]`)}), store.ErrNotFound)
	requireIs(t, s.SavePlan(bg, store.Plan{ChatID: "c1", RunID: "r1", Tasks: json.RawMessage(`[]`)}), store.ErrInvalid)
	requireIs(t, s.SavePlan(bg, store.Plan{ID: "p", ChatID: "c1", RunID: "r1", Tasks: json.RawMessage(`[`)}), store.ErrInvalid)
}

const book = "# Title\n\nFirst paragraph — ü.\n"

func addDocument(t *testing.T, s store.Store, id string, i int) store.Document {
	t.Helper()
	d, err := s.CreateDocument(bg, store.Document{ID: id, Name: id + ".md", Markdown: book, ItemCount: 2,
		CreatedAt: at(i), UpdatedAt: at(i)})
	require.NoError(t, err)
	return d
}

func testDocumentRoundTrip(t *testing.T, s store.Store) {
	d, err := s.CreateDocument(bg, store.Document{ID: "d1", Name: "d1.md", Markdown: book, ItemCount: 2,
		CreatedAt: at(1), UpdatedAt: at(1), Owner: "auth0|writer-7"})
	require.NoError(t, err)
	want := store.Document{ID: "d1", Name: "d1.md", Markdown: book, Revision: 0, ItemCount: 2, SizeBytes: len(book),
		CreatedAt: ms(at(1)), UpdatedAt: ms(at(1)), Owner: "auth0|writer-7"}
	require.Equal(t, want, d, "CreateDocument returns the stored document, size computed")
	got, err := s.GetDocument(bg, "d1")
	require.NoError(t, err)
	require.Equal(t, want, got)
	list, err := s.ListDocuments(bg)
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Equal(t, "auth0|writer-7", list[0].Owner, "the list names the owner")

	_, err = s.CreateDocument(bg, store.Document{ID: "d1", Markdown: "other"})
	requireIs(t, err, store.ErrExists)
	_, err = s.CreateDocument(bg, store.Document{ID: "d2", Revision: 3})
	requireIs(t, err, store.ErrInvalid)
	_, err = s.CreateDocument(bg, store.Document{Name: "no id"})
	requireIs(t, err, store.ErrInvalid)
	_, err = s.GetDocument(bg, "nope")
	requireIs(t, err, store.ErrNotFound)

	empty, err := s.CreateDocument(bg, store.Document{ID: "d3", SizeBytes: 99})
	require.NoError(t, err)
	require.Equal(t, 0, empty.SizeBytes, "the store computes the size")
}

// text is the content of an edit without recorded item IDs.
func text(markdown string, itemCount int) store.DocumentContent {
	return store.DocumentContent{Markdown: markdown, ItemCount: itemCount}
}

func edit(rev int, op string) store.DocumentEdit {
	return store.DocumentEdit{Revision: rev, RunID: "r1", ToolID: "call_1", Op: op, Pointer: "2:p1",
		NewPointer: "3:p1", Before: "First paragraph — ü.", After: "Changed.", At: at(10 + rev)}
}

func testDocumentEdits(t *testing.T, s store.Store) {
	addDocument(t, s, "d1", 0)
	md1 := "# Title\n\nChanged.\n"
	d, err := s.ApplyDocumentEdit(bg, "d1", text(md1, 2), edit(1, "replace"))
	require.NoError(t, err)
	require.Equal(t, 1, d.Revision)
	require.Empty(t, d.Markdown, "the result leaves out the text, as ListDocuments does")
	require.Equal(t, len(md1), d.SizeBytes)
	require.Equal(t, ms(at(11)), d.UpdatedAt)
	require.Equal(t, ms(at(0)), d.CreatedAt)

	md2 := md1 + "\nMore.\n"
	del := edit(2, "insert_after")
	del.DocumentID = "d1"
	del.Splice = &store.Splice{At: len(md1), Old: "", New: "\nMore.\n"} // recorded; edit 1 has none
	zero := 0
	del.RevertedTo = &zero // only set on reverts, but any edit round-trips it
	_, err = s.ApplyDocumentEdit(bg, "d1", text(md2, 3), del)
	require.NoError(t, err)

	for _, rev := range []int{0, 1, 2, 4} {
		_, err = s.ApplyDocumentEdit(bg, "d1", text("lost", 9), edit(rev, "replace"))
		requireIs(t, err, store.ErrConflict, "revision %d on revision 2", rev)
	}
	_, err = s.ApplyDocumentEdit(bg, "d1", text("lost", 9), store.DocumentEdit{Revision: 3})
	requireIs(t, err, store.ErrInvalid, "an edit without op")
	other := edit(3, "replace")
	other.DocumentID = "d9"
	_, err = s.ApplyDocumentEdit(bg, "d1", text("lost", 9), other)
	requireIs(t, err, store.ErrInvalid, "an edit naming another document")
	_, err = s.ApplyDocumentEdit(bg, "nope", text("x", 1), edit(1, "replace"))
	requireIs(t, err, store.ErrNotFound)

	got, err := s.GetDocument(bg, "d1")
	require.NoError(t, err)
	require.Equal(t, store.Document{ID: "d1", Name: "d1.md", Markdown: md2, Revision: 2, ItemCount: 3,
		SizeBytes: len(md2), CreatedAt: ms(at(0)), UpdatedAt: ms(at(12))}, got, "refused edits changed nothing")

	edits, err := s.ListDocumentEdits(bg, "d1", 0)
	require.NoError(t, err)
	want1, want2 := edit(1, "replace"), del
	want1.DocumentID, want1.At, want2.At = "d1", ms(at(11)), ms(at(12))
	require.Equal(t, []store.DocumentEdit{want1, want2}, edits)
	edits, err = s.ListDocumentEdits(bg, "d1", 1)
	require.NoError(t, err)
	require.Equal(t, []store.DocumentEdit{want2}, edits)
	edits, err = s.ListDocumentEdits(bg, "d1", 2)
	require.NoError(t, err)
	require.Empty(t, edits)
	_, err = s.ListDocumentEdits(bg, "nope", 0)
	requireIs(t, err, store.ErrNotFound)
}

func testDocumentList(t *testing.T, s store.Store) {
	addDocument(t, s, "b", 2)
	addDocument(t, s, "a", 2)
	addDocument(t, s, "c", 1)
	_, err := s.ApplyDocumentEdit(bg, "c", text("x", 1), edit(1, "replace")) // updated at minute 11
	require.NoError(t, err)
	list, err := s.ListDocuments(bg)
	require.NoError(t, err)
	var ids []string
	for _, d := range list {
		ids = append(ids, d.ID)
		require.Empty(t, d.Markdown, "listings leave out the text")
		require.NotZero(t, d.SizeBytes)
	}
	require.Equal(t, []string{"c", "a", "b"}, ids)
	require.Equal(t, 1, list[0].Revision)
}

func testTasks(t *testing.T, s store.Store) {
	_, err := s.LoadTask(bg, "t1")
	requireIs(t, err, store.ErrNotFound)
	first := json.RawMessage(`{"task":{"id":"t1"},"found":[],"steps":0}`)
	require.NoError(t, s.SaveTask(bg, "t1", first, at(1)))
	got, err := s.LoadTask(bg, "t1")
	require.NoError(t, err)
	require.Equal(t, store.TaskState{ID: "t1", Body: first, UpdatedAt: ms(at(1))}, got)

	second := json.RawMessage(`{"task":{"id":"t1"},"found":[{"p":"3:p1"}],"steps":1}`)
	require.NoError(t, s.SaveTask(bg, "t1", second, at(2)))
	require.NoError(t, s.SaveTask(bg, "t2", first, at(3)))
	got, err = s.LoadTask(bg, "t1")
	require.NoError(t, err)
	require.Equal(t, store.TaskState{ID: "t1", Body: second, UpdatedAt: ms(at(2))}, got, "a save replaces the state")
	got, err = s.LoadTask(bg, "t2")
	require.NoError(t, err)
	require.Equal(t, string(first), string(got.Body))

	requireIs(t, s.SaveTask(bg, "", first, at(1)), store.ErrInvalid)
	requireIs(t, s.SaveTask(bg, "t3", json.RawMessage(`{`), at(1)), store.ErrInvalid)
	requireIs(t, s.SaveTask(bg, "t3", nil, at(1)), store.ErrInvalid)
}

func testDocumentItemIDs(t *testing.T, s store.Store) {
	created := store.Document{ID: "d1", Name: "d1.md", Markdown: book, ItemCount: 2, ItemIDs: []int{1, 2},
		NextItemID: 3, CreatedAt: at(1), UpdatedAt: at(1)}
	d, err := s.CreateDocument(bg, created)
	require.NoError(t, err)
	require.Equal(t, []int{1, 2}, d.ItemIDs)
	require.Equal(t, 3, d.NextItemID)
	created.ItemIDs[0] = 99 // the store keeps its own copy
	got, err := s.GetDocument(bg, "d1")
	require.NoError(t, err)
	require.Equal(t, d, got)
	require.Equal(t, []int{1, 2}, got.ItemIDs)

	// An insert before item 2 and a delete of item 1: the IDs after the edit replace the old.
	md := "# Title\n\nNew.\n\nFirst paragraph — ü.\n"
	c := store.DocumentContent{Markdown: md, ItemCount: 3, ItemIDs: []int{1, 3, 2}, NextItemID: 4}
	d, err = s.ApplyDocumentEdit(bg, "d1", c, edit(1, "insert_before"))
	require.NoError(t, err)
	require.Nil(t, d.ItemIDs, "the result leaves out the item IDs")
	require.Zero(t, d.NextItemID)
	c.ItemIDs[0] = 99 // the argument does not alias the stored IDs
	got, err = s.GetDocument(bg, "d1")
	require.NoError(t, err)
	require.Equal(t, []int{1, 3, 2}, got.ItemIDs)
	got.ItemIDs[2] = 97
	again, err := s.GetDocument(bg, "d1")
	require.NoError(t, err)
	require.Equal(t, []int{1, 3, 2}, again.ItemIDs, "nor does a read")
	c = store.DocumentContent{Markdown: "# Title\n\nNew.\n", ItemCount: 2, ItemIDs: []int{1, 3}, NextItemID: 4}
	d, err = s.ApplyDocumentEdit(bg, "d1", c, edit(2, "delete"))
	require.NoError(t, err)
	got, err = s.GetDocument(bg, "d1")
	require.NoError(t, err)
	require.Equal(t, d, summary(got))
	require.Equal(t, store.Document{ID: "d1", Name: "d1.md", Markdown: c.Markdown, Revision: 2, ItemCount: 2,
		ItemIDs: []int{1, 3}, NextItemID: 4, SizeBytes: len(c.Markdown), CreatedAt: ms(at(1)), UpdatedAt: ms(at(12))}, got)

	list, err := s.ListDocuments(bg)
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Nil(t, list[0].ItemIDs, "listings leave out the item IDs")
	require.Zero(t, list[0].NextItemID)
	require.Equal(t, 2, list[0].ItemCount)

	// An edit that does not record IDs clears them.
	d, err = s.ApplyDocumentEdit(bg, "d1", text("# Title\n", 1), edit(3, "delete"))
	require.NoError(t, err)
	require.Nil(t, d.ItemIDs)
	require.Zero(t, d.NextItemID)
	got, err = s.GetDocument(bg, "d1")
	require.NoError(t, err)
	require.Nil(t, got.ItemIDs)
	require.Zero(t, got.NextItemID)

	// Not recorded at creation; an empty recorded list keeps its next ID.
	d, err = s.CreateDocument(bg, store.Document{ID: "d2", Markdown: book, ItemCount: 2})
	require.NoError(t, err)
	require.Nil(t, d.ItemIDs)
	require.Zero(t, d.NextItemID)
	d, err = s.CreateDocument(bg, store.Document{ID: "d3", ItemIDs: []int{}, NextItemID: 7})
	require.NoError(t, err)
	got, err = s.GetDocument(bg, "d3")
	require.NoError(t, err)
	require.Equal(t, d, got)
	require.Nil(t, got.ItemIDs, "an empty list comes back as nil")
	require.Equal(t, 7, got.NextItemID)

	// A large book edited here and there round-trips exactly.
	big := make([]int, 20000)
	for i := range big {
		big[i] = i + 1
	}
	big[5], big[17], big[9000] = 20001, 20003, 20002
	big = append(big[:100], big[101:]...) // item 101 deleted
	c = store.DocumentContent{Markdown: "big", ItemCount: len(big), ItemIDs: big, NextItemID: 20004}
	_, err = s.ApplyDocumentEdit(bg, "d2", c, edit(1, "replace"))
	require.NoError(t, err)
	got, err = s.GetDocument(bg, "d2")
	require.NoError(t, err)
	require.Equal(t, big, got.ItemIDs)
	require.Equal(t, 20004, got.NextItemID)
}

func testDocumentItemIDsRejected(t *testing.T, s store.Store) {
	bad := []struct {
		name  string
		count int
		ids   []int
		next  int
	}{
		{"fewer ids than items", 2, []int{1}, 3},
		{"more ids than items", 1, []int{1, 2}, 3},
		{"ids without a next id", 2, []int{1, 2}, 0},
		{"no ids for items", 2, nil, 3},
		{"a zero id", 2, []int{0, 1}, 3},
		{"an id at next", 2, []int{1, 3}, 3},
		{"a repeated id", 2, []int{2, 2}, 3},
		{"a negative next id", 0, nil, -1},
	}
	for _, b := range bad {
		_, err := s.CreateDocument(bg, store.Document{ID: "x", Markdown: book, ItemCount: b.count, ItemIDs: b.ids, NextItemID: b.next})
		requireIs(t, err, store.ErrInvalid, "create: %s", b.name)
	}
	_, err := s.GetDocument(bg, "x")
	requireIs(t, err, store.ErrNotFound, "no refused document was stored")

	d := addDocument(t, s, "d1", 0)
	for _, b := range bad {
		c := store.DocumentContent{Markdown: "lost", ItemCount: b.count, ItemIDs: b.ids, NextItemID: b.next}
		_, err := s.ApplyDocumentEdit(bg, "d1", c, edit(1, "replace"))
		requireIs(t, err, store.ErrInvalid, "edit: %s", b.name)
	}
	got, err := s.GetDocument(bg, "d1")
	require.NoError(t, err)
	require.Equal(t, d, got, "refused edits changed nothing")
	edits, err := s.ListDocumentEdits(bg, "d1", 0)
	require.NoError(t, err)
	require.Empty(t, edits)
}

func testDocumentData(t *testing.T, s store.Store) {
	_, err := s.CreateDocument(bg, store.Document{ID: "d1", Name: "d1.md", Markdown: book, ItemCount: 2, CreatedAt: at(1), UpdatedAt: at(1)})
	require.NoError(t, err)
	_, err = s.CreateDocument(bg, store.Document{ID: "d2", Name: "d2.md", Markdown: book, ItemCount: 2, CreatedAt: at(1), UpdatedAt: at(1)})
	require.NoError(t, err)
	_, err = s.GetDocumentData(bg, "d1", "codex.json")
	requireIs(t, err, store.ErrNotFound, "nothing stored yet")

	codexJSON := []byte(`{"format":"aite-codex","version":1,"entries":[]}`)
	blob := make([]byte, 70000) // binary, with every byte value and NULs
	for i := range blob {
		blob[i] = byte(i * 7)
	}
	require.NoError(t, s.PutDocumentData(bg, "d1", "codex.json", codexJSON, at(2)))
	require.NoError(t, s.PutDocumentData(bg, "d1", "vectors.bin", blob, at(3)))
	got, err := s.GetDocumentData(bg, "d1", "codex.json")
	require.NoError(t, err)
	require.Equal(t, store.DocumentDatum{DocumentID: "d1", Name: "codex.json", Data: codexJSON, UpdatedAt: ms(at(2))}, got)
	got, err = s.GetDocumentData(bg, "d1", "vectors.bin")
	require.NoError(t, err)
	require.Equal(t, blob, got.Data, "bytes come back exactly")

	replaced := []byte(`{"format":"aite-codex","version":1,"entries":[{"id":"x","name":"X"}]}`)
	require.NoError(t, s.PutDocumentData(bg, "d1", "codex.json", replaced, at(4)))
	got, err = s.GetDocumentData(bg, "d1", "codex.json")
	require.NoError(t, err)
	require.Equal(t, replaced, got.Data, "a put replaces the value")
	require.Equal(t, ms(at(4)), got.UpdatedAt)
	_, err = s.GetDocumentData(bg, "d2", "codex.json")
	requireIs(t, err, store.ErrNotFound, "values are per document")

	require.NoError(t, s.PutDocumentData(bg, "d2", "empty", nil, at(5)))
	got, err = s.GetDocumentData(bg, "d2", "empty")
	require.NoError(t, err)
	require.Empty(t, got.Data)

	requireIs(t, s.PutDocumentData(bg, "nope", "codex.json", codexJSON, at(1)), store.ErrNotFound, "an unknown document")
	for _, bad := range []string{"", "a/b", "../x", "with space", string(make([]byte, 65))} {
		requireIs(t, s.PutDocumentData(bg, "d1", bad, codexJSON, at(1)), store.ErrInvalid, bad)
	}
	// The document itself is untouched.
	d, err := s.GetDocument(bg, "d1")
	require.NoError(t, err)
	require.Equal(t, 0, d.Revision)
	require.Equal(t, book, d.Markdown)
}

// summary is d without its text and item IDs, as ApplyDocumentEdit and
// ListDocuments give it.
func summary(d store.Document) store.Document {
	d.Markdown, d.ItemIDs, d.NextItemID = "", nil, 0
	return d
}

// journalEdit is edit rev of testDocumentJournal: it replaces paragraph
// k of the text (the item at index k+1, after the heading) with new text,
// or inserts one after it, as the server records such an edit.
func journalEdit(text string, ids []int, next, rev, k int, insert bool, extra string) (string, []int, int, store.DocumentEdit) {
	paras := strings.SplitAfter(text, "\n\n")
	at := 0
	for _, p := range paras[:k+1] {
		at += len(p)
	}
	old := paras[k+1]
	e := edit(rev, "replace")
	newText := fmt.Sprintf("Paragraph %d of revision %d%s.\n\n", k, rev, extra)
	is := &store.IDSplice{At: k + 1, Old: 1, New: []int{ids[k+1]}, Next: next}
	if insert {
		e.Op, old, at = "insert_after", "", at+len(old)
		is = &store.IDSplice{At: k + 2, Old: 0, New: []int{next}, Next: next + 1}
		next++
	}
	e.Splice, e.IDs = &store.Splice{At: at, Old: old, New: newText}, is
	text = text[:at] + newText + text[at+len(old):]
	ids = slices.Replace(slices.Clone(ids), is.At, is.At+is.Old, is.New...)
	return text, ids, next, e
}

// testDocumentJournal: edits that record their change are journaled and a
// read replays them on the snapshot; the content (DocumentContent.Later) is
// asked for, and written as the new snapshot, exactly when
// store.SnapshotDue says so; an edit that records no change is a snapshot.
func testDocumentJournal(t *testing.T, s store.Store) {
	text := "# Journal\n\n"
	ids := []int{1}
	for i := range 12 {
		text += fmt.Sprintf("Paragraph %d.\n\n", i)
		ids = append(ids, i+2)
	}
	next := len(ids) + 1
	_, err := s.CreateDocument(bg, store.Document{ID: "j1", Name: "j.md", Markdown: text, ItemCount: len(ids),
		ItemIDs: ids, NextItemID: next, CreatedAt: at(1), UpdatedAt: at(1)})
	require.NoError(t, err)
	snapNext, pending, pendingBytes, snapshots := next, 0, 0, 0
	check := func(rev int) {
		t.Helper()
		got, err := s.GetDocument(bg, "j1")
		require.NoError(t, err)
		require.Equal(t, store.Document{ID: "j1", Name: "j.md", Markdown: text, Revision: rev, ItemCount: len(ids),
			ItemIDs: ids, NextItemID: next, SizeBytes: len(text), CreatedAt: ms(at(1)), UpdatedAt: ms(at(10 + rev))}, got,
			"revision %d", rev)
	}
	for rev := 1; rev <= store.SnapshotEdits+110; rev++ {
		extra := ""
		if rev == 60 { // a big change: the bytes bound
			extra = strings.Repeat("x", store.SnapshotBytes)
		}
		var e store.DocumentEdit
		text, ids, next, e = journalEdit(text, ids, next, rev, rev%11, rev%5 == 0 && len(ids) < 40, extra)
		if rev == 100 {
			e.IDs = nil // records no item IDs: cannot be replayed
		}
		due := store.SnapshotDue(snapNext, pending, pendingBytes, e)
		asked := false
		c := store.DocumentContent{Later: func() store.DocumentContent {
			asked = true
			return store.DocumentContent{Markdown: text, ItemCount: len(ids), ItemIDs: ids, NextItemID: next}
		}}
		d, err := s.ApplyDocumentEdit(bg, "j1", c, e)
		require.NoError(t, err, "revision %d", rev)
		require.Equal(t, due, asked, "revision %d: the content was asked for exactly when a snapshot was due", rev)
		require.Equal(t, store.Document{ID: "j1", Name: "j.md", Revision: rev, ItemCount: len(ids), SizeBytes: len(text),
			CreatedAt: ms(at(1)), UpdatedAt: ms(at(10 + rev))}, d, "revision %d", rev)
		if due {
			snapNext, pending, pendingBytes = next, 0, 0
			snapshots++
		} else {
			pending, pendingBytes = pending+1, pendingBytes+store.ChangeBytes(e)
		}
		if rev%17 == 0 || due || rev == store.SnapshotEdits+110 {
			check(rev)
		}
	}
	require.Equal(t, 4, snapshots, "the bytes bound (making the big paragraph, replacing it), an edit without IDs and the edits bound")
	edits, err := s.ListDocumentEdits(bg, "j1", store.SnapshotEdits+109)
	require.NoError(t, err)
	require.Len(t, edits, 1)
	require.NotNil(t, edits[0].IDs, "the item ID change round-trips")
	_, _, _, want := journalEdit(text, ids, next, 0, 0, false, "") // any edit's shape
	require.IsType(t, want.IDs, edits[0].IDs)
}

// testDocumentJournalRejected: a change that does not fit the document is
// refused and changes nothing.
func testDocumentJournalRejected(t *testing.T, s store.Store) {
	_, err := s.CreateDocument(bg, store.Document{ID: "j2", Name: "j.md", Markdown: book, ItemCount: 2,
		ItemIDs: []int{1, 2}, NextItemID: 3, CreatedAt: at(1), UpdatedAt: at(1)})
	require.NoError(t, err)
	// A first edit: a snapshot is not due, so the change is what is checked.
	good := edit(1, "replace")
	good.Splice, good.IDs = &store.Splice{At: 9, Old: "First", New: "1st"}, &store.IDSplice{At: 1, Old: 1, New: []int{2}, Next: 3}
	lost := store.DocumentContent{Later: func() store.DocumentContent { panic("no snapshot is due") }}
	for name, e := range map[string]func(*store.DocumentEdit){
		"text change past the end": func(e *store.DocumentEdit) { e.Splice.At = len(book) },
		"negative text offset":     func(e *store.DocumentEdit) { e.Splice.At = -1 },
		"items past the end":       func(e *store.DocumentEdit) { e.IDs.At = 2 },
		"a new ID not below next":  func(e *store.DocumentEdit) { e.IDs.New = []int{3} },
		"a repeated new ID":        func(e *store.DocumentEdit) { e.IDs.Old, e.IDs.New = 1, []int{2, 2} },
	} {
		bad := good
		sp, is := *good.Splice, *good.IDs
		is.New = slices.Clone(is.New)
		bad.Splice, bad.IDs = &sp, &is
		e(&bad)
		_, err := s.ApplyDocumentEdit(bg, "j2", lost, bad)
		requireIs(t, err, store.ErrInvalid, "%s", name)
	}
	_, err = s.ApplyDocumentEdit(bg, "j2", lost, good)
	require.NoError(t, err)
	got, err := s.GetDocument(bg, "j2")
	require.NoError(t, err)
	require.Equal(t, "# Title\n\n1st paragraph — ü.\n", got.Markdown)
	require.Equal(t, []int{1, 2}, got.ItemIDs)
}
