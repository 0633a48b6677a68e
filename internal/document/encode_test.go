package document_test

import (
	"bytes"
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
