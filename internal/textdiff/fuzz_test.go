package textdiff

import "testing"

func FuzzUnified(f *testing.F) {
	for _, tc := range unifiedCases() {
		if len(tc.old)+len(tc.new) < 200 { // small seeds mutate and minimize fast
			f.Add([]byte(tc.old), []byte(tc.new))
		}
	}
	f.Add([]byte("a\nb\nc"), []byte("a\r\nb\nc\n"))
	f.Add([]byte("x\ny\nx\ny\n"), []byte("y\nx\ny\nx"))
	f.Add([]byte("1\n2\n3\n4\n5\n6\n7\n8\n9\n"), []byte("1\n2\nx\n4\n5\n6\n7\n8\ny\n"))
	f.Fuzz(func(t *testing.T, old, new []byte) {
		for _, ctx := range []int{0, 3} {
			checkDiff(t, old, new, Unified("a", "b", old, new, ctx))
		}
	})
}
