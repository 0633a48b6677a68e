package document

import (
	"strconv"
	"strings"
)

// A prefix token is one piece of a line's container prefix.
type tokKind uint8

const (
	tokQuote  tokKind = iota // `>` with its following space
	tokMarker                // a list marker with its following spaces
	tokIndent                // spaces belonging to no marker
)

type ptoken struct {
	kind    tokKind
	text    string // the original bytes, leading spaces included
	bullet  byte   // '-', '+', '*'; 0 for ordered markers
	num     int    // ordered marker number
	delim   byte   // '.' or ')'
	lead    string // spaces before the marker or '>'
	trail   string // spaces after the marker
	ordered bool
}

// lexPrefix splits a one-line container prefix into tokens.
func lexPrefix(line string) []ptoken {
	var toks []ptoken
	i, lead := 0, 0
scan:
	for i < len(line) {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			i++
			continue
		case c == '>':
			end := i + 1
			if end < len(line) && line[end] == ' ' {
				end++
			}
			toks = append(toks, ptoken{kind: tokQuote, text: line[lead:end], lead: line[lead:i]})
			i, lead = end, end
			continue
		}
		t, n := lexMarker(line, i)
		if n == 0 {
			break scan
		}
		t.lead = line[lead:i]
		t.text = line[lead : i+n]
		toks = append(toks, t)
		i += n
		lead = i
	}
	if lead < len(line) {
		toks = append(toks, ptoken{kind: tokIndent, text: line[lead:]})
	}
	return toks
}

// lexMarker reads a list marker at line[i:] with its following spaces.
func lexMarker(line string, i int) (ptoken, int) {
	t := ptoken{kind: tokMarker}
	if i >= len(line) {
		return t, 0
	}
	j := i
	switch c := line[i]; {
	case c == '-' || c == '+' || c == '*':
		t.bullet = c
		j++
	case c >= '0' && c <= '9':
		for j < len(line) && j-i < 9 && line[j] >= '0' && line[j] <= '9' {
			j++
		}
		if j >= len(line) || (line[j] != '.' && line[j] != ')') {
			return t, 0
		}
		t.num, _ = strconv.Atoi(line[i:j])
		t.delim, t.ordered = line[j], true
		j++
	default:
		return t, 0
	}
	if j < len(line) && line[j] != ' ' && line[j] != '\t' {
		return t, 0
	}
	k := j
	for k < len(line) && (line[k] == ' ' || line[k] == '\t') {
		k++
	}
	t.trail = line[j:k]
	return t, k - i
}

func (t ptoken) marker() string {
	if t.ordered {
		return strconv.Itoa(t.num) + string(t.delim)
	}
	return string(t.bullet)
}

// contForm is the prefix for continuation lines: list markers become spaces.
func contForm(toks []ptoken) string {
	var b strings.Builder
	for _, t := range toks {
		if t.kind == tokMarker {
			b.WriteString(blankOut(t.text))
		} else {
			b.WriteString(t.text)
		}
	}
	return b.String()
}

func blankOut(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c != '\t' {
			b[i] = ' '
		}
	}
	return string(b)
}

// blankLine is the prefix of a blank line inside the containers.
func blankLine(cont string) string { return strings.TrimRight(cont, " \t") }

// siblingPrefix is the first-line prefix of a new list item next to the one
// whose innermost marker is toks[m]: earlier tokens in continuation form,
// the marker renumbered (ordered lists) and its spacing kept.
func siblingPrefix(toks []ptoken, m int, after bool) string {
	t := toks[m]
	if after && t.ordered {
		t.num++
	}
	mk := t.marker()
	trail := t.trail
	if trail == "" {
		trail = " "
	}
	return contForm(toks[:m]) + t.lead + mk + trail
}

// lastMarker returns the index of the innermost list marker token, or -1.
func lastMarker(toks []ptoken) int {
	for i := len(toks) - 1; i >= 0; i-- {
		if toks[i].kind == tokMarker {
			return i
		}
	}
	return -1
}

// stripFirst removes a prefix of the same shape as toks from line, leniently
// (any bullet for bullets, any number for ordered markers, flexible spaces).
func stripFirst(line string, toks []ptoken) (string, bool) {
	for _, t := range toks {
		rest := strings.TrimLeft(line, " \t")
		switch t.kind {
		case tokQuote:
			if !strings.HasPrefix(rest, ">") {
				return line, false
			}
			line = strings.TrimPrefix(rest[1:], " ")
		case tokMarker:
			if rest == "" {
				return line, false
			}
			m, n := lexMarker(rest, 0)
			if n == 0 || m.ordered != t.ordered {
				return line, false
			}
			line = rest[n:]
		case tokIndent:
			line = rest
		}
	}
	return line, true
}

// stripCont removes a continuation prefix leniently: quote markers where
// present (a lazy line has none) and up to the width of list indentation.
func stripCont(line string, toks []ptoken) string {
	for _, t := range toks {
		if t.kind == tokQuote {
			rest := strings.TrimLeft(line, " ")
			if !strings.HasPrefix(rest, ">") {
				return line
			}
			line = strings.TrimPrefix(rest[1:], " ")
			continue
		}
		w := len(t.text)
		for w > 0 && line != "" && (line[0] == ' ' || line[0] == '\t') {
			line = line[1:]
			w--
		}
	}
	return line
}
