package editor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/codex"
	"github.com/aitexteditor/aite/internal/cursor"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/search"
)

func TestCodexIsStoredBesideTheBook(t *testing.T) {
	path, _ := sampleBook(t)
	s := New()
	_, err := s.Open(path)
	require.NoError(t, err)
	c, info, err := s.Codex(path)
	require.NoError(t, err)
	require.Equal(t, CodexNone, info.Source)
	require.Zero(t, c.Len())

	built, rep, err := s.BuildCodex(path)
	require.NoError(t, err)
	require.Equal(t, len(rep.Candidates), built.Len())
	info, err = s.SetCodex(path, built)
	require.NoError(t, err)
	require.Equal(t, CodexStored, info.Source)
	require.FileExists(t, CodexPath(path))

	s2, _ := reopen(t, path)
	c2, info2, err := s2.Codex(path)
	require.NoError(t, err)
	require.Equal(t, CodexStored, info2.Source)
	require.Equal(t, built, c2)

	bad := codex.Codex{Entries: []codex.Entry{{ID: "x"}}}
	_, err = s.SetCodex(path, &bad)
	require.ErrorIs(t, err, codex.ErrInvalid, "an invalid codex is refused")

	require.NoError(t, os.WriteFile(CodexPath(path), []byte(`{"format":"aite-codex","entries":[`), 0o644))
	s3, _ := reopen(t, path)
	c3, info3, err := s3.Codex(path)
	require.NoError(t, err)
	require.Equal(t, CodexNone, info3.Source)
	require.Zero(t, c3.Len())
	require.Contains(t, info3.Warning, "could not be read")
	aside, _ := filepath.Glob(CodexPath(path) + ".damaged-*")
	require.Len(t, aside, 1, "a damaged codex is set aside, not lost")
}

func TestCodexFromCards(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "novel.md")
	require.NoError(t, os.WriteFile(path, []byte("# Novel\n\nIlya came.\n\n## Glossary\n\n- Ratusha: the town hall\n\n## Characters\n\n- Ilya: an astronomer\n"), 0o644))
	s := New()
	_, err := s.Open(path)
	require.NoError(t, err)
	c, info, err := s.Codex(path)
	require.NoError(t, err)
	require.Equal(t, CodexAppendix, info.Source)
	require.Equal(t, 2, c.Len())

	require.NoError(t, os.WriteFile(CardsPath(path), []byte(`{"characters":{"Orlov":"astronomer"}}`), 0o644))
	s2, _ := reopen(t, path)
	c, info, err = s2.Codex(path)
	require.NoError(t, err)
	require.Equal(t, CodexCards, info.Source)
	require.Equal(t, []string{"Orlov", "Ratusha"}, []string{c.Entries[0].Name, c.Entries[1].Name}, "the sidecar's kinds win")

	require.NoError(t, os.WriteFile(CardsPath(path), []byte(`{"characters":`), 0o644))
	s3, _ := reopen(t, path)
	_, info, err = s3.Codex(path)
	require.NoError(t, err)
	require.Contains(t, info.Warning, "novel.cards.json")
	require.Equal(t, CodexAppendix, info.Source)
}

func TestFindEntryAndItsCursor(t *testing.T) {
	path, _ := sampleBook(t)
	s := New()
	_, err := s.Open(path)
	require.NoError(t, err)
	built, _, err := s.BuildCodex(path)
	require.NoError(t, err)
	_, err = s.SetCodex(path, built)
	require.NoError(t, err)

	hits, err := s.FindEntry(path, "Аркадий Львович", search.Options{})
	require.NoError(t, err)
	require.Equal(t, "Звёздочкин", hits.Entry.Name)
	var texts []string
	for _, r := range hits.Results {
		require.NotEqual(t, document.Heading, r.Kind, "headings only when asked")
		texts = append(texts, r.Snippet)
	}
	all := strings.Join(texts, "\n")
	require.Contains(t, all, "**ЗВЕЗДОЧКИНУ**", "the telegram, in capitals")
	require.Contains(t, all, "**Звёздочкин**, **Аркадий Львович**")
	require.Contains(t, all, "**Звездочкин**", "е for ё")
	require.Greater(t, len(hits.Results), 20)
	for i := 1; i < len(hits.Results); i++ {
		require.Less(t, hits.Results[i-1].Index, hits.Results[i].Index, "document order")
	}
	limited, err := s.FindEntry(path, "звездочкин", search.Options{Limit: 3, IncludeHeadings: true})
	require.NoError(t, err)
	require.Len(t, limited.Results, 3)
	require.True(t, limited.More)
	require.Equal(t, document.Heading, limited.Results[0].Kind)

	_, err = s.FindEntry(path, "Раскольников", search.Options{})
	require.ErrorIs(t, err, codex.ErrNotFound)

	// An edit that names the entry is found at once.
	res, err := s.Edit(path, document.OpInsertAfter, "2:1.p1", "Профессора звали Аркадием Львовичем.")
	require.NoError(t, err)
	again, err := s.FindEntry(path, "Звёздочкин", search.Options{Limit: 1})
	require.NoError(t, err)
	require.Equal(t, res.Pointer.ID, again.Results[0].ID)

	info, err := s.EntryCursor(path, "Варвара Синицына", cursor.Spec{MaxElements: 5, IncludeHeadings: false})
	if err == nil {
		t.Fatalf("an unknown name must fail, got cursor %v", info)
	}
	info, err = s.EntryCursor(path, "Варя", cursor.Spec{Name: "varya", MaxElements: 5})
	require.NoError(t, err)
	require.Contains(t, info.Spec.Description, "Синицына")
	p, err := s.Next(path, "varya")
	require.NoError(t, err)
	require.Len(t, p.Items, 5)
	require.True(t, p.HasMore)
}

func TestCodexContextKnowsFactsAsOfThePoint(t *testing.T) {
	path, _ := sampleBook(t)
	s := New()
	_, err := s.Open(path)
	require.NoError(t, err)
	c := &codex.Codex{}
	_, err = c.Add(codex.Entry{Name: "Звёздочкин", Aliases: []string{"Аркадий Львович"}, Description: "профессор",
		Notes: "private", Facts: []codex.Fact{
			{Text: "arrives by train", Evidence: []string{"9"}},
			{Text: "leaves on Monday", Evidence: []string{"106"}},
		}})
	require.NoError(t, err)
	_, err = c.Add(codex.Entry{Kind: codex.Style, Name: "dashes", Description: "Dialogue uses em dashes."})
	require.NoError(t, err)
	_, err = s.SetCodex(path, c)
	require.NoError(t, err)

	early, err := s.CodexContext(path, []int{9})
	require.NoError(t, err)
	require.Len(t, early, 1)
	require.Equal(t, []string{"arrives by train (9:1.1.p6)"}, early[0].Facts, "no spoilers of later chapters")
	late, err := s.CodexContext(path, []int{106, 9})
	require.NoError(t, err)
	require.Len(t, late[0].Facts, 2)
	none, err := s.CodexContext(path, []int{2, 9999})
	require.NoError(t, err)
	require.Empty(t, none, "the introduction names nobody")
}

func TestCodexUsesAndFindNames(t *testing.T) {
	path, _ := sampleBook(t)
	s := New()
	_, err := s.Open(path)
	require.NoError(t, err)
	built, _, err := s.BuildCodex(path)
	require.NoError(t, err)
	_, err = s.SetCodex(path, built)
	require.NoError(t, err)
	uses, err := s.CodexUses(path)
	require.NoError(t, err)
	zv := uses["звездочкин"]
	require.Equal(t, "1:1", zv.First, "the title names him first")
	require.Equal(t, 1, zv.Forms["ЗВЕЗДОЧКИНУ"])
	require.Greater(t, zv.Forms["Звёздочкин"], 10)
	hits, err := s.FindEntry(path, "Звёздочкин", search.Options{IncludeHeadings: true})
	require.NoError(t, err)
	require.Len(t, hits.Results, zv.Items, "the index path finds what the full scan finds")

	res, more, err := s.FindNames(path, []string{"Ерофей Ильич", "Ерофеич"}, search.Options{})
	require.NoError(t, err)
	require.False(t, more)
	require.Greater(t, len(res), 10)
	require.Contains(t, res[0].Snippet, "**Ерофеич**")
	_, _, err = s.FindNames(path, nil, search.Options{})
	require.ErrorIs(t, err, search.ErrEmptyQuery)
}
