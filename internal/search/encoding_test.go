package search

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/markdown"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files under testdata/")

// encodingCases are indexes whose postings are encoded every way
// EncodeParts has: all new (a build), all kept from the encoding an
// index was thawed from, and a mix (a thawed index some edits touched).
func encodingCases(t *testing.T) map[string]*Index {
	t.Helper()
	edit := func(d *document.Document, i int) int {
		r, err := d.ReplaceText(d.At(i).Pointer().String(), fmt.Sprintf("Правка %d: Симонов, Ерофеич и новые часы-ходики.", i))
		require.NoError(t, err)
		return r.Pointer.ID
	}
	built := Build(markdown.Parse(example(t)))
	kept := decodedIndex(t, built)
	kept.Update(kept.doc) // thawed, nothing changed
	require.Nil(t, kept.fz)
	mixed := decodedIndex(t, built)
	d := mixed.doc
	for i := 0; i < d.Len(); i += 5 {
		if k := d.At(i).Kind; k == document.Heading || k == document.FrontMatter {
			continue
		}
		mixed.Update(d)
		mixed.Update(d, edit(d, i))
	}
	return map[string]*Index{"built": built, "kept": kept, "mixed": mixed}
}

// The encoding of an index is, byte for byte, what it was when the golden
// file was written (testdata/encodings.golden holds its SHA-256 and size
// per case; -update rewrites it).
func TestEncodingUnchanged(t *testing.T) {
	cases := encodingCases(t)
	var b strings.Builder
	for _, name := range []string{"built", "kept", "mixed"} {
		enc, err := cases[name].Encode()
		require.NoError(t, err)
		fmt.Fprintf(&b, "%s %x %d\n", name, sha256.Sum256(enc), len(enc))
	}
	path := filepath.Join("testdata", "encodings.golden")
	if *updateGolden {
		require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(want), b.String())
}

// A term whose postings a change touched is encoded straight into the
// buffer of new bytes, not built apart and copied there: encoding a
// thawed index that owns every term's postings gives the bytes of the one
// that keeps them all encoded, and costs no allocation per term more.
func TestEncodeOwnedPostingsWithoutACopy(t *testing.T) {
	kept := encodingCases(t)["kept"]
	want, err := kept.Encode()
	require.NoError(t, err)
	keptAllocs := testing.AllocsPerRun(3, func() { _, _ = kept.EncodeParts() })

	owned := encodingCases(t)["kept"]
	terms := 0
	for term := range owned.own {
		if len(owned.ownPostings(termID(term))) > 0 {
			terms++
		}
	}
	require.Greater(t, terms, 1000)
	got, err := owned.Encode()
	require.NoError(t, err)
	require.True(t, bytes.Equal(want, got), "owned postings encode otherwise")
	ownedAllocs := testing.AllocsPerRun(3, func() { _, _ = owned.EncodeParts() })
	require.Less(t, ownedAllocs-keptAllocs, float64(terms)/10, "%d terms", terms)
}
