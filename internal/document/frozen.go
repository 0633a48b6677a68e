package document

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
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
// extras. An item's text is encoded as pieces of its own Markdown
// (copies) and literal bytes, so a plain paragraph's text costs a few
// bytes.

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
// Offsets and counts must fit in 32 bits (a source under 4 GiB).
func (d *Document) Encode() ([]byte, error) {
	d.force()
	if len(d.src) >= math.MaxUint32 || d.nextID >= math.MaxUint32 {
		return nil, fmt.Errorf("document too large to encode (%d bytes)", len(d.src))
	}
	e := encoder{d: d, blob: []byte{0}} // offset 0 is never a reference
	maxID := 0
	for _, it := range d.items {
		maxID = max(maxID, it.ID)
	}
	n := len(d.items)
	recs := make([]byte, 0, n*recSize)
	for _, it := range d.items {
		recs = e.record(recs, it)
	}
	tops := make([]byte, 0, 8*len(d.tops))
	for _, t := range d.tops {
		tops = binary.LittleEndian.AppendUint32(tops, uint32(t.Start))
		tops = binary.LittleEndian.AppendUint32(tops, uint32(t.End))
	}
	idTable := make([]byte, 4*(maxID+1))
	for i, it := range d.items {
		binary.LittleEndian.PutUint32(idTable[4*it.ID:], uint32(i+1))
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return d.items[order[a]].Label < d.items[order[b]].Label })
	labels := make([]byte, 0, 4*n)
	for _, i := range order {
		labels = binary.LittleEndian.AppendUint32(labels, uint32(i))
	}
	out := make([]byte, 0, 4*headerWords+len(recs)+len(tops)+len(idTable)+len(labels)+len(e.blob))
	out = append(out, frozenMagic...)
	sections := [][]byte{recs, tops, idTable, labels, e.blob}
	off := 4 * headerWords
	for _, v := range []int{frozenVersion, n, len(d.tops), d.nextID, d.nextCont, len(d.src), maxID + 1} {
		out = binary.LittleEndian.AppendUint32(out, uint32(v))
	}
	for _, s := range sections[:len(sections)-1] {
		out = binary.LittleEndian.AppendUint32(out, uint32(off))
		off += len(s)
	}
	out = binary.LittleEndian.AppendUint32(out, uint32(off))
	out = binary.LittleEndian.AppendUint32(out, uint32(len(e.blob)))
	for _, s := range sections {
		out = append(out, s...)
	}
	return out, nil
}

// encoder builds the blob of an encoding.
type encoder struct {
	d    *Document
	blob []byte
}

func (e *encoder) record(recs []byte, it *Item) []byte {
	recs = binary.LittleEndian.AppendUint32(recs, uint32(it.ID))
	recs = binary.LittleEndian.AppendUint32(recs, uint32(it.Start))
	recs = binary.LittleEndian.AppendUint32(recs, uint32(it.End))
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
	for _, v := range []int{it.Top, it.QuoteDepth, int(flags)} {
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

// maxCopyReach bounds how far ahead in the Markdown the text encoder looks
// for the next piece of text, so encoding stays linear.
const maxCopyReach = 64

// appendTextOps encodes text as pieces of md (copies: length<<1, then the
// offset in md) and literal runs (length<<1|1, then the bytes), after the
// text's length. Any text encodes (a text that is not made of pieces of
// md is one literal); decodeText gives it back exactly.
func appendTextOps(b []byte, text string, md []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(text)))
	j := 0 // where in md the next piece is looked for
	lit := -1
	flush := func(i int) {
		if lit >= 0 {
			b = binary.AppendUvarint(b, uint64(i-lit)<<1|1)
			b = append(b, text[lit:i]...)
			lit = -1
		}
	}
	mds := unsafe.String(unsafe.SliceData(md), len(md))
	if k := strings.Index(mds, text); k >= 0 && len(text) > 0 { // the usual case: one piece
		b = binary.AppendUvarint(b, uint64(len(text))<<1)
		return binary.AppendUvarint(b, uint64(k))
	}
	for i := 0; i < len(text); {
		k := piece(text[i:], mds, j)
		if k < 0 {
			if lit < 0 {
				lit = i
			}
			i++
			continue
		}
		flush(i)
		n := 0
		for i+n < len(text) && k+n < len(md) && text[i+n] == md[k+n] {
			n++
		}
		b = binary.AppendUvarint(b, uint64(n)<<1)
		b = binary.AppendUvarint(b, uint64(k))
		i, j = i+n, k+n
	}
	flush(len(text))
	return b
}

// piece returns where in md, at or after j (and not far after), the text
// t continues with at least a few bytes in common, or -1.
func piece(t, md string, j int) int {
	need := min(len(t), 4)
	j = min(j, len(md))
	if k := strings.Index(md[j:min(len(md), j+maxCopyReach+need)], t[:need]); k >= 0 {
		return j + k
	}
	return -1
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
	if err := f.check(len(src)); err != nil {
		return nil, err
	}
	d := &Document{src: src, parser: p, nextID: int(w[4]), nextCont: int(w[5]), lazy: f}
	d.items = make([]*Item, f.n)
	return d, nil
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

func (f *frozen) kind(i int) (Kind, int) {
	r := f.recs[i*recSize:]
	return kindOfCode(r[12]), int(r[13])
}

func (f *frozen) labelRef(i int) int { return f.u32(f.recs[i*recSize+16:], 0) }
func (f *frozen) extraRef(i int) int { return f.u32(f.recs[i*recSize+20:], 0) }

// check validates what lazy reads rely on without decoding the extras:
// records (kinds, spans in the source, references in the blob), the ID
// table and the label order.
func (f *frozen) check(srcLen int) error {
	seen := 0
	for i := range f.n {
		id, start, end, kind, level := f.rec(i)
		switch {
		case kind == "":
			return corrupt("item %d has an unknown kind", i)
		case start > end || end > srcLen:
			return corrupt("item %d spans %d..%d of %d bytes", i, start, end, srcLen)
		case id <= 0 || id >= f.maxIDs || f.u32(f.idTable, id) != i+1:
			return corrupt("item %d has ID %d, which the ID table does not give it", i, id)
		case (kind == Heading) != (level >= 1 && level <= 6):
			return corrupt("item %d: level %d for a %s", i, level, kind)
		case f.labelRef(i) <= 0 || f.labelRef(i) >= len(f.blob) || f.extraRef(i) <= 0 || f.extraRef(i) >= len(f.blob):
			return corrupt("item %d refers outside the blob", i)
		}
		if _, ok := f.str(f.labelRef(i)); !ok {
			return corrupt("item %d: damaged label", i)
		}
	}
	for id := range f.maxIDs {
		if f.u32(f.idTable, id) != 0 {
			seen++
		}
	}
	if seen != f.n {
		return corrupt("the ID table names %d items, not %d", seen, f.n)
	}
	prev := ""
	for k := range f.n {
		i := f.u32(f.labels, k)
		if i >= f.n {
			return corrupt("label order names item %d of %d", i, f.n)
		}
		l, _ := f.str(f.labelRef(i))
		if k > 0 && l < prev {
			return corrupt("label order is not sorted at %d", k)
		}
		prev = l
	}
	for k := range len(f.tops) / 8 {
		if s, e := f.u32(f.tops, 2*k), f.u32(f.tops, 2*k+1); s > e || e > srcLen {
			return corrupt("top-level block %d spans %d..%d", k, s, e)
		}
	}
	return nil
}

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
	return f.u32(f.idTable, id) - 1
}

// byLabel returns the index of the item with a label, or -1.
func (f *frozen) byLabel(label string) int {
	k := sort.Search(f.n, func(k int) bool {
		l, _ := f.str(f.labelRef(f.u32(f.labels, k)))
		return l >= label
	})
	if k == f.n {
		return -1
	}
	i := f.u32(f.labels, k)
	if l, _ := f.str(f.labelRef(i)); l != label {
		return -1
	}
	return i
}

// item builds item i; src is the document's source.
func (f *frozen) item(i int, src []byte) *Item {
	id, start, end, kind, level := f.rec(i)
	label, _ := f.str(f.labelRef(i))
	it := &Item{ID: id, Label: label, Kind: kind, Level: level, Index: i, Start: start, End: end}
	r := reader{b: f.blob, off: f.extraRef(i)}
	it.Top, it.QuoteDepth = r.int(), r.int()
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
	return it
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
			out = append(out, r.bytes(size)...)
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
