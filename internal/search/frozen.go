package search

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"unsafe"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/textnorm"
)

// An index can be written down as bytes (Encode) and used again without
// analysing the book (Decode). A decoded index answers queries straight
// from the bytes: a stem is found by binary search among the sorted stems,
// a query word's forms among the sorted vocabulary, and only the postings
// of the terms a query needs are decoded. The first change (Update, or a
// query on a stale index) turns it into an ordinary index first (thaw).
//
// Layout: a header (magic, version, counts, the section lengths), then
// the sections, each padded to 4 bytes: the stems sorted (offsets and
// bytes; a term's ID is its position), each term's postings as varint
// deltas of item IDs and frequencies (offsets and bytes), the vocabulary
// sorted by folded form (folded words, surface words, their terms), the
// vocabulary indices of each term's words (offsets and indices), and each
// item's length by ID (length+1, 0 for an ID the index does not hold).

// ErrCorrupt is wrapped by the errors of Decode (and by the panic of a
// query that meets damaged bytes Decode does not check: the caches that
// hold them checksum them).
var ErrCorrupt = errors.New("damaged encoded index")

const (
	indexMagic   = "aidx"
	indexVersion = 1
)

// The sections of an encoded index, in order.
const (
	secStemOff = iota
	secStems
	secPostOff
	secPosts
	secFoldOff
	secFolds
	secWordOff
	secWords
	secVocabTerms
	secByTermOff
	secByTerm
	secDL
	nSections
)

// Encode writes the index down. The index must reflect its document as it
// is (it is brought up to date first).
func (x *Index) Encode() ([]byte, error) {
	parts, err := x.EncodeParts()
	return bytes.Join(parts, nil), err
}

// EncodeParts is Encode as the parts that, one after the other, make the
// encoding, without a copy joining them. A decoded index gives the bytes
// it was decoded from.
func (x *Index) EncodeParts() ([][]byte, error) {
	x.rlockFresh(x.doc)
	defer x.mu.RUnlock()
	if x.fz != nil {
		return [][]byte{x.fz.data}, nil
	}
	lx := &x.lex
	order := make([]termID, len(lx.stems)) // sorted position → term
	for i := range order {
		order[i] = termID(i)
	}
	slices.SortFunc(order, func(a, b termID) int { return strings.Compare(lx.stems[a], lx.stems[b]) })
	pos := make([]uint32, len(order)) // term → sorted position
	for p, t := range order {
		pos[t] = uint32(p)
	}
	var s [nSections][]byte
	s[secStemOff] = make([]byte, 0, 4*len(order)+4)
	s[secPostOff] = make([]byte, 0, 4*len(order)+4)
	var posts postParts // the postings section, in parts
	for _, t := range order {
		s[secStemOff] = binary.LittleEndian.AppendUint32(s[secStemOff], uint32(len(s[secStems])))
		s[secStems] = append(s[secStems], lx.stems[t]...)
		s[secPostOff] = binary.LittleEndian.AppendUint32(s[secPostOff], uint32(posts.size))
		if raw, ok := x.encodedPostings(t); ok {
			posts.keep(raw)
		} else {
			posts.write(x.postingsOf(t))
		}
	}
	s[secStemOff] = binary.LittleEndian.AppendUint32(s[secStemOff], uint32(len(s[secStems])))
	s[secPostOff] = binary.LittleEndian.AppendUint32(s[secPostOff], uint32(posts.size))
	v := lx.vocabulary()
	byTerm := make([][]uint32, len(order))
	for i := range v.len() {
		s[secFoldOff] = binary.LittleEndian.AppendUint32(s[secFoldOff], uint32(len(s[secFolds])))
		s[secFolds] = append(s[secFolds], v.folded(i)...)
		s[secWordOff] = binary.LittleEndian.AppendUint32(s[secWordOff], uint32(len(s[secWords])))
		s[secWords] = append(s[secWords], v.word(i)...)
		p := pos[v.term(i)]
		s[secVocabTerms] = binary.LittleEndian.AppendUint32(s[secVocabTerms], p)
		byTerm[p] = append(byTerm[p], uint32(i))
	}
	s[secFoldOff] = binary.LittleEndian.AppendUint32(s[secFoldOff], uint32(len(s[secFolds])))
	s[secWordOff] = binary.LittleEndian.AppendUint32(s[secWordOff], uint32(len(s[secWords])))
	for _, ws := range byTerm {
		s[secByTermOff] = binary.LittleEndian.AppendUint32(s[secByTermOff], uint32(len(s[secByTerm])/4))
		for _, w := range ws {
			s[secByTerm] = binary.LittleEndian.AppendUint32(s[secByTerm], w)
		}
	}
	s[secByTermOff] = binary.LittleEndian.AppendUint32(s[secByTermOff], uint32(len(s[secByTerm])/4))
	for id := range x.items {
		e := x.items[id]
		dl := uint32(0)
		if e.live {
			dl = uint32(e.dl) + 1
		}
		s[secDL] = binary.LittleEndian.AppendUint32(s[secDL], dl)
	}
	sections := make([][][]byte, nSections)
	for i := range s {
		sections[i] = [][]byte{s[i]}
	}
	sections[secPosts] = posts.parts
	return encodeSections(len(order), v.len(), x.nItems, x.total, sections)
}

// postParts gathers a section as parts: pieces of the encoding an index
// was thawed from are taken as they are (adjacent ones as one part), new
// postings are encoded into a buffer of their own.
type postParts struct {
	parts [][]byte
	size  int
	buf   []byte // the new bytes; parts refer to it
}

// keep appends b, a piece of an encoding, as it is (it must not change).
func (p *postParts) keep(b []byte) {
	if len(b) == 0 {
		return
	}
	p.size += len(b)
	if !p.extend(b) {
		p.parts = append(p.parts, b)
	}
}

// write appends the encoding of a term's postings (the gap from the
// previous item ID and the term frequency, as uvarints), written straight
// into the buffer: a new one when what is left of it may not hold them
// (append grows it, should a number outgrow 32 bits).
func (p *postParts) write(ps []posting) {
	if len(ps) == 0 {
		return
	}
	if need := len(ps) * 2 * binary.MaxVarintLen32; len(p.buf)+need > cap(p.buf) {
		p.buf = make([]byte, 0, max(1<<20, need))
	}
	start := len(p.buf)
	prev := int32(0)
	for _, q := range ps {
		p.buf = binary.AppendUvarint(p.buf, uint64(q.item-prev))
		p.buf = binary.AppendUvarint(p.buf, uint64(q.tf))
		prev = q.item
	}
	p.keep(p.buf[start:len(p.buf):cap(p.buf)])
}

// extend adds b to the last part when b follows it in memory.
func (p *postParts) extend(b []byte) bool {
	n := len(p.parts)
	if n == 0 {
		return false
	}
	last := p.parts[n-1]
	if cap(last) <= len(last) || unsafe.SliceData(last[len(last):cap(last)]) != unsafe.SliceData(b) {
		return false
	}
	p.parts[n-1] = last[:len(last)+len(b)]
	return true
}

// encodeSections returns the header and the sections, each given as parts
// and padded to 4 bytes, as the parts of an encoding.
func encodeSections(nTerms, nVocab, nItems int, total int64, s [][][]byte) ([][]byte, error) {
	size := 0
	lens := make([]int, len(s))
	for i, sec := range s {
		for _, b := range sec {
			lens[i] += len(b)
		}
		size += lens[i] + 3
	}
	if size >= math.MaxUint32 || total >= math.MaxUint32*math.MaxInt32 {
		return nil, fmt.Errorf("index too large to encode")
	}
	head := make([]byte, 0, 32+4*len(s))
	head = append(head, indexMagic...)
	for _, v := range []uint32{indexVersion, uint32(nTerms), uint32(nVocab), uint32(nItems)} {
		head = binary.LittleEndian.AppendUint32(head, v)
	}
	head = binary.LittleEndian.AppendUint64(head, uint64(total))
	for _, n := range lens {
		head = binary.LittleEndian.AppendUint32(head, uint32(n))
	}
	parts := [][]byte{head}
	for i, sec := range s {
		parts = append(parts, sec...)
		if pad := (4 - lens[i]%4) % 4; pad > 0 {
			parts = append(parts, make([]byte, pad))
		}
	}
	return parts, nil
}

// frozenIndex is the view of an encoded index that a decoded Index reads.
type frozenIndex struct {
	data   []byte
	s      [nSections][]byte
	nTerms int
	voc    *vocab
}

// Decode makes an index of d from Encode's bytes, without copying them
// (they must not change afterwards). The caller checks that the bytes were
// encoded from this version of d (the book caches check the book and the
// bytes); Decode checks the structure and that the index holds as many
// items as d. A damaged encoding gives an error wrapping ErrCorrupt.
func Decode(d *document.Document, data []byte) (*Index, error) {
	f, nItems, total, err := decodeIndex(data)
	if err != nil {
		return nil, err
	}
	if nItems != d.Len() {
		return nil, corruptf("the index holds %d items, the document %d", nItems, d.Len())
	}
	x := &Index{doc: d, version: d.Version(), fz: f, nItems: nItems, total: total}
	return x, nil
}

func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

// decodeIndex splits an encoded index into its sections and checks their
// sizes against each other.
func decodeIndex(data []byte) (*frozenIndex, int, int64, error) {
	const head = 4 + 4*4 + 8 + 4*nSections
	if len(data) < head || string(data[:4]) != indexMagic {
		return nil, 0, 0, corruptf("not an encoded index")
	}
	le := binary.LittleEndian
	if v := le.Uint32(data[4:]); v != indexVersion {
		return nil, 0, 0, corruptf("version %d, not %d", v, indexVersion)
	}
	nTerms, nVocab, nItems := int(le.Uint32(data[8:])), int(le.Uint32(data[12:])), int(le.Uint32(data[16:]))
	total := int64(le.Uint64(data[20:]))
	f := &frozenIndex{data: data, nTerms: nTerms}
	off := head
	for i := range nSections {
		n := int(le.Uint32(data[28+4*i:]))
		if n > len(data)-off {
			return nil, 0, 0, corruptf("section %d runs past the end", i)
		}
		f.s[i] = data[off : off+n]
		off += (n + 3) &^ 3
	}
	if off < len(data) { // every section is padded to 4 bytes, the last one too
		return nil, 0, 0, corruptf("%d bytes after the sections", len(data)-off)
	}
	want := map[int]int{secStemOff: 4 * (nTerms + 1), secPostOff: 4 * (nTerms + 1), secFoldOff: 4 * (nVocab + 1),
		secWordOff: 4 * (nVocab + 1), secVocabTerms: 4 * nVocab, secByTermOff: 4 * (nTerms + 1), secByTerm: 4 * nVocab}
	for sec, n := range want {
		if len(f.s[sec]) != n {
			return nil, 0, 0, corruptf("section %d holds %d bytes, not %d", sec, len(f.s[sec]), n)
		}
	}
	if len(f.s[secDL])%4 != 0 || total < 0 || nItems > len(f.s[secDL])/4 {
		return nil, 0, 0, corruptf("damaged item lengths")
	}
	f.voc = &vocab{n: nVocab, foldOff: f.s[secFoldOff], folds: f.s[secFolds], wordOff: f.s[secWordOff],
		words: f.s[secWords], terms: f.s[secVocabTerms], byTermOff: f.s[secByTermOff], byTerm: f.s[secByTerm]}
	return f, nItems, total, nil
}

// term returns the term of a stem: its position among the sorted stems.
func (f *frozenIndex) term(stem string) (termID, bool) {
	i := sort.Search(f.nTerms, func(i int) bool { return f.stem(termID(i)) >= stem })
	if i < f.nTerms && f.stem(termID(i)) == stem {
		return termID(i), true
	}
	return 0, false
}

func (f *frozenIndex) stem(t termID) string {
	if t < 0 || int(t) >= f.nTerms {
		return ""
	}
	return packedString(f.s[secStemOff], f.s[secStems], int(t))
}

func (f *frozenIndex) vocabulary() *vocab { return f.voc }

// postings decodes a term's postings.
func (f *frozenIndex) postings(t termID) []posting {
	off := f.s[secPostOff]
	if t < 0 || int(t) >= f.nTerms {
		panic(corruptf("no term %d", t))
	}
	s, e := binary.LittleEndian.Uint32(off[4*t:]), binary.LittleEndian.Uint32(off[4*t+4:])
	if s > e || int(e) > len(f.s[secPosts]) {
		panic(corruptf("damaged postings of term %d", t))
	}
	b := f.s[secPosts][s:e]
	out := make([]posting, 0, len(b)/2)
	prev := int64(0)
	for len(b) > 0 {
		delta, k := binary.Uvarint(b)
		if k <= 0 {
			panic(corruptf("damaged postings of term %d", t))
		}
		tf, k2 := binary.Uvarint(b[k:])
		if k2 <= 0 || prev+int64(delta) > math.MaxInt32 || tf > math.MaxInt32 {
			panic(corruptf("damaged postings of term %d", t))
		}
		prev += int64(delta)
		out = append(out, posting{item: int32(prev), tf: int32(tf)})
		b = b[k+k2:]
	}
	return out
}

// dl returns an item's length and whether the index holds the item.
func (f *frozenIndex) dl(id int32) (int32, bool) {
	b := f.s[secDL]
	if id <= 0 || int(id) >= len(b)/4 {
		return 0, false
	}
	v := binary.LittleEndian.Uint32(b[4*id:])
	return int32(v) - 1, v != 0
}

// packedString returns the i-th of the strings whose u32 offsets into
// bytes are off (n+1 offsets), without copying ("" when damaged).
func packedString(off, bytes []byte, i int) string {
	if i < 0 || 4*i+8 > len(off) {
		return ""
	}
	s, e := binary.LittleEndian.Uint32(off[4*i:]), binary.LittleEndian.Uint32(off[4*i+4:])
	if s >= e || int(e) > len(bytes) {
		return ""
	}
	return unsafe.String(&bytes[s], e-s)
}

// lexView is what queries read of a lexicon: an in-memory one or an
// encoded one.
type lexView interface {
	term(stem string) (termID, bool)
	stem(t termID) string
	vocabulary() *vocab
}

func (l *lexicon) stem(t termID) string { return l.stems[t] }

// lexv returns the index's lexicon for queries.
func (x *Index) lexv() lexView {
	if x.fz != nil {
		return x.fz
	}
	return &x.lex
}

// postingsOf returns a term's postings (decoded from an encoded index),
// with its pending changes (update.go).
func (x *Index) postingsOf(t termID) []posting {
	if x.fz != nil {
		return x.fz.postings(t)
	}
	if p := x.pend[t]; p != nil {
		return p.merged(x.basePostings(t))
	}
	return x.basePostings(t)
}

// basePostings returns a term's postings without its pending changes.
func (x *Index) basePostings(t termID) []posting {
	if x.inEncoding(t) {
		return x.thawed.postings(t)
	}
	return x.post[t]
}

// inEncoding reports whether a thawed index holds term t's postings only
// in the encoding it was thawed from (they were never decoded for a
// change; there may be pending changes to them).
func (x *Index) inEncoding(t termID) bool {
	return x.thawed != nil && int(t) < len(x.own) && !x.own[t]
}

// encodedPostings returns the encoding of a term's postings when a thawed
// index still holds them encoded and no change touched the term.
func (x *Index) encodedPostings(t termID) ([]byte, bool) {
	if !x.inEncoding(t) || x.pend[t] != nil {
		return nil, false
	}
	return x.thawed.rawPostings(t), true
}

// rawPostings returns the encoding of a term's postings.
func (f *frozenIndex) rawPostings(t termID) []byte {
	off := f.s[secPostOff]
	s, e := binary.LittleEndian.Uint32(off[4*t:]), binary.LittleEndian.Uint32(off[4*t+4:])
	if s > e || int(e) > len(f.s[secPosts]) {
		panic(corruptf("damaged postings of term %d", t))
	}
	return f.s[secPosts][s:e]
}

// ownPostings returns a term's postings for a change, decoding them from
// the encoding the index was thawed from the first time. The caller holds
// the write lock.
func (x *Index) ownPostings(t termID) []posting {
	if x.inEncoding(t) {
		x.post[t], x.own[t] = x.thawed.postings(t), true
	}
	return x.post[t]
}

// dlOf returns the length of an item the index holds.
func (x *Index) dlOf(id int32) int32 {
	if x.fz != nil {
		dl, _ := x.fz.dl(id)
		return dl
	}
	return x.items[id].dl
}

// textOf returns the indexed text of an item the index holds.
func (x *Index) textOf(id int32) string {
	if x.fz != nil {
		if it := x.doc.ByID(int(id)); it != nil {
			return it.Text
		}
		return ""
	}
	return x.items[id].text
}

// thaw turns a decoded index into an ordinary one, so that it can change;
// the postings stay encoded until a change needs them (ownPostings), in a
// copy of their sections: nothing of the thawed index refers to the bytes
// it was decoded from (a book's cache, which holds the document's encoding
// too), so those can go. The document's items are built for it, as the
// change to come builds them anyway. The caller holds the write lock.
func (x *Index) thaw() {
	f := x.fz
	if f == nil {
		return
	}
	lex := newLexicon()
	lex.stems = make([]string, f.nTerms)
	lex.counts = make([]int32, f.nTerms)
	posts := &frozenIndex{nTerms: f.nTerms}
	posts.s[secPostOff], posts.s[secPosts] = bytes.Clone(f.s[secPostOff]), bytes.Clone(f.s[secPosts])
	x.post, x.thawed, x.own, x.pend = make([][]posting, f.nTerms), posts, make([]bool, f.nTerms), map[termID]*pending{}
	for t := range f.nTerms {
		stem := strings.Clone(f.stem(termID(t)))
		lex.stems[t] = stem
		lex.terms[stem] = termID(t)
	}
	v := f.voc
	for i := range v.len() {
		lex.words[strings.Clone(v.word(i))] = v.term(i)
	}
	x.lex = lex
	n := len(f.s[secDL]) / 4
	x.items = make([]entry, n)
	for _, it := range x.doc.Items() {
		if dl, ok := f.dl(int32(it.ID)); ok {
			x.items[it.ID] = entry{text: it.Text, dl: dl, live: true}
		}
	}
	x.fz = nil
}

// matchText reports whether an item's text holds a word that is a form of t.
func (x *Index) matchText(t textnorm.Term, id int32) bool { return t.MatchText(x.textOf(id)) }
