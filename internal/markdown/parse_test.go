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

func TestInvalidUTF8AndCRRoundTrip(t *testing.T) {
	for _, src := range []string{
		"# \xff\xfe Title\n\n\xc3\x28 broken \xe2\x82 text\n\n- item \xf0\x28\x8c\xbc\n",
		"# T\r\rlone CR\rlines\r",
		"\x00\x01 control bytes\n\n> quote \xff\n",
	} {
		d := Parse([]byte(src))
		require.Equal(t, src, string(d.Source()))
		require.NoError(t, checkInvariants(d))
		require.Greater(t, d.Len(), 0)
		for _, it := range d.Items() {
			_, err := d.ReplaceText(it.Pointer().String(), "Fixed text.")
			if err == nil {
				require.NoError(t, sameAsReparse(d))
				_, err = d.Undo()
				require.NoError(t, err)
				require.Equal(t, src, string(d.Source()))
			}
		}
	}
}
