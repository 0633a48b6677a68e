package document

import (
	"fmt"
	"strconv"
	"strings"
)

// Item IDs are stored (by the server's document store and by the state file
// beside a book) as comma-separated runs of consecutive IDs in document order:
// `1-40,57,41-56` is 1…40, then 57, then 41…56. A book keeps its IDs mostly in
// runs (only inserts break them), so a book of any size stays a few bytes
// unless heavily edited. The empty string is the empty list.

// FormatIDRuns writes ids as runs.
func FormatIDRuns(ids []int) string {
	var b strings.Builder
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(ids[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(ids[j]))
		}
		i = j + 1
	}
	return b.String()
}

// ParseIDRuns reads runs written by FormatIDRuns, which must hold exactly n IDs (so a damaged
// value can never make it allocate more); "" is nil.
func ParseIDRuns(s string, n int) ([]int, error) {
	ids, err := parseIDRuns(s, n)
	if err == nil && len(ids) != n {
		return nil, fmt.Errorf("item ids: %d stored for %d items", len(ids), n)
	}
	return ids, err
}

// ParseIDRunsUpTo is ParseIDRuns of runs holding at most n IDs.
func ParseIDRunsUpTo(s string, n int) ([]int, error) { return parseIDRuns(s, n) }

// ParseStoredIDs reads the item IDs a store keeps with a document row: the
// current list of count IDs when the row is at its snapshot's revision
// (current), else the snapshot's list, unique IDs below next.
func ParseStoredIDs(s string, current bool, count, next int) ([]int, error) {
	if current {
		return ParseIDRuns(s, count)
	}
	return ParseIDRunsUpTo(s, next-1)
}

func parseIDRuns(s string, n int) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	ids := make([]int, 0, min(n, 1<<16))
	for run := range strings.SplitSeq(s, ",") {
		lo, hi, err := parseRun(run)
		if err != nil {
			return nil, err
		}
		if hi-lo >= n-len(ids) {
			return nil, fmt.Errorf("item ids: more than %d stored", n)
		}
		for id := lo; id <= hi; id++ {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// parseRun reads `a` or `a-b` (0 < a < b).
func parseRun(run string) (lo, hi int, err error) {
	a, b, isRange := strings.Cut(run, "-")
	if lo, err = positive(a); err != nil {
		return 0, 0, fmt.Errorf("item ids: bad run %q: %w", run, err)
	}
	if !isRange {
		return lo, lo, nil
	}
	if hi, err = positive(b); err != nil {
		return 0, 0, fmt.Errorf("item ids: bad run %q: %w", run, err)
	}
	if hi <= lo {
		return 0, 0, fmt.Errorf("item ids: bad run %q: it must ascend", run)
	}
	return lo, hi, nil
}

// positive parses a decimal integer above zero, digits only.
func positive(s string) (int, error) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, fmt.Errorf("%q is not a positive integer", s)
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 1 {
		return 0, fmt.Errorf("%q is not a positive integer", s)
	}
	return v, nil
}
