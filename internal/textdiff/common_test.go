package textdiff

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// naiveCommon is the byte-at-a-time definition CommonPrefix and
// CommonSuffix must agree with.
func naiveCommon[E comparable](a, b []E) (pre, suf int) {
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	return pre, suf
}

func TestCommonPrefixAndSuffix(t *testing.T) {
	big := bytes.Repeat([]byte("абв\n"), 3*chunk) // longer than a few blocks
	edit := func(at int, with string) []byte {
		return append(append(bytes.Clone(big[:at]), with...), big[at:]...)
	}
	for _, tc := range []struct{ a, b []byte }{
		{nil, nil},
		{[]byte("abc"), []byte("abc")},
		{[]byte("abc"), []byte("abXc")},
		{[]byte("aaa"), []byte("aaaa")}, // the prefix and the suffix never overlap
		{[]byte("x"), nil},
		{big, edit(chunk+5, "ins")},
		{big, edit(2*chunk, "")},
		{big, edit(0, "head")},
		{big, edit(len(big), "tail")},
		{big, big[chunk:]},
	} {
		pre := CommonPrefix(tc.a, tc.b)
		suf := CommonSuffix(tc.a[pre:], tc.b[pre:])
		wp, ws := naiveCommon(tc.a, tc.b)
		require.Equal(t, [2]int{wp, ws}, [2]int{pre, suf}, "%d/%d bytes", len(tc.a), len(tc.b))
	}
	ids := []int{1, 2, 3, 4, 5}
	pre := CommonPrefix(ids, []int{1, 2, 9, 4, 5})
	require.Equal(t, [2]int{2, 2}, [2]int{pre, CommonSuffix(ids[pre:], []int{1, 2, 9, 4, 5}[pre:])})
	r := []rune("один два три")
	require.Equal(t, 6, CommonPrefix(r, []rune("один дом"))) // "один д"
	require.Equal(t, 3, CommonSuffix(r, []rune("три")))
}
