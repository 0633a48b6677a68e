package agentctx

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// PathPrefix is the dagger that starts every path.
const PathPrefix = "†"

var pathRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^†[A-Za-z_]\w*(\.[\w-]+)*$`) })

// expressionOps are the v1-rejected expression operators and their aliases.
var expressionOps = []string{"||", "&&", "<|>", "*>"}

// Path is a parsed `†kind.a.b` path.
type Path struct {
	Kind     string
	Segments []string // empty = the whole kind
}

// String renders the path in `†kind.a.b` form.
func (p Path) String() string {
	return PathPrefix + strings.Join(append([]string{p.Kind}, p.Segments...), ".")
}

// Dotted renders the segments as a write's `_path` ("a.b"; "" for the root).
func (p Path) Dotted() string { return strings.Join(p.Segments, ".") }

// IsReference reports whether s, as a whole, is a path (§1.6 grammar).
func IsReference(s string) bool { return pathRE().MatchString(s) }

// isExpression reports whether s looks like a v1-rejected expression: it
// starts with a path prefix and contains an expression operator.
func isExpression(s string) bool {
	if !strings.HasPrefix(strings.TrimSpace(s), PathPrefix) {
		return false
	}
	for _, op := range expressionOps {
		if strings.Contains(s, op) {
			return true
		}
	}
	return false
}

// ParsePath parses a path. Expressions give expression_unsupported; any other
// mismatch gives path_invalid.
func ParsePath(s string) (Path, error) {
	if isExpression(s) {
		return Path{}, errorf(CodeExpressionUnsupported, "expressions are not supported in v1: %q", s)
	}
	if !pathRE().MatchString(s) {
		return Path{}, errorf(CodePathInvalid, "not a path: %q", s)
	}
	parts := strings.Split(strings.TrimPrefix(s, PathPrefix), ".")
	return Path{Kind: parts[0], Segments: parts[1:]}, nil
}

// ParseOutputPath parses a path that will be written: syntax errors and the
// read-only kind `input` give path_not_writable (§4.9), expressions
// expression_unsupported.
func ParseOutputPath(s string) (Path, error) {
	p, err := ParsePath(s)
	if err != nil {
		if e, ok := err.(*Error); ok && e.Code == CodePathInvalid {
			return Path{}, errorf(CodePathNotWritable, "%s", e.Message)
		}
		return Path{}, err
	}
	if p.Kind == string(TypeInput) {
		return Path{}, errorf(CodePathNotWritable, "%s: input is read-only", s)
	}
	return p, nil
}

// readValue walks segments from root. A numeric segment indexes an array
// (-1 is the last element); on an object every segment is a key.
func readValue(root any, segs []string) (any, bool) {
	cur := root
	for _, s := range segs {
		switch t := cur.(type) {
		case *Object:
			v, ok := t.Get(s)
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, ok := arrayIndex(s, len(t))
			if !ok {
				return nil, false
			}
			cur = t[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// arrayIndex converts a segment to an index into an array of length n.
func arrayIndex(seg string, n int) (int, bool) {
	i, err := strconv.Atoi(seg)
	if err != nil {
		return 0, false
	}
	if i == -1 {
		i = n - 1
	}
	return i, i >= 0 && i < n
}
