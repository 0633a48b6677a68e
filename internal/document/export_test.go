package document

// SetEncodeChunks makes every encoding use k chunks (at most one per
// item) until the returned function restores the default.
func SetEncodeChunks(k int) (restore func()) {
	prev := encodeChunks
	encodeChunks = func(int) int { return k }
	return func() { encodeChunks = prev }
}

// SetChunkSize makes documents built from now on (and edits) hold n items
// or spans a chunk until the returned function restores the default.
func SetChunkSize(n int) (restore func()) {
	prev := chunkSize
	chunkSize = n
	return func() { chunkSize = prev }
}

// ChunkSizes returns the lengths of a document's item and span chunks.
func ChunkSizes(d *Document) (items, tops []int) {
	for _, c := range d.items.chunks {
		items = append(items, len(c.elems))
	}
	for _, c := range d.tops.chunks {
		tops = append(tops, len(c.elems))
	}
	return items, tops
}

// SetMaxOffset makes encodings refuse offsets of n or more until the
// returned function restores the 32-bit bound.
func SetMaxOffset(n int) (restore func()) {
	prev := maxOffset
	maxOffset = n
	return func() { maxOffset = prev }
}

// SetItemID gives item i the ID id and the document the next ID next as
// they are, unchecked (what RestoreIDs refuses): a document as a damaged
// record could once make one.
func SetItemID(d *Document, i, id, next int) {
	d.force()
	d.at(i).ID, d.nextID = id, next
}
