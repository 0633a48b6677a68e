package cursor

import (
	"errors"
	"strings"
	"testing"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/stretchr/testify/require"
)

const sample = `# Звёздочкин и часы

Вступление без имён.

## Глава 1

Профессор Звездочкин приехал.

- Варя встретила Звёздочкина.
- Ерофеич молчал.

> Письмо Звездочкину от мастера.

Звёздочкин и Варя поднялись на башню.

## Глава 2

Часы пошли назад, сказал Ерофеич.

` + "```text\nЗВЁЗДОЧКИНУ ТЕЛЕГРАММА\n```" + `

Конец главы про часы.
`

func walk(t *testing.T, r *Registry, d *document.Document, name string) []string {
	t.Helper()
	var got []string
	for i := 0; i < 1000; i++ {
		p, err := r.Next(d, nil, name)
		require.NoError(t, err)
		for _, it := range p.Items {
			got = append(got, it.Pointer.String())
		}
		if !p.HasMore {
			_, err := r.Next(d, nil, name)
			require.ErrorIs(t, err, ErrComplete)
			return got
		}
	}
	t.Fatal("cursor never completed")
	return nil
}

func textsOf(d *document.Document, ptrs []string) []string {
	out := make([]string, len(ptrs))
	for i, p := range ptrs {
		it, _ := d.Resolve(p)
		out[i] = it.Text
	}
	return out
}

func TestCursorFilters(t *testing.T) {
	d := markdown.Parse([]byte(sample))
	name := func(s Spec) Spec { s.MaxElements = 2; return s }
	kw := func(words ...string) Spec { s := NewSpec(Keyword); s.Keywords = words; return name(s) }
	tests := []struct {
		name string
		spec Spec
		want []string // item texts in order
	}{
		{"inflected name, headings included", kw("Звёздочкин"), []string{"Звёздочкин и часы", "Профессор Звездочкин приехал.",
			"Варя встретила Звёздочкина.", "Письмо Звездочкину от мастера.", "Звёздочкин и Варя поднялись на башню.", "ЗВЁЗДОЧКИНУ ТЕЛЕГРАММА"}},
		{"е spelling of the query", kw("звездочкин"), nil},
		{"AND inside a keyword", kw("Звёздочкин Варя"), []string{"Варя встретила Звёздочкина.", "Звёздочкин и Варя поднялись на башню."}},
		{"OR across keywords", kw("Ерофеич", "мастер"), []string{"Ерофеич молчал.", "Письмо Звездочкину от мастера.", "Часы пошли назад, сказал Ерофеич."}},
		{"no match", kw("Пётр"), []string{}},
	}
	tests[1].want = tests[0].want
	noHead := kw("Звёздочкин")
	noHead.IncludeHeadings = false
	tests = append(tests, struct {
		name string
		spec Spec
		want []string
	}{"headings excluded", noHead, tests[0].want[1:]})
	back := kw("часы")
	back.Backward = true
	tests = append(tests, struct {
		name string
		spec Spec
		want []string
	}{"backward", back, []string{"Конец главы про часы.", "Часы пошли назад, сказал Ерофеич.", "Звёздочкин и часы"}})
	flt := NewSpec(Filtered)
	flt.Kinds, flt.Within = []document.Kind{document.ListItem, document.Quote}, "1.1"
	tests = append(tests, struct {
		name string
		spec Spec
		want []string
	}{"kinds within a section", flt, []string{"Варя встретила Звёздочкина.", "Ерофеич молчал.", "Письмо Звездочкину от мастера."}})
	rx := NewSpec(Filtered)
	rx.Regex, rx.Within = `(?i)час`, "1.2"
	tests = append(tests, struct {
		name string
		spec Spec
		want []string
	}{"regex within", rx, []string{"Часы пошли назад, сказал Ерофеич.", "Конец главы про часы."}})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRegistry(d)
			info, err := r.Create(d, tt.spec)
			require.NoError(t, err)
			got := textsOf(d, walk(t, r, d, info.Name))
			if tt.want == nil {
				tt.want = []string{}
			}
			if len(got) == 0 {
				got = []string{}
			}
			require.Equal(t, tt.want, got)
		})
	}
}

func TestDefaultCursorsAndNames(t *testing.T) {
	d := markdown.Parse([]byte(sample))
	r := NewRegistry(d)
	fwd := walk(t, r, d, WholeBookForward)
	back := walk(t, r, d, WholeBookBackward)
	require.Len(t, fwd, d.Len())
	for i := range fwd {
		require.Equal(t, fwd[i], back[len(back)-1-i])
	}
	a, err := r.Create(d, NewSpec(FullScan))
	require.NoError(t, err)
	require.Equal(t, "fsc_cursor_0", a.Name)
	s := NewSpec(Keyword)
	s.Keywords = []string{"Варя"}
	b, err := r.Create(d, s)
	require.NoError(t, err)
	require.Equal(t, "kwd_cursor_1", b.Name)
	s.Name = strings.Repeat("я", 97)
	_, err = r.Create(d, s)
	require.ErrorIs(t, err, ErrSpec)
	require.Contains(t, err.Error(), "at most 96")
	s.Name = strings.Repeat("я", 96)
	_, err = r.Create(d, s)
	require.NoError(t, err)
}

func TestParameterErrors(t *testing.T) {
	d := markdown.Parse([]byte(sample))
	r := NewRegistry(d)
	tests := []struct {
		name string
		mod  func(*Spec)
		says string
	}{
		{"maxElements high", func(s *Spec) { s.MaxElements = 201 }, "maxElements must be between 1 and 200 (got 201)"},
		{"maxElements negative", func(s *Spec) { s.MaxElements = -1 }, "maxElements must be between 1 and 200 (got -1)"},
		{"maxBytes high", func(s *Spec) { s.MaxBytes = 65537 }, "maxBytes must be between 1 and 65536 (got 65537)"},
		{"keyword without words", func(s *Spec) { s.Type = Keyword; s.Keywords = []string{" — ", ""} }, "at least one keyword"},
		{"filter described but absent", func(s *Spec) { s.Type = Filtered; s.Description = "dialogue lines" }, `described as "dialogue lines"`},
		{"bad regex", func(s *Spec) { s.Type = Filtered; s.Regex = "(" }, "does not compile"},
		{"bad kind", func(s *Spec) { s.Type = Filtered; s.Kinds = []document.Kind{"Chapter"} }, "unknown item kind"},
		{"within not a heading", func(s *Spec) { s.Type = Filtered; s.Within = "1.1.p1" }, "within must name a heading"},
		{"bad start pointer", func(s *Spec) { s.StartAfter = "9.9.p9" }, "nearest pointers"},
		{"unknown type", func(s *Spec) { s.Type = "magic" }, "unknown cursor type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewSpec(FullScan)
			tt.mod(&s)
			_, err := r.Create(d, s)
			require.ErrorIs(t, err, ErrSpec)
			require.Contains(t, err.Error(), tt.says)
		})
	}
	_, err := r.Next(d, nil, "nope")
	require.EqualError(t, err, "Cursor 'nope' is not defined")
	require.True(t, errors.Is(err, ErrNotDefined))
	s := NewSpec(Keyword)
	s.Name, s.Keywords = "k", []string{"Пётр"}
	_, err = r.Create(d, s)
	require.NoError(t, err)
	p, err := r.Next(d, nil, "k")
	require.NoError(t, err)
	require.False(t, p.HasMore)
	_, err = r.Next(d, nil, "k")
	require.EqualError(t, err, "Cursor 'k' is complete, reset it before requesting more portions.")
	require.NoError(t, r.Reset("k"))
	_, err = r.Next(d, nil, "k")
	require.NoError(t, err)
}

func TestPortionLimits(t *testing.T) {
	d := markdown.Parse([]byte(sample))
	r := NewRegistry(d)
	s := NewSpec(FullScan)
	s.Name, s.MaxBytes, s.MaxElements = "b", 40, 200
	_, err := r.Create(d, s)
	require.NoError(t, err)
	for {
		p, err := r.Next(d, nil, "b")
		require.NoError(t, err)
		require.NotEmpty(t, p.Items)
		size := 0
		for _, it := range p.Items {
			size += len(it.Markdown)
		}
		if len(p.Items) > 1 {
			require.LessOrEqual(t, size, 40, "only a single oversized item may exceed maxBytes")
		}
		require.Equal(t, p.Items[len(p.Items)-1].Pointer.String(), p.NextAfterPointer)
		if !p.HasMore {
			break
		}
	}
	s.Name, s.IncludeContent, s.MaxElements = "c", false, 3
	_, err = r.Create(d, s)
	require.NoError(t, err)
	p, err := r.Next(d, nil, "c")
	require.NoError(t, err)
	require.Len(t, p.Items, 3)
	for _, it := range p.Items {
		require.Empty(t, it.Markdown)
		require.NotEmpty(t, it.Kind)
	}
}

func TestStartAfterIsLenient(t *testing.T) {
	d := markdown.Parse([]byte(sample))
	for _, start := range []string{"4:1.1.p1", " 1.1.p1 ", "1.1p1", "4", "4:9.9.p9", "1.1.P1."} {
		r := NewRegistry(d)
		s := NewSpec(FullScan)
		s.StartAfter, s.MaxElements = start, 1
		info, err := r.Create(d, s)
		require.NoError(t, err, start)
		p, err := r.Next(d, nil, info.Name)
		require.NoError(t, err)
		require.Equal(t, "Варя встретила Звёздочкина.", textsOf(d, []string{p.Items[0].Pointer.String()})[0], start)
		s.Backward = true
		info, err = r.Create(d, s)
		require.NoError(t, err)
		p, err = r.Next(d, nil, info.Name)
		require.NoError(t, err)
		require.Equal(t, "Глава 1", textsOf(d, []string{p.Items[0].Pointer.String()})[0])
	}
}

func TestCursorAcrossEdits(t *testing.T) {
	d := markdown.Parse([]byte(sample))
	r := NewRegistry(d)
	s := NewSpec(FullScan)
	s.Name, s.MaxElements = "w", 3
	_, err := r.Create(d, s)
	require.NoError(t, err)
	p, err := r.Next(d, nil, "w")
	require.NoError(t, err)
	last := p.Items[2].Pointer.String() // 1.1
	_, err = d.InsertAfter("1.p1", "Вставка позади курсора.")
	require.NoError(t, err)
	_, err = d.InsertAfter(last, "Вставка впереди курсора.")
	require.NoError(t, err)
	next, err := d.Resolve(last)
	require.NoError(t, err)
	after := d.At(next.Index() + 2) // the item after the inserted one
	_, err = d.Delete(after.Pointer().String())
	require.NoError(t, err)
	rest := textsOf(d, walk(t, r, d, "w"))
	require.Equal(t, "Вставка впереди курсора.", rest[0])
	require.NotContains(t, rest, "Вставка позади курсора.")
	require.NotContains(t, rest, after.Text)
	require.Equal(t, d.Len()-4, len(rest), "every other item ahead is visited once")
}

func TestCursorWhenLastReturnedItemIsDeleted(t *testing.T) {
	d := markdown.Parse([]byte(sample))
	r := NewRegistry(d)
	s := NewSpec(FullScan)
	s.Name, s.MaxElements = "w", 2
	_, err := r.Create(d, s)
	require.NoError(t, err)
	p, err := r.Next(d, nil, "w")
	require.NoError(t, err)
	_, err = d.Delete(p.Items[1].Pointer.String())
	require.NoError(t, err)
	rest := walk(t, r, d, "w")
	require.Equal(t, d.Len()-1, len(rest))
	require.Equal(t, d.At(1).Pointer().String(), rest[0])
}

func TestSearchCursor(t *testing.T) {
	d := markdown.Parse([]byte(sample))
	r := NewRegistry(d)
	s := NewSpec(Search)
	s.IDs, s.MaxElements = []int{9, 4, 7}, 1
	info, err := r.Create(d, s)
	require.NoError(t, err)
	require.Equal(t, "srch_cursor_0", info.Name)
	p, err := r.Next(d, nil, info.Name)
	require.NoError(t, err)
	require.Equal(t, 9, p.Items[0].Pointer.ID)
	_, err = d.Delete("4")
	require.NoError(t, err)
	p, err = r.Next(d, nil, info.Name)
	require.NoError(t, err)
	require.Equal(t, 7, p.Items[0].Pointer.ID)
	require.False(t, p.HasMore)
}

// A search cursor (an entry's items, a saved target set) keeps only the
// items of the Within section, like every other cursor.
func TestSearchCursorWithin(t *testing.T) {
	d := markdown.Parse([]byte(sample))
	var ids []int
	var want []string
	var chapter2 *document.Item
	for i := d.Len() - 1; i >= 0; i-- { // the search order: from the end
		it := d.At(i)
		ids = append(ids, it.ID)
		if it.Kind == document.Heading && it.Text == "Глава 2" {
			chapter2 = it
		}
	}
	require.NotNil(t, chapter2)
	for i := d.Len() - 1; i >= chapter2.Index(); i-- {
		want = append(want, d.At(i).Pointer().String())
	}
	s := NewSpec(Search)
	s.IDs, s.Within = ids, chapter2.Pointer().String()
	r := NewRegistry(d)
	info, err := r.Create(d, s)
	require.NoError(t, err)
	require.Equal(t, want, walk(t, r, d, info.Name), "the section's items, in the search order")
	require.Less(t, len(want), len(ids))
}

func TestInfoTellsWhetherLimitsWereDefaulted(t *testing.T) {
	d := markdown.Parse([]byte(sample))
	r := NewRegistry(d)
	a, err := r.Create(d, NewSpec(FullScan))
	require.NoError(t, err)
	require.True(t, a.DefaultLimits)
	require.Equal(t, DefaultMaxElements, a.MaxElements)
	s := NewSpec(FullScan)
	s.MaxElements = DefaultMaxElements
	b, err := r.Create(d, s)
	require.NoError(t, err)
	require.False(t, b.DefaultLimits, "limits given explicitly, even equal to the defaults")
	got, err := r.Get(b.Name)
	require.NoError(t, err)
	require.False(t, got.DefaultLimits)
}
