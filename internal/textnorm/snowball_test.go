package textnorm

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
	"github.com/kljensen/snowball/russian"
	"github.com/stretchr/testify/require"
)

// snowballDir holds the reference vocabularies (CI checks ../shared out
// beside the repository).
const snowballDir = "../../../shared/data/snowball"

// vocabulary is a reference word list and the expected stems.
type vocabulary struct {
	words, stems []string
}

// loadVocabulary reads lang's voc.txt and output.txt, skipping the test
// if the reference data is absent.
func loadVocabulary(t *testing.T, lang string) vocabulary {
	t.Helper()
	dir := filepath.Join(snowballDir, lang)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("Snowball reference data not found at %s (expected ../shared "+
			"beside the checkout): %v", dir, err)
	}
	v := vocabulary{readLines(t, filepath.Join(dir, "voc.txt")), readLines(t, filepath.Join(dir, "output.txt"))}
	require.Equal(t, len(v.words), len(v.stems), "voc.txt and output.txt differ in length")
	require.NotEmpty(t, v.words)
	return v
}

// readLines returns the lines of a file.
func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	require.NoError(t, sc.Err())
	return lines
}

// variant is one way of stemming a reference word.
type variant struct {
	name  string
	stem  func(string) string
	floor float64 // minimum agreement in percent, just below the measured rate
}

// classifier names the reason for a mismatch.
type classifier func(word, want, got string) string

func TestSnowballAgreement(t *testing.T) {
	langs := []struct {
		name     string
		variants []variant
		classify classifier
	}{
		{"russian", []variant{
			{"library raw", func(w string) string { return russian.Stem(w, true) }, 99.70},
			{"library raw, stop words unstemmed", func(w string) string { return russian.Stem(w, false) }, 99.55},
			{"textnorm.Stem", Stem, 99.95},
		}, classifyRussian},
		{"english", []variant{
			{"library raw", func(w string) string { return english.Stem(w, true) }, 99.80},
			{"library raw, stop words unstemmed", func(w string) string { return english.Stem(w, false) }, 99.75},
			{"textnorm.Stem", Stem, 99.80},
		}, classifyEnglish},
	}
	for _, lang := range langs {
		t.Run(lang.name, func(t *testing.T) {
			voc := loadVocabulary(t, lang.name)
			for _, v := range lang.variants {
				t.Run(v.name, func(t *testing.T) {
					rate := agreement(t, voc, v.stem, lang.classify)
					require.GreaterOrEqual(t, rate, v.floor, "agreement regressed")
				})
			}
		})
	}
}

// agreement measures and logs how often stem agrees with the reference,
// with the mismatches grouped by class.
func agreement(t *testing.T, voc vocabulary, stem func(string) string, classify classifier) float64 {
	classes := map[string][]string{}
	ok := 0
	for i, w := range voc.words {
		got := stem(w)
		if got == voc.stems[i] {
			ok++
			continue
		}
		c := classify(w, voc.stems[i], got)
		classes[c] = append(classes[c], fmt.Sprintf("%q: want %q, got %q", w, voc.stems[i], got))
	}
	rate := 100 * float64(ok) / float64(len(voc.words))
	t.Logf("agreement %d/%d = %.3f%%", ok, len(voc.words), rate)
	names := make([]string, 0, len(classes))
	for c := range classes {
		names = append(names, c)
	}
	sort.Slice(names, func(i, j int) bool { return len(classes[names[i]]) > len(classes[names[j]]) })
	for _, c := range names {
		ex := classes[c]
		t.Logf("  %4d  %s; e.g. %s", len(ex), c, strings.Join(ex[:min(3, len(ex))], "; "))
	}
	return rate
}

// classifyRussian explains a Russian mismatch (see STEMMING.md).
func classifyRussian(word, want, got string) string {
	switch {
	case strings.ContainsRune(word, 'ё') && russian.Stem(strings.ReplaceAll(word, "ё", "е"), true) == want:
		return "ё folding: library does not map ё to е, the reference does"
	case utf8.RuneCountInString(word) <= 2:
		return "word of ≤ 2 letters returned unstemmed by the library"
	case russian.IsStopWord(word) && got == word:
		return "stop word returned unstemmed (stemStopWords=false)"
	case strings.HasSuffix(want, "ейш") || strings.HasSuffix(want, "ейше"):
		return "library bug: step 4 (superlative) not restricted to RV"
	}
	return "other"
}

// newR1Prefixes are the R1 exception prefixes added to Snowball English
// after the version the library implements.
var newR1Prefixes = []string{"past", "univers", "later", "emerg", "organ", "inter"}

// isAEODouble reports whether stem is a, e or o followed by a doubled
// consonant, which newer Snowball English no longer undoubles.
func isAEODouble(stem string) bool {
	return len(stem) == 3 && strings.IndexByte("aeo", stem[0]) >= 0 &&
		stem[1] == stem[2] && strings.IndexByte("bdfgmnprt", stem[1]) >= 0
}

// classifyEnglish explains an English mismatch (see STEMMING.md).
func classifyEnglish(word, want, got string) string {
	switch {
	case strings.IndexFunc(word, unicode.IsLetter) < 0:
		return "non-letter input (apostrophes only)"
	case english.IsStopWord(word) && got == word:
		return "stop word returned unstemmed (stemStopWords=false)"
	case hasAnyPrefix(word, newR1Prefixes):
		return "newer Snowball: R1 exception prefixes past/univers/later/emerg/organ/inter"
	case strings.Contains(word, "ogist"):
		return "newer Snowball: step 2 -ogist → -og"
	case isAEODouble(want):
		return "newer Snowball: no undoubling of a/e/o + double consonant (add, ebb, err, off)"
	case strings.HasSuffix(word, "ying") && strings.HasSuffix(want, "ie"):
		return "newer Snowball: consonant + ying → ie generalised (hying, vying)"
	case strings.HasPrefix(word, "evening"):
		return "newer Snowball: 'evening' is invariant"
	}
	return "other"
}

// hasAnyPrefix reports whether s starts with one of prefixes.
func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// TestRussianStemIsPrefix guards the Matcher's shortcut: a Russian stem
// is always a prefix of the folded word.
func TestRussianStemIsPrefix(t *testing.T) {
	voc := loadVocabulary(t, "russian")
	for _, w := range append(voc.words, "Звёздочкиным", "ЗЛЕЙШИЙ", "а", "") {
		norm := Fold(w)
		require.True(t, strings.HasPrefix(norm, Stem(w)), "stem of %q is not a prefix of %q", w, norm)
	}
}
