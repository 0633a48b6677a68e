package textnorm

import (
	"strings"
	"testing"

	"github.com/aitexteditor/aite/internal/testbook"
)

// mixedParagraph is a Russian/English sample with punctuation, ё and
// capitals.
const mixedParagraph = `— Позвольте, — сказал Звёздочкин, — но ведь это совершенно невозможно!
Я человек больной... Я злой человек. Непривлекательный я человек. Я думаю, что у меня болит печень.
It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want of a wife.
«Ну-с, господа, — продолжал он, — ещё одно слово, и я уйду». Don't you think so, Mr. Darcy?
However little known the feelings or views of such a man may be on his first entering a neighbourhood…
`

// mixedText returns about n bytes of mixedParagraph repeated.
func mixedText(n int) string {
	return strings.Repeat(mixedParagraph, n/len(mixedParagraph)+1)
}

// sampleBooks are the two sample books, Russian and English.
var sampleBooks = []string{"zapiski_iz_podpolia.md", "PrideAndPrejudice.md"}

// bookText returns the two sample books (Russian and English) joined,
// or skips the benchmark if they are absent.
func bookText(b testing.TB) string {
	books := testbook.Books(b)
	var sb strings.Builder
	for _, name := range sampleBooks {
		sb.Write(books[name])
	}
	return sb.String()
}

// benchText runs fn over text, reporting throughput.
func benchText(b *testing.B, text string, fn func(string)) {
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		fn(text)
	}
}

func BenchmarkTerms(b *testing.B) {
	benchText(b, mixedText(1<<20), func(s string) { _ = Terms(s) })
}

func BenchmarkTermsBooks(b *testing.B) {
	benchText(b, bookText(b), func(s string) { _ = Terms(s) })
}

func BenchmarkTokenizeBooks(b *testing.B) {
	benchText(b, bookText(b), func(s string) { _ = Tokenize(s) })
}

func BenchmarkSpansBooks(b *testing.B) {
	benchText(b, bookText(b), func(s string) { _ = Spans(s) })
}

func BenchmarkFoldBooks(b *testing.B) {
	benchText(b, bookText(b), func(s string) { _ = Fold(s) })
}

// BenchmarkMatcherBooks measures a warm Matcher (its word cache filled
// by earlier iterations), as when one keyword is tested against every
// chapter; BenchmarkMatcherColdBooks includes filling the cache.
func BenchmarkMatcherBooks(b *testing.B) {
	m := NewMatcher("Звёздочкин Elizabeth") // never both: scans everything
	benchText(b, bookText(b), func(s string) { _ = m.Match(s) })
}

// BenchmarkMatcherParagraphs matches one keyword against each paragraph
// of each sample book in turn, as a keyword cursor without an index tests
// each item: a name and a common word of the Russian book (a Cyrillic
// keyword skips the English book's words at once).
func BenchmarkMatcherParagraphs(b *testing.B) {
	books := testbook.Books(b)
	for _, book := range sampleBooks {
		data := books[book]
		paras := strings.Split(string(data), "\n\n")
		for _, kw := range []string{"Симонов", "человек"} {
			b.Run(strings.TrimSuffix(book, ".md")+"/"+kw, func(b *testing.B) {
				m := NewMatcher(kw)
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					for _, p := range paras {
						m.Match(p)
					}
				}
			})
		}
	}
}

func BenchmarkMatcherColdBooks(b *testing.B) {
	benchText(b, bookText(b), func(s string) { _ = NewMatcher("Звёздочкин Elizabeth").Match(s) })
}

func BenchmarkMatchPhraseBooks(b *testing.B) {
	benchText(b, bookText(b), func(s string) { _ = MatchPhrase(s, "я человек") })
}

// BenchmarkStemBooks stems every distinct word of the sample books once
// (the index build's stemming work).
func BenchmarkStemBooks(b *testing.B) {
	text := bookText(b)
	seen := map[string]bool{}
	var words []string
	for _, sp := range Spans(text) {
		if w := text[sp.Start:sp.End]; !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, w := range words {
			Stem(w)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(words)), "ns/word")
	b.ReportMetric(float64(len(words)), "words")
}
