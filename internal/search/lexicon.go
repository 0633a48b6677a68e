package search

import (
	"slices"
	"strings"

	"github.com/aitexteditor/aite/internal/textnorm"
)

// lexicon interns stems as term IDs and caches the term of every surface
// word seen, so that each distinct surface form is folded and stemmed (by
// textnorm.Stem, exactly as textnorm.Terms would) only once: a book's
// vocabulary is tiny next to its word count. Build makes the lexicon in
// bulk (Index.terms); Update adds to it a word at a time (intern).
type lexicon struct {
	words map[string]termID // surface word → term
	terms map[string]termID // stem → term
	stems []string          // term → stem

	// scratch for counting the terms of one text (write paths only)
	counts  []int32  // term → occurrences in the current text
	touched []termID // terms with counts > 0, in order of first occurrence

	vc *vocabCache // the sorted vocabulary for name forms (forms.go)
}

func newLexicon() lexicon {
	return lexicon{words: map[string]termID{}, terms: map[string]termID{}, vc: &vocabCache{}}
}

// intern returns the term of a surface word, adding it if new.
func (l *lexicon) intern(w string) termID {
	if t, ok := l.words[w]; ok {
		return t
	}
	w = strings.Clone(w)
	t := l.internStem(textnorm.Stem(w))
	l.words[w] = t
	l.vc.reset()
	return t
}

// internStem returns the term of a stem, adding it if new.
func (l *lexicon) internStem(stem string) termID {
	if t, ok := l.terms[stem]; ok {
		return t
	}
	stem = strings.Clone(stem)
	t := termID(len(l.stems))
	l.stems = append(l.stems, stem)
	l.counts = append(l.counts, 0)
	l.terms[stem] = t
	return t
}

// term returns the term of a stem, if indexed.
func (l *lexicon) term(stem string) (termID, bool) {
	t, ok := l.terms[stem]
	return t, ok
}

// count tokenizes text (textnorm.NextWord), counting its terms in counts
// and touched, and returns the number of words. Call reset after reading.
func (l *lexicon) count(text string) int32 {
	n := int32(0)
	for i := 0; ; n++ {
		start, end, ok := textnorm.NextWord(text, i)
		if !ok {
			return n
		}
		t := l.intern(text[start:end])
		if l.counts[t] == 0 {
			l.touched = append(l.touched, t)
		}
		l.counts[t]++
		i = end
	}
}

// reset clears the counts left by count.
func (l *lexicon) reset() {
	for _, t := range l.touched {
		l.counts[t] = 0
	}
	l.touched = l.touched[:0]
}

// termFreq is a term with its frequency in one text.
type termFreq struct {
	term termID
	tf   int32
}

// tfs returns the terms of text with their frequencies, sorted by term,
// and the number of words.
func (l *lexicon) tfs(text string) ([]termFreq, int32) {
	dl := l.count(text)
	out := make([]termFreq, len(l.touched))
	for i, t := range l.touched {
		out[i] = termFreq{t, l.counts[t]}
	}
	l.reset()
	slices.SortFunc(out, func(a, b termFreq) int { return int(a.term - b.term) })
	return out, dl
}
