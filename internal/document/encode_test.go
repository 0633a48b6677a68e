package document_test

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/aitexteditor/aite/internal/testbook"
)

// An encoding made in parallel chunks is byte for byte the one made in
// one, for a freshly parsed book (whose texts refer to its source) and
// for an edited one (whose re-parsed texts are copies), and it decodes to
// the same items.
func TestEncodeInChunks(t *testing.T) {
	for name, src := range testbook.Books(t) {
		t.Run(name, func(t *testing.T) {
			d := markdown.Parse(src)
			check := func(d *document.Document) {
				t.Helper()
				restore := document.SetEncodeChunks(1)
				want, err := d.Encode()
				restore()
				require.NoError(t, err)
				for _, k := range []int{2, 3, 7, d.Len() + 5} {
					restore := document.SetEncodeChunks(k)
					got, err := d.Encode()
					restore()
					require.NoError(t, err)
					require.True(t, bytes.Equal(want, got), "%d chunks", k)
				}
				back, err := document.Decode(d.Source(), want, nil)
				require.NoError(t, err)
				for i, it := range d.Items() {
					got := back.At(i)
					require.Equal(t, it.Copy(), got.Copy(), "item %d", i)
				}
			}
			check(d)
			for i := 0; i < d.Len(); i += d.Len() / 7 {
				if d.At(i).Kind == document.Paragraph {
					_, err := d.ReplaceText(d.At(i).Pointer().String(), "An *edited* paragraph.")
					require.NoError(t, err)
				}
			}
			check(d)
		})
	}
}

// Encode refuses what Decode would refuse, before it allocates anything
// sized by it: an encoding whose sections before the strings, or whose
// strings, reach its 32-bit offsets (made small here to test it), or an
// ID table sized by an absurd ID (2^30 items' worth: 4 GiB). Lighten
// refused keeps the items and their IDs.
func TestEncodeRefusesWhatDecodeCannotRead(t *testing.T) {
	src := []byte("# Title\n\nOne paragraph.\n\nAnother *one*.\n\n- a list\n- of two\n")
	d := markdown.Parse(src)
	enc, err := d.Encode()
	require.NoError(t, err)
	word := func(i int) int { return int(binary.LittleEndian.Uint32(enc[4*i:])) }
	fixed, blob := word(12), word(13) // where the strings start, and their length
	require.Equal(t, len(enc), fixed+blob)

	for _, tt := range []struct {
		name   string
		limit  int
		refuse bool
	}{
		{"all offsets fit", fixed + 1, false},
		{"the strings start at the limit", fixed, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			restore := document.SetMaxOffset(tt.limit)
			defer restore()
			parts, err := d.EncodeParts()
			if !tt.refuse {
				require.NoError(t, err)
				require.Equal(t, enc, bytes.Join(parts, nil))
				return
			}
			require.ErrorContains(t, err, "too large to encode")
			require.Nil(t, parts)
		})
	}

	t.Run("strings beyond the limit", func(t *testing.T) {
		big := []byte("# T\n\n" + strings.Repeat("A *long* paragraph of words. ", 200) + "\n")
		d := markdown.Parse(big)
		enc, err := d.Encode()
		require.NoError(t, err)
		fixed, blob := int(binary.LittleEndian.Uint32(enc[48:])), int(binary.LittleEndian.Uint32(enc[52:]))
		require.Greater(t, blob, fixed, "the text is a copy, not a piece of the source")
		restore := document.SetMaxOffset(blob)
		defer restore()
		_, err = d.EncodeParts()
		require.ErrorContains(t, err, "too large to encode")
		ids, next := d.ItemIDs()
		light, err := d.Lighten() // lets go of the items, then must give them back
		require.ErrorContains(t, err, "too large to encode")
		gotIDs, gotNext := light.ItemIDs()
		require.Equal(t, ids, gotIDs)
		require.Equal(t, next, gotNext)
		require.Equal(t, big, light.Source())
	})

	t.Run("an ID table of 4 GiB", func(t *testing.T) {
		d := markdown.Parse(src)
		document.SetItemID(d, 1, 1<<30, 1<<30+1)
		parts, err := d.EncodeParts()
		require.ErrorContains(t, err, "too large to encode")
		require.Nil(t, parts)
	})
}
