package cli

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

// KindFilter parses --kind values (each may hold several, comma-separated;
// case-insensitive) into a filter for document.Range; nil keeps every item.
func KindFilter(values []string) (func(*document.Item) bool, error) {
	want := map[document.Kind]bool{}
	for _, v := range values {
		for _, name := range strings.Split(v, ",") {
			if name = strings.TrimSpace(name); name == "" {
				continue
			}
			k, ok := document.ParseKind(name)
			if !ok {
				return nil, Usagef("unknown kind %q; valid kinds: %s", name, kindNames())
			}
			want[k] = true
		}
	}
	if len(want) == 0 {
		return nil, nil
	}
	return func(it *document.Item) bool { return want[it.Kind] }, nil
}

func kindNames() string {
	s := make([]string, len(document.Kinds))
	for i, k := range document.Kinds {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}
