package textdiff

import (
	"unicode"
	"unicode/utf8"
)

// Segment is one run of a word-level edit script: text both sides share
// (Kind 0), text only the old side has (Delete) or text only the new side
// has (Insert).
type Segment struct {
	Kind OpKind
	Text string
}

// Words returns a minimal word-level edit script that turns old into new.
// The texts are split into tokens — words (runs of letters, digits and
// combining marks), runs of white space, and every other character on its
// own — which are diffed as Lines diffs lines. Within a changed run the
// deletions come before the insertions; white space alone between two
// changes joins them into one run, so a rewritten phrase reads as one
// deletion and one insertion. Adjacent segments of one kind are merged, so
// no two neighbours have the same kind. Concatenating the segments of kind
// 0 and Delete gives old; those of kind 0 and Insert give new. Invalid
// UTF-8 bytes are tokens of their own and are kept as they are.
func Words(old, new string) []Segment {
	a, b := tokens(old), tokens(new)
	w := &window{a: a, b: b}
	var out []Segment
	add := func(kind OpKind, toks [][]byte) {
		for _, t := range toks {
			if n := len(out); n > 0 && out[n-1].Kind == kind {
				out[n-1].Text += string(t)
			} else if len(t) > 0 {
				out = append(out, Segment{Kind: kind, Text: string(t)})
			}
		}
	}
	i := 0
	changes := joinSpaced(w.changes(), a)
	for _, c := range changes {
		add(0, a[i:c.a0])
		add(Delete, a[c.a0:c.a1])
		add(Insert, b[c.b0:c.b1])
		i = c.a1
	}
	add(0, a[i:])
	return out
}

// joinSpaced merges two neighbouring changes whose only unchanged tokens
// between them are white space, so the space becomes part of the change.
func joinSpaced(cs []change, a [][]byte) []change {
	var out []change
	for _, c := range cs {
		if n := len(out); n > 0 && allSpace(a[out[n-1].a1:c.a0]) {
			out[n-1].a1, out[n-1].b1 = c.a1, c.b1
			continue
		}
		out = append(out, c)
	}
	return out
}

func allSpace(toks [][]byte) bool {
	for _, t := range toks {
		r, _ := utf8.DecodeRune(t)
		if !unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

// tokenClass groups the runes that form one token together.
type tokenClass uint8

const (
	classOther tokenClass = iota // one rune per token
	classWord
	classSpace
)

func classOf(r rune) tokenClass {
	switch {
	case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
		return classWord
	case unicode.IsSpace(r):
		return classSpace
	}
	return classOther
}

// tokens splits s into words, white-space runs and single other runes
// (an invalid byte is a token of its own); the tokens alias s.
func tokens(s string) [][]byte {
	b := []byte(s)
	var out [][]byte
	start, prev := 0, classOther
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		cl := classOf(r)
		if r == utf8.RuneError && n <= 1 {
			cl = classOther
		}
		if i > start && (cl != prev || cl == classOther) {
			out = append(out, b[start:i])
			start = i
		}
		prev = cl
		i += n
	}
	if start < len(b) {
		out = append(out, b[start:])
	}
	return out
}
