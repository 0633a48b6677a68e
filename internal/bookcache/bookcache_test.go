package bookcache

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/aitexteditor/aite/internal/search"
)

var (
	testSrc   = []byte("# Книга\n\nПервый абзац про Варю.\n\n- пункт\n")
	testState = []byte(`{"format":"aite-book-state"}`)
)

func testCache(t *testing.T) []byte {
	t.Helper()
	d := markdown.Parse(testSrc)
	doc, err := d.Encode()
	require.NoError(t, err)
	idx, err := search.Build(d).Encode()
	require.NoError(t, err)
	b := Book{Size: int64(len(testSrc)), Mtime: 42, Sum: Checksum(testSrc)}
	return bytes.Join(Encode(b, [][]byte{testSrc}, testState, Sections{{doc}, {idx[:5], idx[5:]}, {{0}}}), nil)
}

func TestEncodeDecode(t *testing.T) {
	data := testCache(t)
	c, err := Decode(data, testSrc, 42)
	require.NoError(t, err)
	require.True(t, c.StateMatches(testState))
	require.False(t, c.StateMatches(append([]byte(" "), testState...)))
	require.Equal(t, []byte{0}, c.Sections[SecParser])
	require.NotZero(t, c.Book.SHA)
}

// Every truncation, every flipped byte, another book of the same size or
// another modification time is refused with ErrStale.
func TestDecodeRefusesWhatDoesNotMatch(t *testing.T) {
	data := testCache(t)
	for n := range len(data) {
		_, err := Decode(data[:n], testSrc, 42)
		require.ErrorIs(t, err, ErrStale, "truncated to %d", n)
	}
	for i := range data {
		bad := append([]byte(nil), data...)
		bad[i] ^= 0x01
		_, err := Decode(bad, testSrc, 42)
		require.ErrorIs(t, err, ErrStale, "byte %d flipped", i)
	}
	other := append([]byte(nil), testSrc...)
	other[len(other)-3] = 'X'
	_, err := Decode(data, other, 42)
	require.ErrorIs(t, err, ErrStale)
	_, err = Decode(data, testSrc, 43)
	require.ErrorIs(t, err, ErrStale)
	_, err = Decode(append(data, 0), testSrc, 42)
	require.ErrorIs(t, err, ErrStale)
}

func TestOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "book.md")
	require.NoError(t, os.WriteFile(path, testSrc, 0o644))
	_, err := Open(path)
	require.ErrorIs(t, err, ErrStale, "no state, no cache")
	require.NoError(t, WriteFile(StatePath(path), testState))
	d := markdown.Parse(testSrc)
	doc, err := d.Encode()
	require.NoError(t, err)
	idx, err := search.Build(d).Encode()
	require.NoError(t, err)
	require.NoError(t, Write(path, [][]byte{testSrc[:7], testSrc[7:]}, [32]byte{}, testState, Sections{{doc}, {idx}, nil}))
	o, err := Open(path)
	require.NoError(t, err)
	require.Equal(t, d.At(1).Text, o.Doc.At(1).Text)
	require.Equal(t, []int{d.At(1).ID}, o.Index.ItemsMatching([]string{"Варя"}))

	// A cache without an index, completed by KeepIndex.
	require.NoError(t, Write(path, [][]byte{testSrc}, [32]byte{}, testState, Sections{{doc}, nil, nil}))
	o, err = Open(path)
	require.NoError(t, err)
	require.Nil(t, o.Index)
	require.NoError(t, o.KeepIndex(search.Build(o.Doc)))
	o, err = Open(path)
	require.NoError(t, err)
	require.Equal(t, []int{d.At(1).ID}, o.Index.ItemsMatching([]string{"Варя"}))

	require.NoError(t, WriteFile(StatePath(path), append(testState, ' ')))
	_, err = Open(path)
	require.ErrorIs(t, err, ErrStale, "the state changed")
	require.NoError(t, WriteFile(StatePath(path), testState))
	require.NoError(t, os.Remove(CachePath(path)))
	_, err = Open(path)
	require.True(t, errors.Is(err, ErrStale))
}

func TestWriteFileRefusesAReadOnlyFolder(t *testing.T) {
	dir := t.TempDir()
	book := filepath.Join(dir, "book.md")
	require.NoError(t, os.Chmod(dir, 0o555))
	t.Cleanup(func() { _ = os.Chmod(dir, 0o755) })
	require.Error(t, WriteFile(StatePath(book), testState))
	require.NoDirExists(t, StateDir(book))
}
