package editor

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/bookcache"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/pointer"
)

// reopen opens path in a new session (a new process) and returns it with
// the book's info.
func reopen(t *testing.T, path string) (*Session, BookInfo) {
	t.Helper()
	s := New()
	info, err := s.Open(path)
	require.NoError(t, err)
	return s, info
}

// textOf returns the text of the item ptr names in s.
func textOf(t *testing.T, s *Session, path, ptr string) string {
	t.Helper()
	v, err := s.Resolve(path, ptr)
	require.NoError(t, err, ptr)
	return v.Text
}

func TestStateKeepsIDsAcrossOpens(t *testing.T) {
	path, _ := sampleBook(t)
	s, info := reopen(t, path)
	require.Equal(t, IDsNew, info.IDs, "no record yet")
	require.FileExists(t, StatePath(path), "the first open records the IDs")
	first := allPointers(t, s, path)

	// An insert and a delete, saved: the next process sees the session's
	// pointers, not a renumbering.
	ins, err := s.Edit(path, document.OpInsertAfter, "1.p1", "Новый абзац.")
	require.NoError(t, err)
	del, err := s.Edit(path, document.OpDelete, first[5].String(), "")
	require.NoError(t, err)
	want := allPointers(t, s, path)
	_, err = s.Save(path, SaveOptions{})
	require.NoError(t, err)

	r, info := reopen(t, path)
	require.Equal(t, IDsRecorded, info.IDs)
	require.Equal(t, want, allPointers(t, r, path))
	require.Equal(t, "Новый абзац.", textOf(t, r, path, ins.Pointer.String()))
	_, err = r.Resolve(path, del.Target.String())
	require.ErrorIs(t, err, document.ErrNotFound, "a deleted item's pointer names nothing")
	// The pointer listed before the insert still names its item: the label
	// is stale, the ID decides.
	old := first[len(first)-1]
	require.Equal(t, textOf(t, s, path, old.String()), textOf(t, r, path, old.String()))
}

func TestStateCarriesIDsOverAnotherProgramsEdit(t *testing.T) {
	path, src := sampleBook(t)
	s, _ := reopen(t, path)
	before := allPointers(t, s, path)
	byText := map[string]pointer.Pointer{}
	v, err := s.Items(path, "", 10000, nil)
	require.NoError(t, err)
	for _, it := range v.Items {
		byText[it.Markdown] = it.Pointer
	}
	_, next, err := s.ItemIDs(path)
	require.NoError(t, err)

	// Another editor rewrites one paragraph and adds one (like sed -i).
	items := v.Items
	changed := strings.Replace(string(src), items[3].Markdown, items[3].Markdown+" Дописано.", 1)
	changed = strings.Replace(changed, items[7].Markdown, "Вставлено снаружи.\n\n"+items[7].Markdown, 1)
	require.NoError(t, os.WriteFile(path, []byte(changed), 0o644))

	r, info := reopen(t, path)
	require.Equal(t, IDsCarried, info.IDs)
	require.Equal(t, 2, info.NewIDs)
	after, err := r.Items(path, "", 10000, nil)
	require.NoError(t, err)
	fresh := 0
	for _, it := range after.Items {
		if p, ok := byText[it.Markdown]; ok {
			require.Equal(t, p.ID, it.ID, "an unchanged item keeps its ID: %s", it.Markdown)
			continue
		}
		require.GreaterOrEqual(t, it.ID, next, "a new or rewritten item gets a fresh ID")
		fresh++
	}
	require.Equal(t, 2, fresh)
	_, err = r.Resolve(path, before[3].String())
	require.ErrorIs(t, err, document.ErrNotFound, "the rewritten item's old pointer names nothing now")

	// The carried IDs were recorded: the next process agrees.
	again, info := reopen(t, path)
	require.Equal(t, IDsRecorded, info.IDs)
	require.Equal(t, allPointers(t, r, path), allPointers(t, again, path))
}

func TestStateThatCannotBeTrusted(t *testing.T) {
	path, _ := sampleBook(t)
	s, _ := reopen(t, path)
	_, err := s.Edit(path, document.OpInsertBefore, "1.p1", "Первый.")
	require.NoError(t, err)
	_, err = s.Save(path, SaveOptions{})
	require.NoError(t, err)
	good, err := os.ReadFile(StatePath(path))
	require.NoError(t, err)

	var f stateFile
	require.NoError(t, json.Unmarshal(good, &f))
	edited := func(edit func(f *stateFile)) string {
		g := f
		edit(&g)
		return string(g.marshal())
	}
	nearTop := edited(func(f *stateFile) { // a hand edit that once made a 16 GiB cache
		f.NextID = 1<<32 - 6
		f.IDs = strings.Replace(f.IDs, "1-", fmt.Sprintf("%d,2-", 1<<32-16), 1)
	})
	require.NotEqual(t, string(good), nearTop)
	tests := []struct {
		name, state string
		warn        string
	}{
		{"damaged", `{"format":`, "ignored the state file"},
		{"an ID near 2^32", nearTop, "the next ID 4294967290 is beyond"},
		{"a next ID sparser than the bound", edited(func(f *stateFile) { f.NextID = document.MaxNextID(f.Items) + 1 }), "is beyond"},
		{"another version", strings.Replace(string(good), `"version": 1`, `"version": 99`, 1), "version 99"},
		{"wrong count", strings.Replace(string(good), `"items": `, `"items": 1`, 1), "ignored the state file"},
		{"deleted", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.state == "" {
				require.NoError(t, os.RemoveAll(StateDir(path)))
			} else {
				require.NoError(t, os.WriteFile(StatePath(path), []byte(tt.state), 0o644))
			}
			r, info := reopen(t, path)
			require.Equal(t, IDsNew, info.IDs, "an untrusted record only renumbers")
			require.Contains(t, info.Warning, tt.warn)
			for i, p := range allPointers(t, r, path) {
				require.Equal(t, i+1, p.ID)
			}
			require.NoError(t, r.Close(path))
			fi, err := os.Stat(bookcache.CachePath(path))
			require.NoError(t, err)
			require.Less(t, fi.Size(), int64(1<<20), "a cache the size of the book")
			_, info = reopen(t, path)
			require.Equal(t, IDsRecorded, info.IDs, "the record was rebuilt")
			require.NoError(t, os.WriteFile(StatePath(path), good, 0o644))
		})
	}
}

func TestCloseKeepsIDsOfUnsavedEditsUnused(t *testing.T) {
	path, _ := sampleBook(t)
	s, _ := reopen(t, path)
	ins, err := s.Edit(path, document.OpInsertAfter, "1.p1", "Не записано.")
	require.NoError(t, err)
	require.NoError(t, s.Close(path)) // the edit is dropped

	r, _ := reopen(t, path)
	_, err = r.Resolve(path, ins.Pointer.String())
	require.ErrorIs(t, err, document.ErrNotFound)
	other, err := r.Edit(path, document.OpInsertAfter, "1.p1", "Другой.")
	require.NoError(t, err)
	require.Greater(t, other.Pointer.ID, ins.Pointer.ID, "the dropped edit's ID is not handed out again")
}

func TestUndoCommandRestoresIDs(t *testing.T) {
	path, src := sampleBook(t)
	s, _ := reopen(t, path)
	want := allPointers(t, s, path)
	_, err := s.Edit(path, document.OpDelete, want[4].String(), "")
	require.NoError(t, err)
	ins, err := s.Edit(path, document.OpInsertBefore, want[2].String(), "Вставка.")
	require.NoError(t, err)
	_, err = s.Save(path, SaveOptions{Record: "two edits"})
	require.NoError(t, err)

	c, err := UndoCommand(path, false, false)
	require.NoError(t, err)
	require.Equal(t, "two edits", c.Label)
	onDisk, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, src, onDisk)
	r, info := reopen(t, path)
	require.Equal(t, IDsRecorded, info.IDs)
	require.Equal(t, want, allPointers(t, r, path), "the deleted item is back with its ID")
	next, err := r.Edit(path, document.OpInsertAfter, "1.p1", "Ещё.")
	require.NoError(t, err)
	require.Greater(t, next.Pointer.ID, ins.Pointer.ID, "the undone insert's ID is not reused")
}

// A journal whose next ID is beyond document.MaxNextID (damaged, or
// edited by hand) does not put it in the state: undo carries the IDs over
// from the current record instead.
func TestUndoRefusesAnAbsurdNextID(t *testing.T) {
	path, src := sampleBook(t)
	s, _ := reopen(t, path)
	_, err := s.Edit(path, document.OpInsertBefore, "1.p1", "Вставка.")
	require.NoError(t, err)
	_, err = s.Save(path, SaveOptions{Record: "an edit"})
	require.NoError(t, err)
	b, err := os.ReadFile(JournalPath(path))
	require.NoError(t, err)
	var l commandLog
	require.NoError(t, json.Unmarshal(b, &l))
	l.Commands[len(l.Commands)-1].NextID = 1<<32 - 6
	b, err = json.Marshal(l)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(JournalPath(path), b, 0o644))

	_, err = UndoCommand(path, false, false)
	require.NoError(t, err)
	onDisk, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, src, onDisk)
	r, info := reopen(t, path)
	require.Equal(t, IDsRecorded, info.IDs, "%s", info.Warning)
	ids, next, err := r.ItemIDs(path)
	require.NoError(t, err)
	require.LessOrEqual(t, next, document.MaxNextID(len(ids)))
}

func TestLegacyJournalIsMigrated(t *testing.T) {
	path, src := sampleBook(t)
	after := append([]byte("Prepended.\n\n"), src...)
	legacy := commandLog{Book: "book.md", Commands: []CommandRecord{{Label: "old aite", Before: digest(src),
		After: digest(after), Change: change(src, after), Edits: 1}}}
	b, err := json.Marshal(legacy)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(legacyJournalPath(path), b, 0o644))
	require.NoError(t, os.WriteFile(path, after, 0o644))

	c, err := UndoCommand(path, false, false)
	require.NoError(t, err)
	require.Equal(t, "old aite", c.Label)
	require.NoFileExists(t, legacyJournalPath(path))
	require.FileExists(t, JournalPath(path))
	onDisk, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, src, onDisk)
}

func TestSaveRefusesAReadOnlyBook(t *testing.T) {
	path, src := sampleBook(t)
	require.NoError(t, os.Chmod(path, 0o444))
	s, _ := reopen(t, path)
	_, err := s.Edit(path, document.OpReplace, "1.p1", "Новое.")
	require.NoError(t, err)
	_, err = s.Save(path, SaveOptions{Backup: true})
	require.ErrorIs(t, err, ErrReadOnly)
	require.ErrorIs(t, err, ErrIO)
	onDisk, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, src, onDisk, "nothing written")

	res, err := s.Save(path, SaveOptions{ForceReadOnly: true})
	require.NoError(t, err)
	require.True(t, res.Written)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o444), fi.Mode().Perm(), "the mode is kept")
}

func TestOpenRefusesTextThatIsNotUTF8(t *testing.T) {
	tests := []struct {
		name  string
		src   []byte
		parts []string
	}{
		{"cp1251", []byte("# \xc7\xe0\xef\xe8\xf1\xea\xe8\n\n\xdf \xf7\xe5\xeb\xee\xe2\xe5\xea \xe1\xee\xeb\xfc\xed\xee\xe9.\n"),
			[]string{"Windows-1251", "iconv -f WINDOWS-1251 -t UTF-8", "line 1"}},
		{"koi8-r", []byte("# \xda\xc1\xd0\xc9\xd3\xcb\xc9\n\n\xf1 \xde\xc5\xcc\xcf\xd7\xc5\xcb.\n"), []string{"KOI8-R"}},
		{"latin-1", []byte("# Caf\xe9\n\nA na\xefve text about a caf\xe9 and more words.\n"), []string{"Windows-1252", "line 1"}},
		{"utf-16 with a mark", []byte("\xff\xfe#\x00 \x00T\x00"), []string{"UTF-16"}},
		{"utf-16 without a mark", []byte("#\x00 \x00T\x00i\x00t\x00l\x00e\x00\n\x00"), []string{"UTF-16"}},
		{"binary", []byte("# T\n\nab\x00cd\n"), []string{"binary data", "line 3"}},
		{"invalid on a later line", []byte("# T\n\nfine\n\nbad \xff\n"), []string{"line 5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "book.md")
			require.NoError(t, os.WriteFile(path, tt.src, 0o644))
			_, err := New().Open(path)
			require.ErrorIs(t, err, ErrEncoding)
			for _, p := range tt.parts {
				require.ErrorContains(t, err, p)
			}
			require.NoDirExists(t, StateDir(path), "nothing is recorded for a refused book")
		})
	}
}

func TestNoStateBesideABookInAReadOnlyFolder(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "book.md")
	require.NoError(t, os.WriteFile(path, []byte("# T\n\nText.\n"), 0o444))
	require.NoError(t, os.Chmod(dir, 0o555))
	t.Cleanup(func() { _ = os.Chmod(dir, 0o755) })
	_, info := reopen(t, path)
	require.Equal(t, IDsNew, info.IDs)
	require.Contains(t, info.Warning, "is read-only")
	require.NoDirExists(t, StateDir(path), "nothing is created in a read-only folder, even by root")
}

func TestMakeStateDir(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "book.md")
	require.NoError(t, os.WriteFile(path, []byte("# T\n"), 0o644))
	got, err := MakeStateDir(path, "eval")
	require.NoError(t, err)
	require.Equal(t, filepath.Join(StateDir(path), "eval"), got)
	require.DirExists(t, got)

	ro := t.TempDir()
	locked := filepath.Join(ro, "book.md")
	require.NoError(t, os.WriteFile(locked, []byte("# T\n"), 0o444))
	require.NoError(t, os.Chmod(ro, 0o555))
	t.Cleanup(func() { _ = os.Chmod(ro, 0o755) })
	_, err = MakeStateDir(locked, "eval")
	require.ErrorContains(t, err, "is read-only")
	require.NoDirExists(t, StateDir(locked), "nothing is created in a read-only folder, even by root")
}

// The state file is written exactly as encoding/json indents it.
func TestStateFileMarshal(t *testing.T) {
	for _, f := range []stateFile{
		{},
		{Format: StateFormat, Version: StateVersion, Book: "book.md", Bytes: 5_600_000, SHA256: strings.Repeat("ab", 32),
			Items: 3, NextID: 9, IDs: "1-2,8", Hashes: "AAECAwQFBgc+/w=="},
		{Format: "x", Version: -1, Book: "кни<г>а \"&\\\n\t\u2028.md", Bytes: -5, IDs: "\x01", Hashes: "\xff"},
	} {
		want, err := json.MarshalIndent(f, "", " ")
		require.NoError(t, err)
		require.Equal(t, string(want), string(f.marshal()))
	}
}
