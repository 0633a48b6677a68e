package markdown

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/document"
)

// decoded encodes d and decodes it again with a parser restored from d's.
func decoded(t testing.TB, d *document.Document) *document.Document {
	t.Helper()
	enc, err := d.Encode()
	require.NoError(t, err)
	state, err := d.Parser().(*Parser).MarshalBinary()
	require.NoError(t, err)
	p := &Parser{}
	require.NoError(t, p.UnmarshalBinary(state))
	out, err := document.Decode(d.Source(), enc, p)
	require.NoError(t, err)
	return out
}

// sameDocument compares what a reader of the two documents can see: first
// through the lazy read paths of got, then every item.
func sameDocument(t testing.TB, want, got *document.Document) {
	t.Helper()
	require.Equal(t, want.Len(), got.Len())
	wantOutline, wantPre := want.Outline()
	gotOutline, gotPre := got.Outline()
	require.Equal(t, wantPre, gotPre)
	require.Equal(t, fmt.Sprint(outlineRows(wantOutline)), fmt.Sprint(outlineRows(gotOutline)))
	for i := 0; i < want.Len(); i += 1 + want.Len()/50 {
		require.Equal(t, want.SectionEnd(i), got.SectionEnd(i), "section end of %d", i)
		w := want.At(i)
		for _, ptr := range []string{w.Pointer().String(), w.Label, strconv.Itoa(w.ID)} {
			wi, werr := want.Resolve(ptr)
			gi, gerr := got.Resolve(ptr)
			require.Equal(t, werr == nil, gerr == nil, ptr)
			if werr == nil {
				require.Equal(t, wi.ID, gi.ID, ptr)
			}
		}
	}
	wids, wnext := want.ItemIDs()
	gids, gnext := got.ItemIDs()
	require.Equal(t, wids, gids)
	require.Equal(t, wnext, gnext)
	require.Equal(t, want.ItemHashes(), got.ItemHashes())
	for i, w := range want.Items() {
		require.True(t, reflect.DeepEqual(w.Copy(), got.At(i).Copy()), "item %d: %+v\n%+v", i, w.Copy(), got.At(i).Copy())
	}
	require.Equal(t, want.Tops(), got.Tops())
}

func outlineRows(secs []*document.Section) []string {
	var out []string
	for _, s := range secs {
		out = append(out, fmt.Sprintf("%s %d %d", s.Heading.Pointer(), s.Items, s.Total))
		out = append(out, outlineRows(s.Children)...)
	}
	return out
}

func TestEncodeDecodeSpecExamples(t *testing.T) {
	for _, e := range specExamples(t) {
		src := []byte(e.Markdown)
		sameDocument(t, Parse(src), decoded(t, Parse(src)))
	}
}

func TestEncodeDecodeBooks(t *testing.T) {
	for name, src := range books(t) {
		t.Run(name, func(t *testing.T) {
			sameDocument(t, Parse(src), decoded(t, Parse(src)))
		})
	}
}

// A lightened document (its items let go as they are encoded) is the
// document the parse gave, with the IDs it had; so is a lightened edited
// one; the one it was made from holds no items any more.
func TestLighten(t *testing.T) {
	for name, src := range books(t) {
		t.Run(name, func(t *testing.T) {
			d := Parse(src)
			ids, next := d.ItemIDs()
			for i := range ids {
				ids[i] = 3*i + 7 // not 1..N: the IDs survive
			}
			require.NoError(t, d.RestoreIDs(ids, 3*len(ids)+next))
			want := decoded(t, d)
			got, err := d.Lighten()
			require.NoError(t, err)
			sameDocument(t, want, got)
			require.Nil(t, d.At(0), "the items were let go")
		})
	}
	d := Parse([]byte(editBook))
	_, err := d.ReplaceText(d.At(3).Pointer().String(), "An edited paragraph.")
	require.NoError(t, err)
	want := decoded(t, d)
	got, err := d.Lighten()
	require.NoError(t, err)
	sameDocument(t, want, got)
}

// Should a lightened document's encoding not decode (here a heading made
// level 7 after the parse, which Decode refuses), Lighten gives the source
// parsed again with the IDs the items had, and says why.
func TestLightenFallsBackToAParse(t *testing.T) {
	src := []byte(editBook)
	want := Parse(src)
	ids, next := want.ItemIDs()
	for i := range ids {
		ids[i] = 3*i + 7
	}
	next += 3 * len(ids)
	require.NoError(t, want.RestoreIDs(ids, next))
	d := Parse(src)
	require.NoError(t, d.RestoreIDs(ids, next))
	damaged := false
	for _, it := range d.Items() {
		if it.Kind == document.Heading && !damaged {
			it.Level, damaged = 7, true
		}
	}
	require.True(t, damaged)
	got, err := d.Lighten()
	require.ErrorIs(t, err, document.ErrCorrupt)
	require.NotNil(t, got)
	sameDocument(t, want, got)
	require.Nil(t, d.At(0), "the items were let go")
}

// A decoded document edits exactly like the parsed one, and an edited
// document encodes its current items and IDs.
func TestEncodeDecodeEdits(t *testing.T) {
	src := []byte(editBook)
	want, got := Parse(src), decoded(t, Parse(src))
	r := rand.New(rand.NewPCG(1, 2))
	for step := range 200 {
		it := want.At(r.IntN(want.Len()))
		ptr := it.Pointer().String()
		text := fmt.Sprintf("Edit %d.", step)
		var werr, gerr error
		switch step % 4 {
		case 0:
			_, werr = want.ReplaceText(ptr, text)
			_, gerr = got.ReplaceText(ptr, text)
		case 1:
			_, werr = want.InsertAfter(ptr, text)
			_, gerr = got.InsertAfter(ptr, text)
		case 2:
			_, werr = want.Delete(ptr)
			_, gerr = got.Delete(ptr)
		case 3:
			_, werr = want.Undo()
			_, gerr = got.Undo()
		}
		require.Equal(t, fmt.Sprint(werr), fmt.Sprint(gerr), "step %d", step)
		require.Equal(t, string(want.Source()), string(got.Source()), "step %d", step)
		if step%20 == 0 {
			sameDocument(t, want, decoded(t, want))
		}
	}
	sameDocument(t, want, got)
}

const editBook = `---
title: x
---
Preamble.

# Title

Intro *with* emphasis and a [link][ref] &amp; an entity.

## Chapter

- one
- two
  - nested a
  - nested b

> Quoted one
> more

Setext
------

` + "```go\ncode\n```" + `

| A | B |
|---|---|
| 1 | 2 |

Text with a footnote[^1].

[^1]: The note.

[ref]: https://example.com "Title"
`

func TestDecodeReadOnly(t *testing.T) {
	d := Parse([]byte(editBook))
	enc, err := d.Encode()
	require.NoError(t, err)
	ro, err := document.Decode(d.Source(), enc, nil)
	require.NoError(t, err)
	_, err = ro.ReplaceText(ro.At(1).Pointer().String(), "x")
	require.ErrorIs(t, err, document.ErrUnsupported)
	require.Equal(t, d.At(1).Text, ro.At(1).Text)
}

// Decode refuses every truncation and a wrong source length, and any
// damage either is refused or, at worst, shows when an item is built: it
// never crashes otherwise.
func TestDecodeDamaged(t *testing.T) {
	d := Parse([]byte(editBook))
	enc, err := d.Encode()
	require.NoError(t, err)
	for n := range len(enc) {
		_, err := document.Decode(d.Source(), enc[:n], nil)
		require.ErrorIs(t, err, document.ErrCorrupt, "truncated to %d", n)
	}
	_, err = document.Decode(d.Source()[1:], enc, nil)
	require.ErrorIs(t, err, document.ErrCorrupt)
	for i := range enc {
		for _, bit := range []byte{1, 0x80} {
			bad := append([]byte(nil), enc...)
			bad[i] ^= bit
			readAll(t, d.Source(), bad)
		}
	}
}

// readAll decodes and reads every item; a damaged item may only panic with
// an error wrapping ErrCorrupt.
func readAll(t testing.TB, src, enc []byte) {
	defer func() {
		if r := recover(); r != nil {
			if err, ok := r.(error); !ok || !errors.Is(err, document.ErrCorrupt) {
				t.Fatalf("decoding a damaged encoding panicked with %v", r)
			}
		}
	}()
	d, err := document.Decode(src, enc, nil)
	if err != nil {
		return
	}
	d.Outline()
	for i := range d.Len() {
		d.At(i)
	}
	d.Items()
	d.Tops()
}

func FuzzDecode(f *testing.F) {
	d := Parse([]byte(editBook))
	enc, _ := d.Encode()
	f.Add(d.Source(), enc)
	f.Fuzz(func(t *testing.T, src, enc []byte) {
		readAll(t, src, enc)
	})
}
