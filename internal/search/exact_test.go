package search

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/document"
)

const exactDoc = `# Подполье

Я человек больной... Я злой человек. Непривлекательный я человек.

— Я — человек! — крикнул он.

Я, ЧЕЛОВЕК простой, молчу.

Человек я. Я очень добрый человек.

ЕЩЁ раз, ещё раз!

## English

It is a truth universally acknowledged.

- A TRUTH, *universally*... acknowledged
`

func TestExact(t *testing.T) {
	d := parse(exactDoc)
	x := Build(d)
	type hit struct {
		label   string
		count   int
		snippet string
	}
	tests := []struct {
		name, phrase string
		opt          Options
		want         []hit
	}{
		{"phrase across punctuation and case", "я человек", Options{}, []hit{
			{"1.p1", 2, "**Я человек** больной... Я злой человек. Непривлекательный **я человек**."},
			{"1.p2", 1, "— **Я — человек**! — крикнул он."},
			{"1.p3", 1, "**Я, ЧЕЛОВЕК** простой, молчу."},
		}},
		{"three words", "я злой человек", Options{}, []hit{
			{"1.p1", 1, "Я человек больной... **Я злой человек**. Непривлекательный я человек."},
		}},
		{"words present but not consecutive", "очень человек", Options{}, nil},
		{"words in the wrong order", "человек злой", Options{}, nil},
		{"exact is not stemmed", "я человека", Options{}, nil},
		{"ё and е", "еще раз", Options{}, []hit{{"1.p5", 2, "**ЕЩЁ раз**, **ещё раз**!"}}},
		{"English, inline markup", "truth universally acknowledged", Options{}, []hit{
			{"1.1.p1", 1, "It is a **truth universally acknowledged**."},
			{"1.1.p2", 1, "A **TRUTH, universally... acknowledged**"},
		}},
		{"kinds", "truth", Options{Kinds: []document.Kind{document.ListItem}}, []hit{{"1.1.p2", 1, "A **TRUTH**, universally... acknowledged"}}},
		{"within", "я человек", Options{Within: "1.1"}, nil},
		{"limit keeps document order", "я человек", Options{Limit: 1}, []hit{
			{"1.p1", 2, "**Я человек** больной... Я злой человек. Непривлекательный **я человек**."},
		}},
		{"headings", "подполье", Options{IncludeHeadings: true}, []hit{{"1", 1, "**Подполье**"}}},
		{"headings skipped", "подполье", Options{}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rs, err := x.Exact(d, tc.phrase, tc.opt)
			require.NoError(t, err)
			var got []hit
			for _, r := range rs {
				require.Equal(t, float64(r.Matches), r.Score)
				got = append(got, hit{r.Pointer.Label, r.Matches, r.Snippet})
			}
			require.Equal(t, tc.want, got)
		})
	}
}

// cutMarks removes the snippet decorations.
func cutMarks(s string) string {
	return strings.NewReplacer("**", "", "…", "").Replace(s)
}

// highlights returns the texts wrapped in ** ** in a snippet.
func highlights(s string) []string {
	parts := strings.Split(s, "**")
	var out []string
	for i := 1; i < len(parts); i += 2 {
		out = append(out, parts[i])
	}
	return out
}

func TestExactSnippetCut(t *testing.T) {
	filler := strings.Repeat("длинное предложение без всякого смысла, ", 30)
	d := parse(filler + "Искомая  фраза\nздесь. " + filler + "\n")
	rs, err := Build(d).Exact(d, "искомая фраза", Options{})
	require.NoError(t, err)
	require.Len(t, rs, 1)
	s := rs[0].Snippet
	require.True(t, utf8.ValidString(s))
	require.True(t, strings.HasPrefix(s, "…"), s)
	require.True(t, strings.HasSuffix(s, "…"), s)
	require.Equal(t, []string{"Искомая фраза"}, highlights(s))
	require.LessOrEqual(t, utf8.RuneCountInString(cutMarks(s)), snippetRunes)
	require.Greater(t, utf8.RuneCountInString(cutMarks(s)), snippetRunes-20)
	require.Contains(t, d.Items()[0].Text, strings.TrimSpace(strings.Fields(cutMarks(s))[0]))
}

func TestSnippetNeverCutsRunes(t *testing.T) {
	words := strings.Fields("я ёж щи объявление съешь же ещё этих мягких французских булок да выпей чаю Ё")
	var text strings.Builder
	var spans [][2]int
	for i := 0; text.Len() < 2000; i++ {
		w := fmt.Sprintf("%s%d", words[i%len(words)], i) // unique words
		if i > 0 {
			text.WriteString(" \n "[:1+i%3])
		}
		spans = append(spans, [2]int{text.Len(), text.Len() + len(w)})
		text.WriteString(w)
	}
	src := text.String()
	collapsed := strings.Join(strings.Fields(src), " ")
	for k, sp := range spans {
		s := snippet(src, toSpans(sp))
		require.True(t, utf8.ValidString(s), "word %d: %q", k, s)
		require.Equal(t, []string{src[sp[0]:sp[1]]}, highlights(s), "word %d", k)
		require.Contains(t, collapsed, cutMarks(s), "word %d", k)
		require.LessOrEqual(t, utf8.RuneCountInString(cutMarks(s)), snippetRunes, "word %d", k)
		require.Equal(t, !strings.HasPrefix(collapsed, cutMarks(s)), strings.HasPrefix(s, "…"), "word %d: %q", k, s)
		require.Equal(t, !strings.HasSuffix(collapsed, cutMarks(s)), strings.HasSuffix(s, "…"), "word %d: %q", k, s)
	}
}

func TestSnippetEdgeCases(t *testing.T) {
	tests := []struct {
		name, text string
		spans      [][2]int
		want       string
	}{
		{"no match", "Короткий текст", nil, "Короткий текст"},
		{"whole text", "кот", [][2]int{{0, 6}}, "**кот**"},
		{"white space collapsed", "кот\n  и\tпёс", [][2]int{{12, 18}}, "кот и **пёс**"},
		{"invalid UTF-8", "кот \xff\xfe пёс", [][2]int{{10, 16}}, "кот \uFFFD\uFFFD **пёс**"},
		{"match longer than the window", strings.Repeat("ф", 200), [][2]int{{0, 400}}, "**" + strings.Repeat("ф", 200) + "**"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, snippet(tc.text, toSpans(tc.spans...)))
		})
	}
}
