package document

import (
	"hash/fnv"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestItemIDsEncoding(t *testing.T) {
	tests := []struct {
		ids  []int
		want string
	}{
		{nil, ""},
		{[]int{7}, "7"},
		{[]int{1, 2, 3, 4}, "1-4"},
		{[]int{1, 2, 3, 9, 4, 5}, "1-3,9,4-5"},
		{[]int{3, 2, 1}, "3,2,1"},
		{[]int{1, 2, 41, 3, 4, 5, 42, 43}, "1-2,41,3-5,42-43"},
	}
	for _, tt := range tests {
		got := FormatIDRuns(tt.ids)
		require.Equal(t, tt.want, got)
		back, err := ParseIDRuns(got, len(tt.ids))
		require.NoError(t, err)
		require.Equal(t, tt.ids, back)
	}
}

func TestItemIDsDecodingRejects(t *testing.T) {
	tests := []struct {
		in string
		n  int
	}{
		{"", 1},
		{"1-3", 2},
		{"1-3", 4},
		{"1,2", 1},
		{"0", 1},
		{"-1", 1},
		{"1-", 1},
		{"3-1", 3},
		{"2-2", 1},
		{"1,,2", 2},
		{" 1", 1},
		{"+1", 1},
		{"1-99999999999999999999", 1},
		{"1-1000000000000", 5},
		{"x", 1},
	}
	for _, tt := range tests {
		_, err := ParseIDRuns(tt.in, tt.n)
		require.Error(t, err, "%q for %d items", tt.in, tt.n)
	}
}

func FuzzItemIDs(f *testing.F) {
	f.Add("1-3,9,4-5", 6)
	f.Add("", 0)
	f.Add("2,1", 2)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 0 || n > 1<<16 {
			return
		}
		ids, err := ParseIDRuns(s, n)
		if err != nil {
			return
		}
		require.Len(t, ids, n)
		again, err := ParseIDRuns(FormatIDRuns(ids), n)
		require.NoError(t, err)
		require.True(t, slices.Equal(ids, again), "%q: %v then %v", s, ids, again)
	})
}

func TestItemHashIsFNV1a(t *testing.T) {
	for _, s := range []string{"", "a", "Абзац про Варю.\n", strings.Repeat("x", 1000)} {
		h := fnv.New64a()
		h.Write([]byte(s))
		if got, want := ItemHash([]byte(s)), h.Sum64(); got != want {
			t.Errorf("ItemHash(%q) = %x, want %x", s, got, want)
		}
	}
}
