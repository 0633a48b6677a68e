package editor

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/codex"
	"github.com/aitexteditor/aite/internal/search"
)

// memData is a DataStore in memory that can fail.
type memData struct {
	mu   sync.Mutex
	m    map[string][]byte
	fail error
}

func (d *memData) LoadData(book, name string) ([]byte, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.m[book+"/"+name], d.fail
}

func (d *memData) SaveData(book, name string, data []byte) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.fail != nil {
		return d.fail
	}
	d.m[book+"/"+name] = append([]byte(nil), data...)
	return nil
}

func TestBooksInMemoryKeepTheirDataInTheStore(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "zvezdochkin.md"))
	require.NoError(t, err)
	data := &memData{m: map[string][]byte{}}
	s := New()
	s.Load("doc", src)
	s.SetDataStore(data) // also for a book loaded before
	c, _, err := s.BuildCodex("doc")
	require.NoError(t, err)
	info, err := s.SetCodex("doc", c)
	require.NoError(t, err)
	require.Equal(t, CodexStored, info.Source)
	require.NotEmpty(t, data.m["doc/codex.json"])

	s.SetEmbeddings(&Embeddings{Embedder: embedder(32), Model: "m"})
	_, err = s.IndexVectors(context.Background(), "doc", nil)
	require.NoError(t, err)
	require.NotEmpty(t, data.m["doc/vectors.bin"])
	require.NoError(t, s.SaveData("doc", "codex-build.json", []byte(`{}`)))

	// Another session (a restart of the server) reads them back.
	s2 := New()
	s2.SetDataStore(data)
	s2.Load("doc", src)
	c2, info2, err := s2.Codex("doc")
	require.NoError(t, err)
	require.Equal(t, CodexStored, info2.Source)
	require.Equal(t, c, c2)
	e := embedder(32)
	s2.SetEmbeddings(&Embeddings{Embedder: e, Model: "m"})
	vi, err := s2.VectorStatus("doc")
	require.NoError(t, err)
	require.Zero(t, vi.Missing, "the vectors came from the store")
	plan, err := s2.LoadData("doc", "codex-build.json")
	require.NoError(t, err)
	require.Equal(t, `{}`, string(plan))
	none, err := s2.LoadData("doc", "nothing")
	require.NoError(t, err)
	require.Nil(t, none)

	// A store that fails: a write is an I/O error, a read a warning.
	data.fail = errors.New("database is locked")
	_, err = s2.SetCodex("doc", &codex.Codex{})
	require.ErrorIs(t, err, ErrIO)
	s3 := New()
	s3.SetDataStore(data)
	s3.Load("doc", src)
	_, info3, err := s3.Codex("doc")
	require.NoError(t, err)
	require.Contains(t, info3.Warning, "database is locked")
	data.fail = nil

	// A damaged value is ignored (and replaced by the next write).
	data.m["doc/codex.json"] = []byte("{not json")
	s4 := New()
	s4.SetDataStore(data)
	s4.Load("doc", src)
	_, info4, err := s4.Codex("doc")
	require.NoError(t, err)
	require.Equal(t, CodexNone, info4.Source)
	require.Contains(t, info4.Warning, "could not be read")
	_, err = s4.SetCodex("doc", c)
	require.NoError(t, err)

	// Without a store, a book in memory keeps its data in the session only.
	s5 := New()
	s5.Load("doc", src)
	_, err = s5.SetCodex("doc", c)
	require.NoError(t, err)
	_, err = s5.FindEntry("doc", "Звёздочкин", search.Options{})
	require.NoError(t, err)
}
