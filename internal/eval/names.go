package eval

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/textnorm"
)

// name is a name the tasks are about: the spelling the prompts use and the
// items that mention it in any form (not headings), in document order.
type name struct {
	form  string
	items []*document.Item
}

// wordStats counts how a spelling occurs in the book.
type wordStats struct {
	midCap int // capitalized, not at the start of a sentence
}

// Names finds the book's names from its index: a spelling qualifies when it
// is letters only, at least 3 letters, capitalized but not all capitals, at
// least twice in the middle of a sentence, not a title (Mr, Lady, …), and
// never written in lower case (which keeps out ordinary words that start
// sentences), and when none of the words its search finds is written in
// lower case anywhere in the book (so that "Younge" is left out when its
// search also finds "Young" opening a sentence: a reader would not count
// that as a mention). Spellings whose searches find the same items are
// forms of one name; the most frequent one names it. The result is
// ordered by the number of items, then spelling. (When the book has a codex, its characters and their aliases
// are the better source; the codex is not part of the build yet.)
func (b *Book) names() []name {
	if b.nameList == nil {
		b.nameList = b.findNames()
	}
	return b.nameList
}

func (b *Book) findNames() []name {
	stats, lower := b.wordStats()
	forms := make([]string, 0, len(stats))
	for f, s := range stats {
		if s.midCap >= 2 && !lower[textnorm.Fold(f)] && !titles[textnorm.Fold(f)] {
			forms = append(forms, f)
		}
	}
	slices.SortFunc(forms, func(a, c string) int {
		return cmp.Or(stats[c].midCap-stats[a].midCap, strings.Compare(a, c))
	})
	seen := map[string]bool{}
	var out []name
	for _, f := range forms {
		items := b.mentions(f)
		key := itemsKey(items)
		if len(items) == 0 || seen[key] || !unambiguous(f, items, lower) {
			continue
		}
		seen[key] = true
		out = append(out, name{form: f, items: items})
	}
	slices.SortStableFunc(out, func(a, c name) int { return len(c.items) - len(a.items) })
	return out
}

// unambiguous reports whether no word the search for form found in items
// is written in lower case somewhere in the book.
func unambiguous(form string, items []*document.Item, lower map[string]bool) bool {
	terms := textnorm.QueryTerms(form)
	for _, it := range items {
		for _, tok := range textnorm.Tokenize(it.Text) {
			if !lower[tok.Norm] {
				continue
			}
			for _, t := range terms {
				if t.Matches(tok.Text) {
					return false
				}
			}
		}
	}
	return true
}

// wordStats counts the capitalized spellings of the non-heading items and
// notes every folded word that occurs in lower case.
func (b *Book) wordStats() (map[string]*wordStats, map[string]bool) {
	stats := map[string]*wordStats{}
	lower := map[string]bool{}
	for _, it := range b.doc.Items() {
		if it.Kind == document.Heading {
			continue
		}
		for _, tok := range textnorm.Tokenize(it.Text) {
			if !lettersOnly(tok.Text) {
				continue
			}
			first, _ := utf8.DecodeRuneInString(tok.Text)
			switch {
			case unicode.IsLower(first):
				lower[tok.Norm] = true
			case utf8.RuneCountInString(tok.Text) >= 3 && !allUpper(tok.Text) && !sentenceStart(it.Text, tok.Start):
				s := stats[tok.Text]
				if s == nil {
					s = &wordStats{}
					stats[tok.Text] = s
				}
				s.midCap++
			}
		}
	}
	return stats, lower
}

func lettersOnly(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return s != ""
}

func allUpper(s string) bool {
	for _, r := range s {
		if unicode.IsLower(r) {
			return false
		}
	}
	return true
}

// sentenceStart reports whether the word at byte offset i of text begins a
// sentence (or a quotation, a line of dialogue, a clause after a colon);
// the period of an abbreviation ("Mr.") does not end a sentence.
func sentenceStart(text string, i int) bool {
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(text[:i])
		i -= size
		switch {
		case unicode.IsSpace(r):
			continue
		case r == '.':
			return !abbreviated(text[:i])
		}
		return strings.ContainsRune("!?…:;—–-«»\"“”„()[]'‘’", r)
	}
	return true
}

// titles are capitalized words that go with names but are none.
var titles = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "miss": true, "sir": true, "lady": true, "lord": true, "dr": true,
	"colonel": true, "captain": true, "madam": true, "madame": true, "monsieur": true, "master": true,
	"господин": true, "госпожа": true,
}

// itemsKey identifies a set of items.
func itemsKey(items []*document.Item) string {
	var b strings.Builder
	for _, it := range items {
		b.WriteString(strconv.Itoa(it.ID))
		b.WriteByte(',')
	}
	return b.String()
}
