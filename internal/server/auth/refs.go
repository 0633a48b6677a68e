package auth

import (
	"net/url"
	"strings"
)

// dataRoute is the path whose file parameter NormalizeRef unwraps.
const dataRoute = "api/ap/data"

// NormalizeRef turns a reference (a references[].url or a Markdown link or image target) into
// the path CleanDataPath would give for the file it names, for the "Referenced" rule of § 8.3.
// It drops `#…` and `?…`, unwraps `/api/ap/data?file=…` (the file value, query-decoded once,
// is the path), percent-decodes any other path once, and strips leading slashes, so
// "/data/x.png" is "data/x.png" below the data directory. ok is false for targets that name no
// data file: empty, invalid for CleanDataPath, protocol-relative ("//host/…"), or carrying a
// URL scheme. § 8.3 lists http:, https:, data: and blob:; every other scheme (mailto:,
// javascript:, file:, …) is ignored too, since none of them can address the data directory.
func NormalizeRef(target string) (string, bool) {
	t := strings.TrimSpace(target)
	if t == "" || strings.HasPrefix(t, "//") || hasScheme(t) {
		return "", false
	}
	t, _, _ = strings.Cut(t, "#")
	p, query, _ := strings.Cut(t, "?")
	if strings.TrimLeft(p, "/") == dataRoute {
		values, err := url.ParseQuery(query)
		if err != nil {
			return "", false
		}
		p = values.Get("file")
	} else if decoded, err := url.PathUnescape(p); err == nil {
		p = decoded
	}
	clean, err := CleanDataPath(p)
	return clean, err == nil
}

// hasScheme reports a URI scheme (RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":")
// at the start of s.
func hasScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case c == ':':
			return i > 0
		default:
			return false
		}
	}
	return false
}

// ReferencedFiles returns the normalised paths (NormalizeRef) of every references[].url in
// refURLs and of every Markdown link or image target (`[x](t)`, `![x](t)`) in texts, the
// content texts of a chat. Targets may be wrapped in <…> and be followed by a title. The scan
// is deliberately simple: a "](" inside a code span counts too, which can only add paths that
// the chat's own text names.
func ReferencedFiles(texts []string, refURLs []string) map[string]bool {
	refs := map[string]bool{}
	add := func(target string) {
		if p, ok := NormalizeRef(target); ok {
			refs[p] = true
		}
	}
	for _, u := range refURLs {
		add(u)
	}
	for _, text := range texts {
		for _, target := range linkTargets(text) {
			add(target)
		}
	}
	return refs
}

// linkTargets returns the destinations of the inline links and images of a Markdown text.
func linkTargets(text string) []string {
	var out []string
	for i := 0; ; {
		j := strings.Index(text[i:], "](")
		if j < 0 {
			return out
		}
		start := i + j + 2
		dest, n := linkDestination(text[start:])
		if dest != "" {
			out = append(out, dest)
		}
		i = start + n
	}
}

// linkDestination reads a CommonMark link destination at the start of s (after optional
// spaces): either <…> without line breaks, or a run without spaces or control characters and
// with balanced parentheses. Backslash escapes of ASCII punctuation are resolved. It returns the
// destination and the number of bytes read.
func linkDestination(s string) (string, int) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	var b strings.Builder
	if i < len(s) && s[i] == '<' {
		for i++; i < len(s); i++ {
			switch c := s[i]; {
			case c == '>':
				return b.String(), i + 1
			case c == '\n' || c == '<':
				return "", 0 // not a destination: rescan from just after "]("
			case c == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]):
				i++
				b.WriteByte(s[i])
			default:
				b.WriteByte(c)
			}
		}
		return "", 0
	}
	depth := 0
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c <= ' ' || c == 0x7f:
			return b.String(), i
		case c == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]):
			i++
			c = s[i]
		case c == '(':
			depth++
		case c == ')':
			if depth == 0 {
				return b.String(), i
			}
			depth--
		}
		b.WriteByte(c)
	}
	return b.String(), i
}

func isASCIIPunct(c byte) bool {
	return strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", c) >= 0
}
