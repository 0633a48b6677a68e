package editor

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/aitexteditor/aite/internal/cursor"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/search"
	"github.com/stretchr/testify/require"
)

func sampleBook(t *testing.T) (string, []byte) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "zvezdochkin.md"))
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "book.md")
	require.NoError(t, os.WriteFile(path, src, 0o644))
	return path, src
}

func TestOpenReadEditSaveUndo(t *testing.T) {
	path, src := sampleBook(t)
	s := New()
	info, err := s.Open(path)
	require.NoError(t, err)
	require.Equal(t, path, info.ID)
	require.False(t, info.Dirty)
	again, err := s.Open(path)
	require.NoError(t, err)
	require.Equal(t, info, again)

	out, err := s.Outline(path)
	require.NoError(t, err)
	require.Equal(t, "Звёздочкин и часы на башне", out.Sections[0].Title)

	rv, err := s.Read(path, "1.p1", 1, 1)
	require.NoError(t, err)
	require.Len(t, rv.Items, 3)
	require.Equal(t, "1.p1", rv.Target.Label)

	res, err := s.Edit(path, document.OpReplace, "1.p1", "Новое вступление.")
	require.NoError(t, err)
	require.Equal(t, "Новое вступление.", res.MarkdownAfter)
	_, err = s.Edit(path, document.OpInsertAfter, "1.p1", "Второй абзац.")
	require.NoError(t, err)
	diff, err := s.Diff(path)
	require.NoError(t, err)
	require.Contains(t, diff, "+Новое вступление.")
	require.Contains(t, diff, "+Второй абзац.")

	// A refused edit changes nothing.
	_, err = s.Edit(path, document.OpDelete, "1.1", "")
	require.ErrorIs(t, err, document.ErrHeading)

	saved, err := s.Save(path, SaveOptions{Backup: true})
	require.NoError(t, err)
	require.True(t, saved.Written)
	require.Equal(t, path+".bak", saved.Backup)
	bak, err := os.ReadFile(path + ".bak")
	require.NoError(t, err)
	require.Equal(t, src, bak)
	onDisk, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(onDisk), "Второй абзац.")
	b := s.Books()[0]
	require.False(t, b.Dirty)
	require.Equal(t, 2, b.Edits)
	again2, err := s.Save(path, SaveOptions{})
	require.NoError(t, err)
	require.False(t, again2.Written, "nothing changed since the save")

	undone, err := s.Undo(path, 2)
	require.NoError(t, err)
	require.Len(t, undone, 2)
	require.Equal(t, document.OpInsertAfter, undone[0].Op, "newest first")
	cur, err := s.Source(path)
	require.NoError(t, err)
	require.Equal(t, src, cur)
	_, err = s.Undo(path, 1)
	require.ErrorIs(t, err, document.ErrNothingToUndo)
	_, err = s.Undo(path, 0)
	require.ErrorIs(t, err, document.ErrRange)
}

func TestUnknownBookAndIOErrors(t *testing.T) {
	s := New()
	_, err := s.Open(filepath.Join(t.TempDir(), "missing.md"))
	require.ErrorIs(t, err, ErrIO)
	_, err = s.Read("nope", "1", 0, 0)
	require.ErrorIs(t, err, ErrUnknownBook)
	s.Load("mem", []byte("# T\n\ntext\n"))
	_, err = s.Save("mem", SaveOptions{})
	require.ErrorIs(t, err, ErrIO)
	require.Contains(t, err.Error(), "give a path")
	p := filepath.Join(t.TempDir(), "mem.md")
	res, err := s.Save("mem", SaveOptions{Path: p})
	require.NoError(t, err)
	require.True(t, res.Written)
	require.NoError(t, s.Close("mem"))
	require.ErrorIs(t, s.Close("mem"), ErrUnknownBook)
}

func TestCursorsSearchAndIndexFollowEdits(t *testing.T) {
	path, _ := sampleBook(t)
	s := New()
	_, err := s.Open(path)
	require.NoError(t, err)
	spec := cursor.NewSpec(cursor.Keyword)
	spec.Keywords, spec.IncludeHeadings, spec.MaxElements = []string{"Звездочкин"}, false, 200
	info, err := s.CreateCursor(path, spec)
	require.NoError(t, err)
	p, err := s.Next(path, info.Name)
	require.NoError(t, err)
	before := len(p.Items)
	require.Greater(t, before, 5)

	// An edit that adds a mention must be seen by a new cursor (index updated).
	_, err = s.Edit(path, document.OpInsertAfter, "1.p1", "Здесь тоже упомянут Звёздочкину.")
	require.NoError(t, err)
	info2, err := s.CreateCursor(path, spec)
	require.NoError(t, err)
	p2, err := s.Next(path, info2.Name)
	require.NoError(t, err)
	require.Len(t, p2.Items, before+1)
	require.Equal(t, "1.p2", p2.Items[0].Pointer.Label)

	res, err := s.Search(path, "Звёздочкин Варя", Ranked, search.Options{Limit: 3})
	require.NoError(t, err)
	require.NotEmpty(t, res)
	c, err := s.CursorFromSearch(path, "часы на башне", Exact, search.Options{}, cursor.Spec{MaxElements: 2})
	require.NoError(t, err)
	require.Equal(t, cursor.Search, c.Type)
	sp, err := s.Next(path, c.Name)
	require.NoError(t, err)
	require.NotEmpty(t, sp.Items)
	_, err = s.Search(path, "x", "fuzzy", search.Options{})
	require.Error(t, err)

	rep, err := s.CreateTargets(path, "lines", []string{p2.Items[0].Pointer.String(), "bogus"})
	require.NoError(t, err)
	require.Equal(t, 1, rep.Count)
	tv, err := s.Targets(path, "lines")
	require.NoError(t, err)
	require.Len(t, tv.Items, 1)
	sets, err := s.TargetSets(path)
	require.NoError(t, err)
	require.Len(t, sets, 1)
	require.NoError(t, s.DeleteTargets(path, "lines"))
	cs, err := s.Cursors(path)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(cs), 4)
	require.NoError(t, s.ResetCursor(path, info.Name))
	require.NoError(t, s.DeleteCursor(path, info.Name))
	_, err = s.Next(path, info.Name)
	require.EqualError(t, err, "Cursor '"+info.Name+"' is not defined")
}

func TestSessionIsSafeForConcurrentUse(t *testing.T) {
	path, _ := sampleBook(t)
	s := New()
	_, err := s.Open(path)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				_, _ = s.Edit(path, document.OpInsertAfter, "1.p1", "Абзац "+strings.Repeat("я", g+1))
				_, _ = s.Search(path, "Звёздочкин", Ranked, search.Options{})
				_, _ = s.Read(path, "1.p1", 1, 1)
			}
		}(g)
	}
	wg.Wait()
	j, err := s.Journal(path)
	require.NoError(t, err)
	require.Len(t, j, 40)
}

func TestCommandJournalUndoAcrossRuns(t *testing.T) {
	path, src := sampleBook(t)
	s := New()
	_, err := s.Open(path)
	require.NoError(t, err)
	_, err = s.Edit(path, document.OpReplace, "1.p1", "Первая правка.")
	require.NoError(t, err)
	_, err = s.Save(path, SaveOptions{Backup: true, Record: "first command"})
	require.NoError(t, err)
	afterFirst, _ := os.ReadFile(path)
	_, err = s.Edit(path, document.OpInsertAfter, "1.p1", "Вторая правка.")
	require.NoError(t, err)
	_, err = s.Edit(path, document.OpDelete, "1.1.p2", "")
	require.NoError(t, err)
	_, err = s.Save(path, SaveOptions{Backup: true, Record: "second command"})
	require.NoError(t, err)

	// A later run undoes the commands one by one, byte for byte.
	c, err := UndoCommand(path, true, false)
	require.NoError(t, err)
	require.Equal(t, "second command", c.Label)
	require.Equal(t, 2, c.Edits)
	got, _ := os.ReadFile(path)
	require.Equal(t, afterFirst, got)
	_, err = UndoCommand(path, true, false)
	require.NoError(t, err)
	got, _ = os.ReadFile(path)
	require.Equal(t, src, got)
	_, err = UndoCommand(path, true, false)
	require.ErrorIs(t, err, ErrNoCommand)

	// A book changed by hand since the command is not touched.
	s2 := New()
	_, err = s2.Open(path)
	require.NoError(t, err)
	_, err = s2.Edit(path, document.OpReplace, "1.p1", "Третья.")
	require.NoError(t, err)
	_, err = s2.Save(path, SaveOptions{Record: "third"})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, append(got, []byte("\nhand edit\n")...), 0o644))
	_, err = UndoCommand(path, true, false)
	require.ErrorIs(t, err, ErrChanged)
}

// PreviewEdit reports what Edit would do and changes nothing; refusals and
// unknown books are errors as for Edit.
func TestPreviewEdit(t *testing.T) {
	path, src := sampleBook(t)
	s := New()
	_, err := s.Open(path)
	require.NoError(t, err)
	before, err := s.Resolve(path, "1.p1")
	require.NoError(t, err)
	res, err := s.PreviewEdit(path, document.OpReplace, "1.p1", "Новое вступление.")
	require.NoError(t, err)
	require.Equal(t, before.Markdown, res.MarkdownBefore)
	require.Equal(t, "Новое вступление.", res.MarkdownAfter)
	now, err := s.Source(path)
	require.NoError(t, err)
	require.Equal(t, src, now)
	require.False(t, s.Books()[0].Dirty)
	_, err = s.PreviewEdit(path, document.OpDelete, "1.1", "")
	require.ErrorIs(t, err, document.ErrHeading)
	_, err = s.PreviewEdit("nope", document.OpDelete, "1.1", "")
	require.ErrorIs(t, err, ErrUnknownBook)
}
