package document

import (
	"fmt"
	"strings"
)

// splitText normalises line endings of user text to "\n", drops leading and
// trailing blank lines and returns the lines.
func splitText(text string) []string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	lines := strings.Split(text, "\n")
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// compose turns user text into the bytes to splice for an item whose first
// line prefix is prefix: if the text already carries a prefix of the same
// shape, that prefix is replaced by the canonical one; otherwise the prefix
// is added. Continuation lines get the continuation prefix. The heading
// syntax of sh is re-applied for heading targets (heading is the level, 0
// for others).
func compose(text string, sh Shape, heading int, le string) (string, error) {
	lines := splitText(text)
	if len(lines) == 0 {
		return "", fmt.Errorf("%w: the text is empty; use delete to remove an item", ErrEmptyText)
	}
	prefix := sh.Prefix
	head, last := prefix, prefix
	if i := strings.LastIndexByte(prefix, '\n'); i >= 0 {
		head, last = prefix[:i+1], prefix[i+1:]
	}
	toks := lexPrefix(last)
	if head != last && strings.HasPrefix(strings.Join(lines, "\n"), strings.ReplaceAll(head, "\r\n", "\n")) {
		// A multi-line prefix carried verbatim: keep the text as given.
		return strings.Join(lines, le), nil
	}
	if carriesPrefix(lines[0], toks) {
		lines[0], _ = stripFirst(lines[0], toks)
		for i := 1; i < len(lines); i++ {
			lines[i] = stripCont(lines[i], toks)
		}
	}
	lines, err := applyHeading(lines, sh, heading)
	if err != nil {
		return "", err
	}
	if head != last {
		head = strings.TrimSuffix(strings.ReplaceAll(head, "\r\n", "\n"), "\n")
		head = strings.ReplaceAll(head, "\n", le) + le
	} else {
		head = ""
	}
	cont := contForm(toks)
	var b strings.Builder
	b.WriteString(head)
	for i, l := range lines {
		switch {
		case i == 0:
			b.WriteString(last)
		case strings.TrimSpace(l) == "":
			b.WriteString(le)
			b.WriteString(blankLine(cont))
			continue
		default:
			b.WriteString(le)
			b.WriteString(cont)
		}
		b.WriteString(l)
	}
	return b.String(), nil
}

// carriesPrefix reports whether the first line of user text already starts
// with a container prefix of the item's shape: the same markers and quotes
// (leniently), or, for a prefix of plain indentation, that indentation.
func carriesPrefix(first string, toks []ptoken) bool {
	if len(toks) == 0 {
		return false
	}
	if len(toks) == 1 && toks[0].kind == tokIndent {
		return strings.HasPrefix(first, toks[0].text)
	}
	_, ok := stripFirst(first, toks)
	return ok
}

// applyHeading re-applies heading syntax to the lines of a heading's new
// text: a bare title gets the original `#` sequence (or setext underline); a
// text written as a heading must keep the level.
func applyHeading(lines []string, sh Shape, level int) ([]string, error) {
	if level == 0 {
		return lines, nil
	}
	first := strings.TrimLeft(lines[0], " ")
	if n := atxLevel(first); n > 0 {
		if len(lines) > 1 {
			return nil, fmt.Errorf("%w: a heading is one line; give the new title on one line", ErrHeading)
		}
		if n != level {
			return nil, fmt.Errorf("%w: the heading is level %d and must stay level %d: give the bare title or start it with %q",
				ErrHeading, level, level, strings.Repeat("#", level)+" ")
		}
		return lines, nil
	}
	if sh.Underline != "" {
		if n := len(lines); n > 1 {
			if u := setextLevel(lines[n-1]); u > 0 {
				if u != level {
					return nil, fmt.Errorf("%w: the heading is level %d and must stay level %d", ErrHeading, u, level)
				}
				return lines, nil
			}
		}
		return append(lines, sh.Underline), nil
	}
	if len(lines) > 1 {
		return nil, fmt.Errorf("%w: a heading is one line; give the new title on one line", ErrHeading)
	}
	marker := sh.HeadMarker
	if marker == "" {
		marker = strings.Repeat("#", level) + " "
	}
	return []string{marker + lines[0]}, nil
}

// atxLevel returns the level of an ATX heading line (without container
// prefix), or 0.
func atxLevel(s string) int {
	n := 0
	for n < len(s) && s[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(s) && s[n] != ' ' && s[n] != '\t') {
		return 0
	}
	return n
}

// setextLevel returns 1 for a `===` line, 2 for a `---` line, else 0.
func setextLevel(s string) int {
	s = strings.TrimSpace(s)
	if s == "" || strings.Trim(s, string(s[0])) != "" {
		return 0
	}
	switch s[0] {
	case '=':
		return 1
	case '-':
		return 2
	}
	return 0
}
