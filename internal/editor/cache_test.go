package editor

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/bookcache"
	"github.com/aitexteditor/aite/internal/cursor"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/search"
)

// readerView is everything a reader can get from a book in a session: every
// item, the outline, searches and a keyword cursor, as JSON.
func readerView(t *testing.T, s *Session, path string) string {
	t.Helper()
	var parts []any
	items, err := s.Items(path, "", 100000, nil)
	require.NoError(t, err)
	outline, err := s.Outline(path)
	require.NoError(t, err)
	parts = append(parts, items, outline)
	for _, q := range []string{"Звёздочкин", "часы башня", "Варя", "профессор"} {
		for _, mode := range []SearchMode{Exact, Ranked} {
			res, err := s.Search(path, q, mode, search.Options{Limit: 50, IncludeHeadings: true})
			require.NoError(t, err)
			parts = append(parts, res)
		}
		spec := cursor.NewSpec(cursor.Keyword)
		spec.Keywords = []string{q}
		info, err := s.CreateCursor(path, spec)
		require.NoError(t, err)
		p, err := s.Next(path, info.Name)
		require.NoError(t, err)
		parts = append(parts, p)
	}
	b, err := json.Marshal(parts)
	require.NoError(t, err)
	return string(b)
}

// openView opens path in a new session, as a command does, and returns
// its view and info; closing the session writes the cache.
func openView(t *testing.T, path string) (string, BookInfo) {
	t.Helper()
	s, info := reopen(t, path)
	v := readerView(t, s, path)
	require.NoError(t, s.Close(path))
	return v, info
}

// referenceView opens a copy of the book file and its state, without the
// cache, in another folder: what the book must look like when its cache is
// ignored.
func referenceView(t *testing.T, path string) string {
	t.Helper()
	dir := t.TempDir()
	copyPath := filepath.Join(dir, filepath.Base(path))
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(copyPath, src, 0o644))
	if state, err := os.ReadFile(StatePath(path)); err == nil {
		require.NoError(t, os.MkdirAll(StateDir(copyPath), 0o755))
		require.NoError(t, os.WriteFile(StatePath(copyPath), state, 0o644))
	}
	v, info := openView(t, copyPath)
	require.False(t, info.Cached)
	return v
}

func TestCacheIsUsedAndAgreesWithAParse(t *testing.T) {
	path, _ := sampleBook(t)
	first, info := openView(t, path)
	require.False(t, info.Cached, "nothing to use on the first open")
	require.FileExists(t, bookcache.CachePath(path), "the first command writes the cache")
	again, info := openView(t, path)
	require.True(t, info.Cached)
	require.Equal(t, IDsRecorded, info.IDs)
	require.Equal(t, first, again)
	require.Equal(t, referenceView(t, path), again)
}

// The cache is rewritten with every save, with the session's IDs: the next
// command reads the edited book from it.
func TestCacheFollowsSaves(t *testing.T) {
	path, _ := sampleBook(t)
	s, _ := reopen(t, path)
	ins, err := s.Edit(path, document.OpInsertAfter, "1.p1", "Новый абзац про Варю и часы.")
	require.NoError(t, err)
	_, err = s.Edit(path, document.OpReplace, "1.1.p3", "Звёздочкин заменил абзац.")
	require.NoError(t, err)
	want := readerView(t, s, path)
	_, err = s.Save(path, SaveOptions{Record: "test"})
	require.NoError(t, err)
	got, info := openView(t, path)
	require.True(t, info.Cached)
	require.Equal(t, want, got)
	r, _ := reopen(t, path)
	require.Equal(t, "Новый абзац про Варю и часы.", textOf(t, r, path, ins.Pointer.String()))

	// The undone version is parsed again, and cached for the next command.
	_, err = UndoCommand(path, false, false)
	require.NoError(t, err)
	_, info = openView(t, path)
	require.False(t, info.Cached)
	_, info = openView(t, path)
	require.True(t, info.Cached)
}

// An edit of a book whose cache holds the search index (decoded, then
// changed by the edit) saves an index of the edited book: the next command
// searches the new text, not the old one, as a parse of it would.
func TestCachedIndexFollowsEdits(t *testing.T) {
	path, _ := sampleBook(t)
	openView(t, path) // parses; its searches build the index
	_, info := openView(t, path)
	require.True(t, info.Cached)
	s, _ := reopen(t, path)
	_, err := s.Edit(path, document.OpReplace, "1.p1", "Профессор Варя, а не часы и не башня.")
	require.NoError(t, err)
	_, err = s.Edit(path, document.OpInsertAfter, "1.p1", "Звёздочкин заходит к Варе.")
	require.NoError(t, err)
	want := readerView(t, s, path)
	_, err = s.Save(path, SaveOptions{Record: "test"})
	require.NoError(t, err)
	require.NoError(t, s.Close(path))
	got, info := openView(t, path)
	require.True(t, info.Cached)
	require.Equal(t, want, got)
	require.Equal(t, referenceView(t, path), got)
}

// Whatever happened to the book, its state or its cache, a command sees
// exactly what it would see without a cache.
func TestCacheIsNeverTrusted(t *testing.T) {
	tests := []struct {
		name   string
		tamper func(t *testing.T, path string)
	}{
		{"another program kept size and mtime", func(t *testing.T, path string) {
			src, err := os.ReadFile(path)
			require.NoError(t, err)
			fi, err := os.Stat(path)
			require.NoError(t, err)
			i := bytes.Index(src, []byte("Варя"))
			require.Positive(t, i)
			copy(src[i:], "Катя") // the same number of bytes
			require.NoError(t, os.WriteFile(path, src, 0o644))
			require.NoError(t, os.Chtimes(path, fi.ModTime(), fi.ModTime()))
		}},
		{"cache truncated", func(t *testing.T, path string) {
			data, err := os.ReadFile(bookcache.CachePath(path))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(bookcache.CachePath(path), data[:len(data)/2], 0o644))
		}},
		{"cache emptied", func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(bookcache.CachePath(path), nil, 0o644))
		}},
		{"cache bytes flipped", func(t *testing.T, path string) {
			data, err := os.ReadFile(bookcache.CachePath(path))
			require.NoError(t, err)
			for i := 100; i < len(data); i += len(data) / 7 {
				data[i] ^= 0x20
			}
			require.NoError(t, os.WriteFile(bookcache.CachePath(path), data, 0o644))
		}},
		{"cache of another book", func(t *testing.T, path string) {
			other := filepath.Join(t.TempDir(), filepath.Base(path))
			require.NoError(t, os.WriteFile(other, []byte("# Другая книга\n\nВаря.\n"), 0o644))
			openView(t, other)
			data, err := os.ReadFile(bookcache.CachePath(other))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(bookcache.CachePath(path), data, 0o644))
		}},
		{"state recorded again", func(t *testing.T, path string) {
			s, _ := reopen(t, path)
			_, err := s.Edit(path, document.OpInsertAfter, "1.p1", "Не записано.")
			require.NoError(t, err)
			require.NoError(t, s.Close(path)) // raises the next ID in the state
		}},
		{"state deleted", func(t *testing.T, path string) {
			require.NoError(t, os.Remove(StatePath(path)))
		}},
		{"book touched", func(t *testing.T, path string) {
			later := time.Now().Add(time.Hour)
			require.NoError(t, os.Chtimes(path, later, later))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, _ := sampleBook(t)
			openView(t, path)
			_, info := openView(t, path)
			require.True(t, info.Cached)
			tt.tamper(t, path)
			want := referenceView(t, path)
			got, _ := openView(t, path)
			require.Equal(t, want, got)
			again, info := openView(t, path)
			require.True(t, info.Cached, "the cache was rebuilt")
			require.Equal(t, want, again)
		})
	}
}

// A dry run's unsaved insert handed out an ID; the next command, reading
// the book from its cache, never hands it out again.
func TestCacheKeepsIDsOfUnsavedEditsUnused(t *testing.T) {
	path, _ := sampleBook(t)
	openView(t, path)
	s, _ := reopen(t, path)
	dry, err := s.Edit(path, document.OpInsertAfter, "1.p1", "Пробный абзац.")
	require.NoError(t, err)
	require.NoError(t, s.Close(path))
	r, info := reopen(t, path)
	require.True(t, info.Cached)
	real, err := r.Edit(path, document.OpInsertAfter, "1.p1", "Настоящий абзац.")
	require.NoError(t, err)
	require.Greater(t, real.Pointer.ID, dry.Pointer.ID)
}

func TestNoCacheWithoutState(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "book.md")
	require.NoError(t, os.WriteFile(path, []byte("# T\n\nText.\n"), 0o644))
	require.NoError(t, os.Chmod(dir, 0o555))
	t.Cleanup(func() { _ = os.Chmod(dir, 0o755) })
	_, info := reopen(t, path)
	require.False(t, info.Cached)
	require.NoFileExists(t, bookcache.CachePath(path))
	require.True(t, strings.Contains(info.Warning, "cannot record"), info.Warning)
}

// A big book's first open lightens the parsed document (lightenFrom): what
// a reader sees, and the cache written, are those of a book opened
// without it.
func TestLightenedOpenAgrees(t *testing.T) {
	path, _ := sampleBook(t)
	want, info := openView(t, path)
	require.False(t, info.Cached)
	defer func(n int) { lightenFrom = n }(lightenFrom)
	lightenFrom = 0
	other, _ := sampleBook(t)
	got, info := openView(t, other)
	require.False(t, info.Cached)
	require.Equal(t, want, got)
	again, info := openView(t, other)
	require.True(t, info.Cached)
	require.Equal(t, want, again)
}

// A book whose cache is valid is not checked for being text again, so a
// cache is only written for a text that passes: a save that wrote bytes
// that are not UTF-8 writes none, and the next open refuses the book as
// it would without a cache.
func TestNoCacheForWhatIsNotText(t *testing.T) {
	path, _ := sampleBook(t)
	openView(t, path)
	s, info := reopen(t, path)
	require.True(t, info.Cached)
	_, err := s.Edit(path, document.OpReplace, "1.p1", "Бинарный \xff\xfe абзац.")
	require.NoError(t, err)
	_, err = s.Save(path, SaveOptions{})
	require.NoError(t, err)
	require.NoError(t, s.Close(path))
	_, err = New().Open(path)
	require.ErrorIs(t, err, ErrEncoding)
}

// cachedAt loads the cache beside path as the next command would, or nil.
func cachedAt(t *testing.T, path string) *cached {
	t.Helper()
	src, mtime, err := readBook(path)
	require.NoError(t, err)
	old, err := readRecord(path)
	require.NoError(t, err)
	return loadCache(path, src, mtime, old)
}

// A one-command session writes the cache beside the command's work
// (CacheMeanwhile): the same bytes as Close writes after it, while the
// command reads the book; an index a search builds meanwhile is written
// too, by Close, after the early write.
func TestCacheMeanwhile(t *testing.T) {
	path, _ := sampleBook(t)
	twin := filepath.Join(t.TempDir(), filepath.Base(path))
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(twin, src, 0o644))
	mtime := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(path, mtime, mtime))
	require.NoError(t, os.Chtimes(twin, mtime, mtime))

	s := New() // set before the open: the write starts beside the state file's
	s.ForOneCommand()
	s.CacheMeanwhile()
	_, err = s.Open(path)
	require.NoError(t, err)
	s.CacheMeanwhile() // once per book
	spec := cursor.NewSpec(cursor.Keyword)
	spec.Keywords = []string{"Звёздочкин"}
	info, err := s.CreateCursor(path, spec)
	require.NoError(t, err)
	_, err = s.Next(path, info.Name)
	require.NoError(t, err)
	_, err = s.Items(path, "", 100000, nil)
	require.NoError(t, err)
	require.NoError(t, s.Close(path))

	r, _ := reopen(t, twin) // the same book, its cache written by Close alone
	require.NoError(t, r.Close(twin))
	early, err := os.ReadFile(bookcache.CachePath(path))
	require.NoError(t, err)
	late, err := os.ReadFile(bookcache.CachePath(twin))
	require.NoError(t, err)
	require.Equal(t, late, early)
	c := cachedAt(t, path)
	require.NotNil(t, c)
	require.True(t, c.ids)
	require.Nil(t, c.index)

	// Set after the open; a search after the early write: Close writes the
	// cache again, with the index.
	require.NoError(t, os.Remove(bookcache.CachePath(path)))
	s, _ = reopen(t, path)
	s.ForOneCommand()
	s.CacheMeanwhile()
	_, err = s.Search(path, "Варя", Ranked, search.Options{Limit: 5})
	require.NoError(t, err)
	require.NoError(t, s.Close(path))
	c = cachedAt(t, path)
	require.NotNil(t, c)
	require.NotNil(t, c.index)
	_, info2 := openView(t, path)
	require.True(t, info2.Cached)
}

// An edit or a reload in a session that writes the cache beside
// the command (CacheMeanwhile) waits for that write first: it reads the
// document they change (an undo follows an edit) (go test -race sees it otherwise), and what it
// wrote is the book on disk, which the next command reads from it.
func TestCacheMeanwhileThenChange(t *testing.T) {
	for _, change := range []struct {
		name string
		do   func(s *Session, path string) error
	}{
		{"edit", func(s *Session, path string) error {
			_, err := s.Edit(path, document.OpReplace, "1.p1", "Новый текст.")
			return err
		}},
		{"reload", func(s *Session, path string) error {
			_, err := s.Reload(path, []byte("# Другая книга\n\nАбзац.\n"))
			return err
		}},
	} {
		t.Run(change.name, func(t *testing.T) {
			path, _ := sampleBook(t)
			want, _ := openView(t, path) // the reference, before a cache exists
			require.NoError(t, os.Remove(bookcache.CachePath(path)))
			require.NoError(t, os.RemoveAll(StateDir(path)))
			s := New()
			s.ForOneCommand()
			s.CacheMeanwhile()
			_, err := s.Open(path)
			require.NoError(t, err)
			b := s.books[path]
			require.NotNil(t, b.caching, "the write started")
			require.NoError(t, change.do(s, path))
			if change.name != "reload" {
				require.Nil(t, b.caching, "the change waited for the write")
			}
			require.NoError(t, s.Close(path)) // unsaved: the file is as it was
			got, info := openView(t, path)
			require.True(t, info.Cached, "the early write's cache is the book on disk")
			require.Equal(t, want, got)
		})
	}
}
