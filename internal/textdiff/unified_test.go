package textdiff

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// numbered returns lines "line 1" ... "line n".
func numbered(n int) []string {
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprintf("line %d", i+1)
	}
	return s
}

// edit returns lines with the 1-based line i replaced by repl.
func edit(lines []string, i int, repl ...string) []string {
	return slices.Concat(lines[:i-1], repl, lines[i:])
}

// text joins lines, each ended by "\n".
func text(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// hunk100 is the hunk for "line i" changed to "LINE i" in numbered lines.
func hunk100(i int) string {
	var b strings.Builder
	lo, hi := max(1, i-3), min(100, i+3)
	fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", lo, hi-lo+1, lo, hi-lo+1)
	for k := lo; k <= hi; k++ {
		if k == i {
			fmt.Fprintf(&b, "-line %d\n+LINE %d\n", k, k)
		} else {
			fmt.Fprintf(&b, " line %d\n", k)
		}
	}
	return b.String()
}

type unifiedCase struct {
	name     string
	old, new string
	context  int
	want     string // without the "--- a\n+++ b\n" headers
}

func unifiedCases() []unifiedCase {
	l := numbered(100)
	base := text(l)
	up := func(i int) []string { return edit(l, i, "LINE "+strconv.Itoa(i)) }
	return []unifiedCase{
		{"equal", base, base, 3, ""},
		{"both empty", "", "", 3, ""},
		{"empty old", "", "a\nb\n", 3, "@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{"empty new", "a\nb\n", "", 3, "@@ -1,2 +0,0 @@\n-a\n-b\n"},
		{"middle line of 100", base, text(up(50)), 3, hunk100(50)},
		{"first line", base, text(up(1)), 3, hunk100(1)},
		{"last line", base, text(up(100)), 3, hunk100(100)},
		{"two hunks", base, text(edit(up(20), 80, "LINE 80")), 3, hunk100(20) + hunk100(80)},
		{"merged hunk", base, text(edit(up(50), 55, "LINE 55")), 3,
			"@@ -47,12 +47,12 @@\n line 47\n line 48\n line 49\n-line 50\n+LINE 50\n" +
				" line 51\n line 52\n line 53\n line 54\n-line 55\n+LINE 55\n line 56\n line 57\n line 58\n"},
		{"gap of 6 merges", base, text(edit(up(50), 57, "LINE 57")), 3,
			"@@ -47,14 +47,14 @@\n line 47\n line 48\n line 49\n-line 50\n+LINE 50\n" +
				" line 51\n line 52\n line 53\n line 54\n line 55\n line 56\n-line 57\n+LINE 57\n line 58\n line 59\n line 60\n"},
		{"gap of 7 splits", base, text(edit(up(50), 58, "LINE 58")), 3, hunk100(50) + hunk100(58)},
		{"insert and delete", "a\nb\nc\nd\n", "a\nx\nb\nd\n", 3, "@@ -1,4 +1,4 @@\n a\n+x\n b\n-c\n d\n"},
		{"no newline old", "a\nb", "a\nb\n", 3,
			"@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"},
		{"no newline new", "a\nb\nc\n", "a\nX\nc", 3,
			"@@ -1,3 +1,3 @@\n a\n-b\n-c\n+X\n+c\n\\ No newline at end of file\n"},
		{"no newline both", "a\nb", "a\nc", 3,
			"@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"},
		{"no newline both in context", "a\nb\nc", "A\nb\nc", 3,
			"@@ -1,3 +1,3 @@\n-a\n+A\n b\n c\n\\ No newline at end of file\n"},
		{"only newline added", "a", "a\n", 3, "@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n"},
		{"crlf", "a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n", 3, "@@ -1,3 +1,3 @@\n a\r\n-b\r\n+B\r\n c\r\n"},
		{"crlf to lf", "a\r\nb\r\n", "a\nb\r\n", 3, "@@ -1,2 +1,2 @@\n-a\r\n+a\n b\r\n"},
		{"cyrillic", "Глава 1\nПривет, мир\nКонец\n", "Глава 1\nЗдравствуй, мир\nКонец\n", 3,
			"@@ -1,3 +1,3 @@\n Глава 1\n-Привет, мир\n+Здравствуй, мир\n Конец\n"},
		{"invalid utf-8", "ok\n\xff\xfe bad\nend\n", "ok\n\xc3\x28\nend\n", 3,
			"@@ -1,3 +1,3 @@\n ok\n-\xff\xfe bad\n+\xc3\x28\n end\n"},
		{"context 0", base, text(edit(edit(up(50), 70, "line 70", "inserted"), 30)), 0,
			"@@ -30 +29,0 @@\n-line 30\n@@ -50 +49 @@\n-line 50\n+LINE 50\n@@ -70,0 +70 @@\n+inserted\n"},
		{"context 1 gap 2 merges", base, text(edit(up(10), 13, "LINE 13")), 1,
			"@@ -9,6 +9,6 @@\n line 9\n-line 10\n+LINE 10\n line 11\n line 12\n-line 13\n+LINE 13\n line 14\n"},
		{"context 1 gap 3 splits", base, text(edit(up(10), 14, "LINE 14")), 1,
			"@@ -9,3 +9,3 @@\n line 9\n-line 10\n+LINE 10\n line 11\n@@ -13,3 +13,3 @@\n line 13\n-line 14\n+LINE 14\n line 15\n"},
		{"huge context", "a\nb\nc\n", "a\nB\nc\n", 1 << 62, "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"negative context", "a\nb\nc\n", "a\nB\nc\n", -1, "@@ -2 +2 @@\n-b\n+B\n"},
		{"blank lines", "\n\n\n", "\n\n", 3, "@@ -1,3 +1,2 @@\n \n \n-\n"},
		{"repeated line inserted", "x\ny\ny\nz\n", "x\ny\ny\ny\nz\n", 3, "@@ -1,4 +1,5 @@\n x\n y\n y\n+y\n z\n"},
		{"run slides to the changed end", "a\nc\nc", "a\nc\nc\nc\n", 3,
			"@@ -1,3 +1,4 @@\n a\n c\n-c\n\\ No newline at end of file\n+c\n+c\n"},
		{"paragraph inserted", "p\n\nq\n\nr\n", "p\n\nq\n\nnew\n\nr\n", 3,
			"@@ -2,4 +2,6 @@\n \n q\n \n+new\n+\n r\n"},
	}
}

func TestUnified(t *testing.T) {
	for _, tc := range unifiedCases() {
		t.Run(tc.name, func(t *testing.T) {
			got := Unified("a", "b", []byte(tc.old), []byte(tc.new), tc.context)
			want := tc.want
			if want != "" {
				want = "--- a\n+++ b\n" + want
			}
			if got != want {
				t.Errorf("Unified:\n%s\nwant:\n%s", got, want)
			}
			checkDiff(t, []byte(tc.old), []byte(tc.new), got)
			gnu, ok := gnuDiff(t, []byte(tc.old), []byte(tc.new), "-U", strconv.Itoa(max(tc.context, 0)))
			if !ok {
				t.Skip("GNU diff not in PATH")
			}
			if stripHeaders(got) != gnu {
				t.Errorf("differs from GNU diff:\n%s\nGNU:\n%s", stripHeaders(got), gnu)
			}
		})
	}
}

func TestLinesAndStat(t *testing.T) {
	tests := []struct {
		name           string
		old, new       string
		want           []Op
		added, removed int
	}{
		{"equal", "a\nb\n", "a\nb\n", nil, 0, 0},
		{"replace", "a\nb\nc\n", "a\nB\nc\n",
			[]Op{{Delete, 1, 1, []byte("b\n")}, {Insert, 2, 1, []byte("B\n")}}, 1, 1},
		{"insert at end without newline", "a\n", "a\nb",
			[]Op{{Insert, 1, 1, []byte("b")}}, 1, 0},
		{"delete first", "a\nb\n", "b\n", []Op{{Delete, 0, 0, []byte("a\n")}}, 0, 1},
		{"empty old", "", "x\r\ny\r\n",
			[]Op{{Insert, 0, 0, []byte("x\r\n")}, {Insert, 0, 1, []byte("y\r\n")}}, 2, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Lines([]byte(tc.old), []byte(tc.new))
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Lines = %s, want %s", opsString(got), opsString(tc.want))
			}
			added, removed := Stat([]byte(tc.old), []byte(tc.new))
			if added != tc.added || removed != tc.removed {
				t.Errorf("Stat = +%d -%d, want +%d -%d", added, removed, tc.added, tc.removed)
			}
		})
	}
}

func opsString(ops []Op) string {
	var b strings.Builder
	for _, op := range ops {
		fmt.Fprintf(&b, "{%v %d %d %q}", op.Kind, op.OldLine, op.NewLine, op.Text)
	}
	return b.String()
}

func TestOpKindString(t *testing.T) {
	for k, want := range map[OpKind]string{Delete: "delete", Insert: "insert", 0: "OpKind(?)"} {
		if got := k.String(); got != want {
			t.Errorf("OpKind(%d).String() = %q, want %q", k, got, want)
		}
	}
}
