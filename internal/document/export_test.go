package document

// SetEncodeChunks makes every encoding use k chunks (at most one per
// item) until the returned function restores the default.
func SetEncodeChunks(k int) (restore func()) {
	prev := encodeChunks
	encodeChunks = func(int) int { return k }
	return func() { encodeChunks = prev }
}
