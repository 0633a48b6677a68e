package markdown

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSpecExamplesRoundTripAndInvariants(t *testing.T) {
	ex := specExamples(t)
	require.Len(t, ex, 652)
	for _, e := range ex {
		src := []byte(e.Markdown)
		d := Parse(src)
		if !bytes.Equal(d.Source(), []byte(e.Markdown)) {
			t.Fatalf("example %d: round trip changed the bytes", e.Example)
		}
		if err := checkInvariants(d); err != nil {
			t.Errorf("example %d (%s): %v\n%q", e.Example, e.Section, err, e.Markdown)
		}
	}
}

func TestBooksRoundTripAndInvariants(t *testing.T) {
	for name, src := range books(t) {
		t.Run(name, func(t *testing.T) {
			d := Parse(src)
			require.Equal(t, src, d.Source())
			require.NoError(t, checkInvariants(d))
			require.Greater(t, d.Len(), 300)
			crlf := bytes.ReplaceAll(src, []byte("\n"), []byte("\r\n"))
			dc := Parse(crlf)
			require.Equal(t, crlf, dc.Source())
			require.NoError(t, checkInvariants(dc))
			require.Equal(t, d.Len(), dc.Len(), "CRLF must give the same items")
			for i, it := range d.Items() {
				require.Equal(t, it.Kind, dc.At(i).Kind)
				require.Equal(t, it.Label, dc.At(i).Label)
			}
		})
	}
}
