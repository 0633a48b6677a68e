package codex

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/aitexteditor/aite/internal/textnorm"
)

// partKind is the role of a word in a compound name.
type partKind uint8

const (
	pTitle partKind = iota
	pInitial
	pName
	pParticle
)

// part is one word of a compound name.
type part struct {
	kind    partKind
	cluster int    // pName
	norm    string // pTitle, pInitial, pParticle: the folded word
	text    string // as written
}

// run is one occurrence of a compound name in an item.
type run struct {
	parts      []part
	item       int // index in finder.items
	start, end int // byte offsets in the item's text
}

// key identifies a compound name: its parts, names by cluster.
func (r run) key() string {
	var b strings.Builder
	for i, p := range r.parts {
		if i > 0 {
			b.WriteByte('|')
		}
		switch p.kind {
		case pTitle:
			b.WriteString("t:" + p.norm)
		case pInitial:
			b.WriteString("i:" + p.norm)
		case pParticle:
			b.WriteString("p:" + p.norm)
		case pName:
			b.WriteString("n:" + strconv.Itoa(p.cluster))
		}
	}
	return b.String()
}

// runs finds every compound name in the items (headings left out).
func (f *finder) runs() []run {
	var out []run
	for si, s := range f.items {
		if s.item.Kind == "Heading" {
			continue
		}
		for i := 0; i < len(s.toks); {
			r, next := f.runAt(s.item.Text, s.toks, i)
			if r == nil {
				i++
				continue
			}
			r.item = si
			out = append(out, *r)
			i = next
		}
	}
	return out
}

// runAt reads the compound name starting at word i, if any, and returns
// it with the index of the word after it.
func (f *finder) runAt(text string, toks []tok, i int) (*run, int) {
	var parts []part
	named := false // a title or a name was read
	j := i
	for ; j < len(toks); j++ {
		t := toks[j]
		if j > i && !joinable(text, toks[j-1], t) {
			break
		}
		p, ok := f.partOf(toks, j, len(parts) == 0, named)
		if !ok {
			break
		}
		parts = append(parts, p)
		named = named || p.kind == pName || p.kind == pTitle
	}
	for len(parts) > 0 && parts[len(parts)-1].kind != pName {
		parts = parts[:len(parts)-1]
		j--
	}
	hasName := false
	for _, p := range parts {
		hasName = hasName || p.kind == pName
	}
	if !hasName {
		return nil, i + 1
	}
	return &run{parts: parts, start: toks[i].start, end: toks[j-1].end}, j
}

// partOf classifies word j as part of a compound name being read.
func (f *finder) partOf(toks []tok, j int, first, named bool) (part, bool) {
	t := toks[j]
	n := textnorm.Fold(t.w)
	switch {
	case first && isTitle(t):
		return part{kind: pTitle, norm: n, text: t.w}, true
	case t.class == singleWord && t.dot && isLetter(t.w):
		return part{kind: pInitial, norm: n, text: t.w}, true
	case t.class == lowerWord && named && particles[n] && j+1 < len(toks) && toks[j+1].class == titleWord:
		return part{kind: pParticle, norm: n, text: t.w}, true
	}
	ci := f.nameWord(t)
	if ci < 0 && named && !t.initial {
		ci = f.anyWord(t) // after a title or a name: Mrs. Long, Верхние Ключи
	}
	if ci < 0 && first && t.initial && j+1 < len(toks) && toks[j+1].class == titleWord && isPatronymic(textnorm.Fold(toks[j+1].w)) {
		ci = f.firstName(t) // a first name at the start of a sentence: Фёдор Карлович
	}
	if ci < 0 {
		return part{}, false
	}
	return part{kind: pName, cluster: ci, text: t.w}, true
}

func isLetter(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsLetter(r)
}

// joinable reports whether two words may belong to one compound name:
// only white space between them, or one full stop after an abbreviated
// title or an initial.
func joinable(text string, prev, next tok) bool {
	gap := text[prev.end:next.start]
	if !joins(gap) {
		return false
	}
	if strings.Contains(gap, ".") {
		return prev.class == singleWord || abbreviations[textnorm.Fold(prev.w)]
	}
	return true
}
