package editor

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/aitexteditor/aite/internal/testbook"
)

// A big book is checked part by part as it is parsed (parseBook): it is
// refused exactly as CheckText refuses it, wherever the bad bytes are,
// also a character cut by a line ending where the parse cuts its parts;
// and a good one gets the item hashes and SHA-256 of the whole.
func TestParseBookChecksEveryPart(t *testing.T) {
	good := testbook.Sized(t, 1_500_000) // parsed in parts
	at := bytes.Index(good[len(good)/2:], []byte("\n\n# ")) + len(good)/2 + 2
	require.Greater(t, at, len(good)/2, "a heading after the middle")
	with := func(at int, b string) []byte {
		return append(append(append([]byte(nil), good[:at]...), b...), good[at:]...)
	}
	for name, src := range map[string][]byte{
		"good":                        good,
		"invalid in the middle":       with(len(good)/2, "\xff"),
		"invalid at the end":          append(append([]byte(nil), good...), "\xd0"...),
		"NUL at the start":            with(0, "\x00"),
		"cut character before a part": with(at-1, "\xd0"),
		"NUL in the last part":        with(len(good)-3, "\x00"),
		"Windows-1251 at a part":      with(at, "\xc7\xe0\xef\xe8\xf1\xea\xe8\n\n"),
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "book.md")
			require.NoError(t, os.WriteFile(path, src, 0o644))
			d, sha, hashes, err := parseBook(path, src)
			if want := CheckText(path, src); want != nil {
				require.ErrorIs(t, err, ErrEncoding)
				require.Equal(t, want.Error(), err.Error())
				_, err := New().Open(path)
				require.Equal(t, want.Error(), err.Error())
				return
			}
			require.NoError(t, err)
			require.Equal(t, digest(src), sha)
			whole := markdown.Parse(src)
			require.Equal(t, whole.ItemHashes(), hashes)
			require.Equal(t, whole.Len(), d.Len())
		})
	}
}
