package textdiff

import "bytes"

// chunk is the block size for the fast common prefix and suffix scans of
// bytes.
const chunk = 4096

// CommonPrefix returns the length of the longest common prefix of a and b.
// With CommonSuffix it finds the one splice that turns a text (or a list
// of item ids, or of runes) into another: after pre := CommonPrefix(a, b)
// and suf := CommonSuffix(a[pre:], b[pre:]), a[pre:len(a)-suf] is replaced
// by b[pre:len(b)-suf]. Byte slices are compared a block at a time.
func CommonPrefix[E comparable](a, b []E) int {
	n := min(len(a), len(b))
	i := 0
	if ab, ok := any(a).([]byte); ok {
		bb := any(b).([]byte)
		for i+chunk <= n && bytes.Equal(ab[i:i+chunk], bb[i:i+chunk]) {
			i += chunk
		}
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// CommonSuffix returns the length of the longest common suffix of a and b.
func CommonSuffix[E comparable](a, b []E) int {
	n := min(len(a), len(b))
	k := 0
	if ab, ok := any(a).([]byte); ok {
		bb := any(b).([]byte)
		for k+chunk <= n && bytes.Equal(ab[len(ab)-k-chunk:len(ab)-k], bb[len(bb)-k-chunk:len(bb)-k]) {
			k += chunk
		}
	}
	for k < n && a[len(a)-1-k] == b[len(b)-1-k] {
		k++
	}
	return k
}
