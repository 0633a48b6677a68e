package eval

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/aitexteditor/aite/internal/document"
)

// abbreviations end with a period that does not end a sentence.
var abbreviations = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "st": true, "jr": true, "sr": true, "messrs": true,
	"vs": true, "etc": true, "no": true, "vol": true, "ch": true,
	"т": true, "г": true, "гг": true, "см": true, "др": true, "пр": true, "стр": true, "им": true,
	"ул": true, "тов": true, "гл": true, "ср": true,
}

// unclear are characters that make a sentence boundary a matter of
// opinion (quotations, brackets, ellipses) or mark Markdown up.
const unclear = "\"“”«»„()[]…*_`\\<>#|~\n\r"

// lastSentence returns the byte offset where the last sentence of a plain
// paragraph starts, when nobody could disagree about it: the Markdown is
// one line of text without markup, quotation marks, brackets or ellipses;
// every . ! ? either ends the paragraph or is followed by one space and a
// capital letter and does not end an abbreviation or an initial; there
// are at least two sentences, and the last has at least 15 letters.
func lastSentence(md string) (int, bool) {
	if strings.ContainsAny(md, unclear) || strings.Contains(md, "..") || len(md) > 1500 {
		return 0, false
	}
	md = strings.TrimRight(md, " ")
	if md == "" || !strings.ContainsRune(".!?", rune(md[len(md)-1])) {
		return 0, false
	}
	start := -1
	for i := 0; i < len(md)-1; i++ {
		if !strings.ContainsRune(".!?", rune(md[i])) {
			continue
		}
		next, _ := utf8.DecodeRuneInString(md[i+1:])
		after, _ := utf8.DecodeRuneInString(md[min(i+2, len(md)):])
		if next != ' ' || !unicode.IsUpper(after) || (md[i] == '.' && abbreviated(md[:i])) {
			return 0, false
		}
		start = i + 2
	}
	if start < 0 || letters(md[start:]) < 15 {
		return 0, false
	}
	return start, true
}

// abbreviated reports whether the text before a period ends with an
// abbreviation or a one-letter initial.
func abbreviated(before string) bool {
	i := len(before)
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(before[:i])
		if !unicode.IsLetter(r) {
			break
		}
		i -= size
	}
	w := strings.ToLower(before[i:])
	return utf8.RuneCountInString(w) <= 1 || abbreviations[w]
}

func letters(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			n++
		}
	}
	return n
}

// plainParagraph reports whether an item is a top-level paragraph, the
// kind of item the edit tasks change (a list item or a quote would get
// container markers the prompt does not speak of).
func plainParagraph(it *document.Item) bool {
	return it.Kind == document.Paragraph && len(it.Containers) == 0
}
