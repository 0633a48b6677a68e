package reading

import (
	"strings"

	"github.com/aitexteditor/aite/internal/document"
)

// MaxLimit bounds the --limit of item lists.
const MaxLimit = 10000

// CheckLimit validates a --limit value.
func CheckLimit(n int) error {
	if n < 1 || n > MaxLimit {
		return Usagef("--limit must be between 1 and %d (got %d)", MaxLimit, n)
	}
	return nil
}

// ParseKinds parses --kind values (each may hold several, comma-separated;
// case-insensitive) into item kinds, without repeats; none means every kind.
func ParseKinds(values []string) ([]document.Kind, error) {
	var out []document.Kind
	seen := map[document.Kind]bool{}
	for _, v := range values {
		for name := range strings.SplitSeq(v, ",") {
			if name = strings.TrimSpace(name); name == "" {
				continue
			}
			k, ok := document.ParseKind(name)
			if !ok {
				return nil, Usagef("unknown kind %q; valid kinds: %s", name, NameList(document.Kinds))
			}
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out, nil
}

// NameList joins names of a string kind (document.Kinds, codex.Kinds) with
// commas, for the error that lists what a flag accepts.
func NameList[K ~string](names []K) string {
	s := make([]string, len(names))
	for i, k := range names {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}
