package document

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"unsafe"
)

// A document can be written down as bytes (Encode) and brought back
// without parsing (Decode): the items, their IDs, labels, shapes, texts
// and containers, and the top-level spans. A decoded document is lazy: an
// item is built the first time it is asked for (At, ByID, Resolve, Read,
// Range), the outline and section bounds read the kinds straight from the
// encoded records, and everything else (Items, edits, RestoreIDs) builds
// every item first. So a command that reads a few items of a big book
// costs in proportion to those items, not to the book.
//
// Layout (little-endian u32 unless said): a header, then fixed records of
// recSize bytes per item (ID, start, end, kind, level, label and extra
// references), the top-level spans, a table from ID to item index, the
// item indices sorted by label, and a blob of strings and varint-encoded
// extras. An item's text is a reference to the piece of its Markdown it
// is (a plain paragraph's, a heading's) or else kept whole, so building
// an item copies nothing.

// ErrCorrupt is wrapped by the errors of Decode (and by the panic of a
// decoded document whose item records are damaged beyond what Decode
// checks; the caches that hold the bytes checksum them).
var ErrCorrupt = errors.New("damaged encoded document")

const (
	frozenMagic   = "adoc"
	frozenVersion = 1
	headerWords   = 14
	recSize       = 24
	noRef         = math.MaxUint32
)

// flags of an item's extra record.
const (
	flagTight        = 1 << 0
	flagPrefixInBlob = 1 << 1
)

// Encode writes the document's current items (not its journal) so that
// Decode can rebuild the document from the same source without parsing.
// Offsets and counts must fit in 32 bits (a source under 4 GiB, the
// sections before the blob and the blob each under 4 GiB: maxOffset),
// else it returns an error and no encoding.
func (d *Document) Encode() ([]byte, error) {
	parts, err := d.EncodeParts()
	return bytes.Join(parts, nil), err
}

// EncodeParts is Encode as the parts that, one after the other, make the
// encoding: what a writer needs, without a copy joining them.
func (d *Document) EncodeParts() ([][]byte, error) {
	if d.lazy != nil { // unchanged since decoded: its encoding
		return [][]byte{d.lazy.data}, nil
	}
	return d.encode(false)
}

// Lighten returns the document as Decode gives it back from its encoding:
// the same items, held in a fraction of their memory until they are asked
// for. It lets go of each item as soon as it is encoded, so the items and
// their encoding are never both held whole: d must not be used
// afterwards. A document too large to encode is returned as it is, with
// the error. Should the encoding fail once items are let go (its strings
// outgrow 32-bit offsets) or not decode, the document is the source parsed
// again with the IDs the encoded records hold, with the error. A document
// without a parser keeps its items: it is returned as it is on an error.
func (d *Document) Lighten() (*Document, error) {
	if d.lazy != nil {
		return d, nil
	}
	// Only a document that can be parsed again lets its items go.
	release := d.parser != nil
	parts, err := d.encode(release)
	if parts == nil {
		return d, err // refused before an item was let go
	}
	if err == nil {
		out, derr := Decode(d.text.Bytes(), bytes.Join(parts, nil), d.parser)
		if derr == nil {
			return out, nil
		}
		err = derr
	}
	if !release {
		return d, err
	}
	return d.reparse(parts[1]), err
}

// reparse is the document parsed again from its source, with the IDs of
// its records (an encoding's record section): what Lighten gives when
// the items it let go cannot be decoded, so the IDs are only read then.
// A parse that finds other items than the records keeps its own IDs.
func (d *Document) reparse(recs []byte) *Document {
	src := d.text.Bytes()
	out := New(src, d.parser.ParseWindow(src, 0, 0, len(src)), d.parser)
	ids := make([]int, len(recs)/recSize)
	for i := range ids {
		ids[i] = int(binary.LittleEndian.Uint32(recs[i*recSize:]))
	}
	_ = out.RestoreIDs(ids, d.nextID)
	return out
}

// encodeChunks is the number of chunks the n items of a document are
// encoded in, in parallel: one per processor, of at least 4096 items (a
// variable for the tests).
var encodeChunks = func(n int) int { return max(1, min(runtime.GOMAXPROCS(0), n/4096)) }

// encode is EncodeParts; release lets go of the items as they are encoded.
// An error after they are let go comes with the records (parts[1]), where
// their IDs are then kept; one before, with no parts.
//
// The items are encoded in chunks, in parallel on a big document: each
// chunk writes its records into its share of the record section and the
// strings they refer to into a blob of its own, and the references of a
// chunk's records are then moved by where its blob starts in the joined
// blob. The blobs are parts of the encoding, never joined in memory.
func (d *Document) encode(release bool) ([][]byte, error) {
	if d.text.Len() >= math.MaxUint32 || d.nextID >= math.MaxUint32 {
		return nil, fmt.Errorf("document too large to encode (%d bytes)", d.text.Len())
	}
	flat := d.flatItems()
	n, maxID := len(flat), 0
	for _, it := range flat {
		maxID = max(maxID, it.ID)
	}
	fixed := 4*headerWords + n*recSize + 8*d.tops.n + 4*(maxID+1) + 4*n // all but the blob
	if err := encodingFits(fixed, 0); err != nil {
		return nil, err // before anything is allocated or let go
	}
	items := slices.Clone(flat) // release lets go of them one by one
	if release {
		d.items, d.flat = chunked[*Item, itemHolder]{}, nil
	}
	names := make([]string, n) // the labels, for their order after the items are gone
	for i, it := range items {
		names[i] = it.Label
	}
	idTable := make([]byte, 4*(maxID+1))
	for i, it := range items {
		binary.LittleEndian.PutUint32(idTable[4*it.ID:], uint32(i+1))
	}
	if release {
		d.byID, d.labels = nil, nil
	}
	recs := make([]byte, n*recSize)
	chunks := max(1, min(n, encodeChunks(n)))
	blobs := make([][]byte, chunks)
	var wg sync.WaitGroup
	for c := range chunks {
		from, to := c*n/chunks, (c+1)*n/chunks
		wg.Go(func() {
			e := encoder{d: d}
			if c == 0 {
				e.blob = append(e.blob, 0) // offset 0 is never a reference
			}
			if !release { // else the items go as the blob grows: the two are never held whole together
				e.blob = slices.Grow(e.blob, d.blobBound(items[from:to]))
			}
			out := recs[from*recSize : from*recSize]
			for i := from; i < to; i++ {
				out = e.record(out, items[i])
				if release {
					items[i] = nil
				}
			}
			blobs[c] = e.blob
		})
	}
	wg.Wait()
	base := 0
	for c, b := range blobs {
		if base > 0 {
			for i := c * n / chunks; i < (c+1)*n/chunks; i++ {
				for _, at := range []int{i*recSize + 16, i*recSize + 20} {
					binary.LittleEndian.PutUint32(recs[at:], binary.LittleEndian.Uint32(recs[at:])+uint32(base))
				}
			}
		}
		base += len(b)
	}
	if err := encodingFits(fixed, base); err != nil {
		return [][]byte{nil, recs}, err
	}
	tops := make([]byte, 0, 8*d.tops.n)
	for _, t := range d.flatTopSpans() {
		tops = binary.LittleEndian.AppendUint32(tops, uint32(t.Start))
		tops = binary.LittleEndian.AppendUint32(tops, uint32(t.End))
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return names[order[a]] < names[order[b]] })
	labels := make([]byte, 0, 4*n)
	for _, i := range order {
		labels = binary.LittleEndian.AppendUint32(labels, uint32(i))
	}
	head := make([]byte, 0, 4*headerWords)
	head = append(head, frozenMagic...)
	sections := [][]byte{recs, tops, idTable, labels}
	off := 4 * headerWords
	for _, v := range []int{frozenVersion, n, d.tops.n, d.nextID, d.nextCont, d.text.Len(), maxID + 1} {
		head = binary.LittleEndian.AppendUint32(head, uint32(v))
	}
	for _, s := range sections {
		head = binary.LittleEndian.AppendUint32(head, uint32(off))
		off += len(s)
	}
	head = binary.LittleEndian.AppendUint32(head, uint32(off)) // the blob's
	head = binary.LittleEndian.AppendUint32(head, uint32(base))
	return append(append([][]byte{head}, sections...), blobs...), nil
}

// maxOffset bounds the offsets of an encoding: the header holds each
// section's offset, and the blob's length, as a 32-bit word, and the
// records refer to the blob's strings by 32-bit offsets. An encoding
// whose blob starts, or whose blob ends, at maxOffset or beyond is one
// Decode refuses (a variable for the tests).
var maxOffset = math.MaxUint32

// encodingFits returns an error when an encoding of fixed bytes before
// the blob (header, records, spans, ID table, label order) and a blob of
// blob bytes has an offset beyond maxOffset, so Encode refuses what
// Decode would: a table sized by an absurd ID, or a book of too many
// items or strings.
func encodingFits(fixed, blob int) error {
	if fixed >= maxOffset || blob >= maxOffset {
		return fmt.Errorf("document too large to encode (%d bytes of records and tables, %d of strings: over the encoding's 32-bit offsets)",
			fixed, blob)
	}
	return nil
}

// blobBound is the room the blob of items is given up front, so that it
// is allocated once: their strings (a text that is a piece of its
// Markdown costs a few bytes, any other its length) and room for their
// numbers that only a document of huge numbers outgrows (the blob then
// grows as it must).
func (d *Document) blobBound(items []*Item) int {
	n := 0
	for _, it := range items {
		n += 6*binary.MaxVarintLen32 + len(it.Label) + len(it.Shape.Prefix) + len(it.Shape.HeadMarker) + len(it.Shape.Underline) +
			len(it.Containers)*(1+binary.MaxVarintLen32)
		if _, ok := sharedPiece(d.MarkdownBytes(it), it.Text); !ok {
			n += len(it.Text) // or less, if a search finds it in md
		}
	}
	return n
}

// encoder builds the blob of an encoding.
type encoder struct {
	d    *Document
	blob []byte
}

func (e *encoder) record(recs []byte, it *Item) []byte {
	recs = binary.LittleEndian.AppendUint32(recs, uint32(it.ID))
	recs = binary.LittleEndian.AppendUint32(recs, uint32(it.Start()))
	recs = binary.LittleEndian.AppendUint32(recs, uint32(it.End()))
	recs = append(recs, kindCode(it.Kind), byte(it.Level), 0, 0)
	recs = binary.LittleEndian.AppendUint32(recs, e.str(it.Label))
	return binary.LittleEndian.AppendUint32(recs, e.extra(it))
}

// str appends a string (varint length, bytes) and returns its offset.
func (e *encoder) str(s string) uint32 {
	off := len(e.blob)
	e.blob = binary.AppendUvarint(e.blob, uint64(len(s)))
	e.blob = append(e.blob, s...)
	return uint32(off)
}

// extra appends what an item holds beyond its record and returns its
// offset: top, quote depth, flags, shape, containers and text.
func (e *encoder) extra(it *Item) uint32 {
	off := len(e.blob)
	md := e.d.MarkdownBytes(it)
	flags := uint64(0)
	if it.Shape.Tight {
		flags |= flagTight
	}
	inMD := bytes.HasPrefix(md, []byte(it.Shape.Prefix))
	if !inMD {
		flags |= flagPrefixInBlob
	}
	for _, v := range []int{it.Top(), it.QuoteDepth, int(flags)} {
		e.blob = binary.AppendUvarint(e.blob, uint64(v))
	}
	if inMD {
		e.blob = binary.AppendUvarint(e.blob, uint64(len(it.Shape.Prefix)))
	} else {
		e.str(it.Shape.Prefix)
	}
	e.str(it.Shape.HeadMarker)
	e.str(it.Shape.Underline)
	e.blob = binary.AppendUvarint(e.blob, uint64(len(it.Containers)))
	for _, c := range it.Containers {
		e.blob = append(e.blob, containerCode(c.Kind))
		e.blob = binary.AppendUvarint(e.blob, uint64(c.ID))
	}
	e.blob = appendTextOps(e.blob, it.Text, md)
	return uint32(off)
}

// pieceOf returns where text lies in md when it is a piece of it: found
// by its address when it refers to md's bytes (a text the parser shared
// with the source: no search), else by a search.
func pieceOf(md []byte, text string) (int, bool) {
	if k, ok := sharedPiece(md, text); ok || len(text) == 0 {
		return k, ok
	}
	k := strings.Index(unsafe.String(unsafe.SliceData(md), len(md)), text)
	return k, k >= 0
}

// sharedPiece returns where a non-empty text lies in md when it refers to
// md's bytes.
func sharedPiece(md []byte, text string) (int, bool) {
	if len(text) == 0 || len(text) > len(md) {
		return 0, false
	}
	t, m := uintptr(unsafe.Pointer(unsafe.StringData(text))), uintptr(unsafe.Pointer(unsafe.SliceData(md)))
	if t >= m && t-m <= uintptr(len(md)-len(text)) {
		return int(t - m), true
	}
	return 0, false
}

// appendTextOps encodes an item's text after its length: as one copy of
// a piece of its Markdown md (length<<1, then the offset in md) when the
// text is one (a plain paragraph, a heading's title), else as one literal
// (length<<1|1, then the bytes). Either way a decoded text refers to the
// source or to the encoding without copying (reader.text also reads texts
// made of several pieces).
func appendTextOps(b []byte, text string, md []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(text)))
	if len(text) == 0 {
		return b
	}
	if k, ok := pieceOf(md, text); ok {
		b = binary.AppendUvarint(b, uint64(len(text))<<1)
		return binary.AppendUvarint(b, uint64(k))
	}
	b = binary.AppendUvarint(b, uint64(len(text))<<1|1)
	return append(b, text...)
}

// frozen is the decoded view of an encoding that a lazy document reads
// its items from.
type frozen struct {
	data     []byte
	recs     []byte
	idTable  []byte
	labels   []byte
	blob     []byte
	tops     []byte
	n        int
	maxIDs   int
	nextCont int
}

// Decode rebuilds a document from Encode's bytes and the source it was
// encoded from (the caller checks that src is that source; Decode checks
// only that every span lies in it). The document refers to data and src
// without copying: neither may change afterwards. p re-parses regions for
// edits; with a nil p the document can be read but every edit is refused
// (ErrUnsupported). A damaged encoding gives an error wrapping ErrCorrupt.
func Decode(src, data []byte, p Parser) (*Document, error) {
	f, w, err := decodeHeader(data)
	if err != nil {
		return nil, err
	}
	if int(w[6]) != len(src) {
		return nil, corrupt("encoded for a source of %d bytes, not %d", w[6], len(src))
	}
	if err := f.check(); err != nil {
		return nil, err
	}
	return &Document{text: TextOf(src), parser: p, nextID: int(w[4]), nextCont: int(w[5]), lazy: f, built: map[int]*Item{}}, nil
}

// decodeHeader splits the encoding into its sections.
func decodeHeader(data []byte) (*frozen, []uint32, error) {
	if len(data) < 4*headerWords || string(data[:4]) != frozenMagic {
		return nil, nil, corrupt("not an encoded document")
	}
	w := make([]uint32, headerWords)
	for i := range w[1:] {
		w[i+1] = binary.LittleEndian.Uint32(data[4+4*i:])
	}
	if w[1] != frozenVersion {
		return nil, nil, corrupt("version %d, not %d", w[1], frozenVersion)
	}
	n, nTops, idLen := int(w[2]), int(w[3]), int(w[7])
	bounds := []int{int(w[8]), int(w[9]), int(w[10]), int(w[11]), int(w[12]), int(w[12]) + int(w[13])}
	sizes := []int{n * recSize, nTops * 8, idLen * 4, n * 4, int(w[13])}
	if bounds[0] != 4*headerWords || bounds[5] != len(data) {
		return nil, nil, corrupt("sections do not fill the encoding")
	}
	for i, size := range sizes {
		if bounds[i] < 0 || bounds[i+1]-bounds[i] != size {
			return nil, nil, corrupt("section %d holds %d bytes, not %d", i, bounds[i+1]-bounds[i], size)
		}
	}
	f := &frozen{data: data, recs: data[bounds[0]:bounds[1]], tops: data[bounds[1]:bounds[2]],
		idTable: data[bounds[2]:bounds[3]], labels: data[bounds[3]:bounds[4]], blob: data[bounds[4]:bounds[5]],
		n: n, maxIDs: idLen, nextCont: int(w[5])}
	if n > 0 && int(w[4]) <= 0 {
		return nil, nil, corrupt("next ID %d", w[4])
	}
	return f, w, nil
}

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

func (f *frozen) u32(b []byte, i int) int { return int(binary.LittleEndian.Uint32(b[4*i:])) }

// rec returns the fixed fields of item i.
func (f *frozen) rec(i int) (id, start, end int, kind Kind, level int) {
	r := f.recs[i*recSize:]
	return int(binary.LittleEndian.Uint32(r)), int(binary.LittleEndian.Uint32(r[4:])),
		int(binary.LittleEndian.Uint32(r[8:])), kindOfCode(r[12]), int(r[13])
}

func (f *frozen) labelRef(i int) int { return f.u32(f.recs[i*recSize+16:], 0) }
func (f *frozen) extraRef(i int) int { return f.u32(f.recs[i*recSize+20:], 0) }

// check validates, item by item without building any, what lazy reads
// trust: every kind and level, so the outline and sections are read from
// the records. Spans and references are checked where an item is built
// (a damaged one panics), the ID table and the label order only ever lead
// to an item whose own record agrees. The bytes are checksummed by what
// kept them, so all this guards against a crash, not a wrong answer.
func (f *frozen) check() error {
	heading := kindCode(Heading)
	for i := range f.n {
		r := f.recs[i*recSize : i*recSize+recSize]
		if c, level := r[12], r[13]; c == 0 || int(c) > len(Kinds) || (c == heading) != (level >= 1 && level <= 6) {
			return corrupt("item %d: kind %d, level %d", i, c, level)
		}
	}
	return nil
}

// kindOf returns the kind of item i (checked by check).
func (f *frozen) kindOf(i int) Kind { return kindOfCode(f.recs[i*recSize+12]) }

// heading reports whether item i is a heading, and its level.
func (f *frozen) heading(i int) (bool, int) {
	r := f.recs[i*recSize : i*recSize+recSize]
	return r[12] == headingCode, int(r[13])
}

var headingCode = kindCode(Heading)

// str reads the string at a blob offset, without copying: it refers to
// the encoding, which never changes.
func (f *frozen) str(off int) (string, bool) {
	n, k := binary.Uvarint(f.blob[off:])
	if k <= 0 || n > uint64(len(f.blob)-off-k) {
		return "", false
	}
	s := f.blob[off+k : off+k+int(n)]
	if len(s) == 0 {
		return "", true
	}
	return unsafe.String(&s[0], len(s)), true
}

// byID returns the index of the item with an ID, or -1.
func (f *frozen) byID(id int) int {
	if id <= 0 || id >= f.maxIDs {
		return -1
	}
	i := f.u32(f.idTable, id) - 1
	if i < 0 || i >= f.n {
		return -1
	}
	if got, _, _, _, _ := f.rec(i); got != id {
		return -1
	}
	return i
}

// byLabel returns the index of the item with a label, or -1.
func (f *frozen) byLabel(label string) int {
	k := sort.Search(f.n, func(k int) bool { return f.labelAt(k) >= label })
	if k == f.n || f.labelAt(k) != label {
		return -1
	}
	return f.u32(f.labels, k)
}

// labelAt returns the k-th label in label order ("" if damaged).
func (f *frozen) labelAt(k int) string {
	i := f.u32(f.labels, k)
	if i >= f.n {
		return ""
	}
	lr := f.labelRef(i)
	if lr <= 0 || lr >= len(f.blob) {
		return ""
	}
	l, _ := f.str(lr)
	return l
}

// item builds item i; src is the document's source.
func (f *frozen) item(i int, src []byte) *Item {
	it := new(Item)
	f.fill(it, i, src)
	return it
}

// fill builds item i in it.
func (f *frozen) fill(it *Item, i int, src []byte) {
	id, start, end, kind, level := f.rec(i)
	lr, er := f.labelRef(i), f.extraRef(i)
	if start > end || end > len(src) || lr <= 0 || lr >= len(f.blob) || er <= 0 || er >= len(f.blob) || id <= 0 {
		panic(corrupt("item %d: span %d..%d of %d bytes, references %d, %d", i, start, end, len(src), lr, er))
	}
	label, ok := f.str(lr)
	*it = Item{ID: id, Label: label, Kind: kind, Level: level, index: i, start: start, end: end}
	r := reader{b: f.blob, off: er}
	if !ok {
		r.fail()
	}
	it.top, it.QuoteDepth = r.int(), r.int()
	flags := r.int()
	it.Shape.Tight = flags&flagTight != 0
	md := src[start:end]
	if flags&flagPrefixInBlob != 0 {
		it.Shape.Prefix = r.str()
	} else if n := r.int(); n <= len(md) {
		it.Shape.Prefix = string(md[:n])
	} else {
		r.fail()
	}
	it.Shape.HeadMarker, it.Shape.Underline = r.str(), r.str()
	if n := r.int(); n > 0 && n <= len(f.blob) {
		it.Containers = make([]Container, n)
		for k := range it.Containers {
			c := Container{Kind: containerOfCode(r.byte()), ID: r.int()}
			if c.Kind == "" {
				r.fail()
			}
			it.Containers[k] = c
		}
	}
	it.Text = r.text(src, start, end)
	if r.err != nil {
		panic(fmt.Errorf("item %d: %w", i, r.err))
	}
}

// text returns the ID and the text of item i without building the item.
func (f *frozen) text(i int, src []byte) (int, string) {
	id, start, end, _, _ := f.rec(i)
	er := f.extraRef(i)
	if start > end || end > len(src) || er <= 0 || er >= len(f.blob) {
		panic(corrupt("item %d: span %d..%d of %d bytes, reference %d", i, start, end, len(src), er))
	}
	r := reader{b: f.blob, off: er}
	r.int()
	r.int()
	if r.int()&flagPrefixInBlob != 0 {
		r.str()
	} else {
		r.int()
	}
	r.str()
	r.str()
	for n := r.int(); n > 0 && r.err == nil; n-- {
		r.byte()
		r.int()
	}
	text := r.text(src, start, end)
	if r.err != nil {
		panic(fmt.Errorf("item %d: %w", i, r.err))
	}
	return id, text
}

// unshare copies the strings of an item that refer to the encoding, so
// that an ordinary document (force) does not keep the encoding alive: it
// is as big as a third of the book, and the source is all a document
// needs. A text that is a piece of the source keeps referring to it.
func (f *frozen) unshare(it *Item) {
	for _, s := range []*string{&it.Label, &it.Text, &it.Shape.Prefix, &it.Shape.HeadMarker, &it.Shape.Underline} {
		if f.owns(*s) {
			*s = strings.Clone(*s)
		}
	}
}

// owns reports whether s lies in the encoding.
func (f *frozen) owns(s string) bool {
	if len(s) == 0 || len(f.data) == 0 {
		return false
	}
	p, base := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.SliceData(f.data)))
	return p >= base && p < base+uintptr(len(f.data))
}

// reader decodes varint-encoded extras, remembering the first failure.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) fail() {
	if r.err == nil {
		r.err = corrupt("damaged item record at %d", r.off)
	}
	r.off = len(r.b)
}

func (r *reader) int() int {
	v, k := binary.Uvarint(r.b[min(r.off, len(r.b)):])
	if k <= 0 || v > math.MaxInt32 {
		r.fail()
		return 0
	}
	r.off += k
	return int(v)
}

func (r *reader) byte() byte {
	if r.off >= len(r.b) {
		r.fail()
		return 0
	}
	r.off++
	return r.b[r.off-1]
}

func (r *reader) bytes(n int) []byte {
	if n < 0 || n > len(r.b)-r.off {
		r.fail()
		return nil
	}
	r.off += n
	return r.b[r.off-n : r.off]
}

func (r *reader) str() string {
	b := r.bytes(r.int())
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// text decodes an item's text from its Markdown src[start:end]. A text
// that is one piece of the source is not copied.
func (r *reader) text(src []byte, start, end int) string {
	n := r.int()
	md := src[start:end]
	var out []byte
	for len(out) < n && r.err == nil {
		h := r.int()
		size := h >> 1
		if h&1 == 1 {
			b := r.bytes(size)
			if out == nil && size == n && len(b) == n {
				return unsafe.String(&b[0], n)
			}
			out = append(out, b...)
			continue
		}
		at := r.int()
		if at+size > len(md) || size == 0 {
			r.fail()
			break
		}
		if out == nil && size == n {
			return unsafe.String(&md[at], size)
		}
		out = append(out, md[at:at+size]...)
	}
	if len(out) != n {
		r.fail()
	}
	return string(out)
}

var kindCodes = func() map[Kind]byte {
	m := map[Kind]byte{}
	for i, k := range Kinds {
		m[k] = byte(i + 1)
	}
	return m
}()

func kindCode(k Kind) byte { return kindCodes[k] }

func kindOfCode(c byte) Kind {
	if c == 0 || int(c) > len(Kinds) {
		return ""
	}
	return Kinds[c-1]
}

var containerKinds = []ContainerKind{InList, InListItem, InQuote}

func containerCode(k ContainerKind) byte {
	for i, c := range containerKinds {
		if c == k {
			return byte(i)
		}
	}
	return 0xFF
}

func containerOfCode(c byte) ContainerKind {
	if int(c) < len(containerKinds) {
		return containerKinds[c]
	}
	return ""
}
