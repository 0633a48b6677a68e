package search

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/aitexteditor/aite/internal/testbook"
)

// frozenQueries exercise every read path: plain stems, name forms (with
// impure terms: the lion `льва` beside `Льва`), capitals, phrases.
var frozenQueries = []string{"человек", "Симонов", "Симонову", "Лев", "Льва", "я злой человек", "Darcy Elizabeth",
	"the", "Collins", "Mrs. Bennet", "Аглая", "xyzzy", "universally acknowledged", "Звёздочкин", "часы башня"}

// decodedIndex encodes x and decodes it again over a decoded copy of its
// document, as a cache gives them back.
func decodedIndex(t testing.TB, x *Index) *Index {
	t.Helper()
	enc, err := x.Encode()
	require.NoError(t, err)
	denc, err := x.doc.Encode()
	require.NoError(t, err)
	d, err := document.Decode(x.doc.Source(), denc, x.doc.Parser())
	require.NoError(t, err)
	y, err := Decode(d, enc)
	require.NoError(t, err)
	return y
}

// sameAnswers checks that two indexes of equal documents answer every
// query alike.
func sameAnswers(t *testing.T, want, got *Index) {
	t.Helper()
	for _, q := range frozenQueries {
		require.Equal(t, want.ItemsMatching([]string{q}), got.ItemsMatching([]string{q}), q)
		wr, werr := want.Ranked(want.doc, q, Options{Limit: MaxLimit, IncludeHeadings: true})
		gr, gerr := got.Ranked(got.doc, q, Options{Limit: MaxLimit, IncludeHeadings: true})
		require.Equal(t, werr, gerr, q)
		require.Equal(t, wr, gr, q)
		we, werr := want.Exact(want.doc, q, Options{Limit: MaxLimit, IncludeHeadings: true})
		ge, gerr := got.Exact(got.doc, q, Options{Limit: MaxLimit, IncludeHeadings: true})
		require.Equal(t, werr, gerr, q)
		require.Equal(t, we, ge, q)
	}
}

func TestEncodeDecodeIndex(t *testing.T) {
	docs := map[string][]byte{"example": example(t), "empty": nil, "one": []byte("Один.\n")}
	for name, src := range testbook.Books(t) {
		docs[name] = src
	}
	for name, src := range docs {
		t.Run(name, func(t *testing.T) {
			d := markdown.Parse(src)
			x := Build(d)
			y := decodedIndex(t, x)
			sameAnswers(t, x, y)
			// Thawed, it is the index a build gives, and keeps up with edits.
			y.Update(y.doc)
			require.Nil(t, y.fz)
			requireSameAsReference(t, y.doc, y, false)
			if y.doc.Len() > 2 {
				it := y.doc.At(y.doc.Len() / 2)
				r, err := y.doc.ReplaceText(it.Pointer().String(), "Симонов и Льва, the universally acknowledged truth.")
				require.NoError(t, err)
				y.Update(y.doc, r.Pointer.ID)
				requireSameAsReference(t, y.doc, y, false)
			}
		})
	}
}

// An edited index encodes what it holds now.
func TestEncodeEditedIndex(t *testing.T) {
	d := markdown.Parse(example(t))
	x := Build(d)
	for i := 0; i < d.Len(); i += 7 {
		it := d.At(i)
		if it.Kind == document.Heading || it.Kind == document.FrontMatter {
			continue
		}
		r, err := d.ReplaceText(it.Pointer().String(), fmt.Sprintf("Правка %d: Симонов и часы.", i))
		require.NoError(t, err)
		x.Update(d, r.Pointer.ID)
	}
	sameAnswers(t, Build(d), decodedIndex(t, x))
}

// Decode refuses truncations and other documents; damage it cannot see
// may only panic with ErrCorrupt in a query.
func TestDecodeIndexDamaged(t *testing.T) {
	d := markdown.Parse(example(t))
	enc, err := Build(d).Encode()
	require.NoError(t, err)
	for n := 0; n < len(enc); n += 1 + n/64 {
		_, err := Decode(d, enc[:n])
		require.ErrorIs(t, err, ErrCorrupt, "truncated to %d", n)
	}
	for _, extra := range []int{1, 4, 8} {
		_, err := Decode(d, append(append([]byte(nil), enc...), make([]byte, extra)...))
		require.ErrorIs(t, err, ErrCorrupt, "%d bytes after the sections", extra)
	}
	_, err = Decode(markdown.Parse([]byte("Другая книга.\n")), enc)
	require.ErrorIs(t, err, ErrCorrupt)
	for i := 0; i < len(enc); i += 1 + len(enc)/400 {
		bad := append([]byte(nil), enc...)
		bad[i] ^= 0x41
		queryAll(t, d, bad)
	}
}

// queryAll decodes and runs every query; a damaged index may only panic
// with an error wrapping ErrCorrupt.
func queryAll(t testing.TB, d *document.Document, enc []byte) {
	defer func() {
		if r := recover(); r != nil {
			if err, ok := r.(error); !ok || !errors.Is(err, ErrCorrupt) {
				t.Fatalf("a damaged index panicked with %v", r)
			}
		}
	}()
	x, err := Decode(d, enc)
	if err != nil {
		return
	}
	for _, q := range frozenQueries {
		x.ItemsMatching([]string{q})
		_, _ = x.Ranked(d, q, Options{})
		_, _ = x.Exact(d, q, Options{})
	}
}

func FuzzDecodeIndex(f *testing.F) {
	d := markdown.Parse([]byte("# Глава\n\nСимонов и Льва, the truth.\n\n- Darcy\n"))
	enc, _ := Build(d).Encode()
	f.Add(enc)
	f.Fuzz(func(t *testing.T, enc []byte) { queryAll(t, d, enc) })
}

// Building on a decoded document, which does not build its items for it,
// gives the index of the parsed one.
func TestBuildOnADecodedDocument(t *testing.T) {
	for name, src := range testbook.Books(t) {
		t.Run(name, func(t *testing.T) {
			d := markdown.Parse(src)
			enc, err := d.Encode()
			require.NoError(t, err)
			lazy, err := document.Decode(src, enc, nil)
			require.NoError(t, err)
			x := Build(lazy)
			sameAnswers(t, Build(d), x)
			requireSameAsReference(t, lazy, x, true)
		})
	}
}

// A decoded index updated before its document's edits (as the editor
// does) thaws keeping the postings of the terms no edit touched in its
// encoding: it answers, and encodes, what a build of the edited book does.
// One updated only after its document changed cannot know the texts before
// and is built again.
func TestEditDecodedIndex(t *testing.T) {
	edit := func(d *document.Document, i int) int {
		r, err := d.ReplaceText(d.At(i).Pointer().String(), fmt.Sprintf("Правка %d: Симонов, Ерофеич и новые часы-ходики.", i))
		require.NoError(t, err)
		return r.Pointer.ID
	}
	late := decodedIndex(t, Build(markdown.Parse(example(t))))
	id := edit(late.doc, 5)
	late.Update(late.doc, id)
	requireSameAsReference(t, late.doc, late, true)
	sameAnswers(t, Build(late.doc), late)

	// Also with every postings list long (pending changes over lists
	// still in the encoding, merged now and then).
	defer func(l, m int) { longList, maxPending = l, m }(longList, maxPending)
	for _, pend := range []bool{false, true} {
		if pend {
			longList, maxPending = 2, 3
		}
		y := decodedIndex(t, Build(markdown.Parse(example(t))))
		d := y.doc // decoded too
		for i := 0; i < d.Len(); i += 5 {
			it := d.At(i)
			if it.Kind == document.Heading || it.Kind == document.FrontMatter {
				continue
			}
			y.Update(d) // before the edit
			y.Update(d, edit(d, i))
		}
		require.Nil(t, y.fz)
		require.NotNil(t, y.thawed, "thawed without its encoding")
		own := 0
		for _, o := range y.own {
			if o {
				own++
			}
		}
		require.Less(t, own, len(y.own)/2, "the edits decoded the postings of most terms")
		require.Equal(t, pend, len(y.pend) > 0, "pending changes")
		requireSameAsReference(t, d, y, false)
		sameAnswers(t, Build(d), y)
		sameAnswers(t, Build(d), decodedIndex(t, y))
	}
}
