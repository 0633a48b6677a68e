package agentdef

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Strict converts relaxed JSON (PLATFORM_API § 6.1) to strict JSON:
//
//   - `//` starts a comment that runs to the end of the line, except inside
//     a string;
//   - a string may be written as `"""…"""`. Its content is taken verbatim
//     (a backslash is just a backslash) and may span lines: a first line
//     holding only white space is dropped, as is a last one (so the line
//     breaks after the opening and before the closing quotes go), and the
//     indentation common to the non-blank lines is removed; a one-line
//     content is kept as it is. A run of more than three closing quotes
//     ends the string with its last three, so a content may end in `"`.
//     The result is written as an ordinary JSON string.
//
// A leading UTF-8 byte order mark is dropped. Strict JSON passes through
// unchanged. The output has the same line numbering as the input (the line
// breaks of a `"""` string are written after it as white space), so
// decoder errors can name the source line. The only error is an unclosed
// `"""` string; anything else that is not JSON is left for the decoder.
func Strict(src []byte) ([]byte, error) {
	src = bytes.TrimPrefix(src, []byte("\uFEFF"))
	out := make([]byte, 0, len(src))
	for i := 0; i < len(src); {
		switch {
		case bytes.HasPrefix(src[i:], []byte(`"""`)):
			end, content, err := tripleQuoted(src, i)
			if err != nil {
				return nil, err
			}
			out = append(out, quoteJSON(dedent(content))...)
			out = append(out, bytes.Repeat([]byte("\n"), bytes.Count(src[i:end], []byte("\n")))...)
			i = end
		case src[i] == '"':
			end := endOfString(src, i)
			out = append(out, src[i:end]...)
			i = end
		case src[i] == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		default:
			out = append(out, src[i])
			i++
		}
	}
	return out, nil
}

// tripleQuoted reads the `"""` string opening at start and returns the index
// after it and its raw content.
func tripleQuoted(src []byte, start int) (end int, content string, err error) {
	from := start + 3
	j := bytes.Index(src[from:], []byte(`"""`))
	if j < 0 {
		return 0, "", fmt.Errorf("%w: line %d: unclosed \"\"\" string", ErrSyntax, lineAt(src, start))
	}
	j += from
	for j+3 < len(src) && src[j+3] == '"' {
		j++
	}
	return j + 3, string(src[from:j]), nil
}

// endOfString returns the index after the ordinary string opening at start
// (len(src) when it is not closed).
func endOfString(src []byte, start int) int {
	for i := start + 1; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(src)
}

// dedent applies the `"""` rules to a raw content.
func dedent(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	lines := strings.Split(s, "\n")
	if len(lines) == 1 {
		return s
	}
	if strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	if n := len(lines); n > 0 && strings.TrimSpace(lines[n-1]) == "" {
		lines = lines[:n-1]
	}
	indent, first := "", true
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		lead := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if first {
			indent, first = lead, false
			continue
		}
		for !strings.HasPrefix(lead, indent) {
			indent = indent[:len(indent)-1]
		}
	}
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			lines[i] = ""
		} else {
			lines[i] = l[len(indent):]
		}
	}
	return strings.Join(lines, "\n")
}

// quoteJSON writes s as a JSON string (HTML characters are not escaped).
func quoteJSON(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// lineAt returns the 1-based line of the byte offset off.
func lineAt(data []byte, off int) int {
	off = min(max(off, 0), len(data))
	return bytes.Count(data[:off], []byte("\n")) + 1
}
