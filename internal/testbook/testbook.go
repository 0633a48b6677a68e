// Package testbook gives tests and benchmarks the real public-domain books
// of ../shared/data/books (read in place, never copied into the repository)
// and a large book generated deterministically from them.
package testbook

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// Dir returns the books folder, found relative to this source file so that
// any package's tests can use it.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "data", "books")
}

// Books returns the real books by file name, or skips the test with a
// clear message when the shared data folder is absent.
func Books(tb testing.TB) map[string][]byte {
	tb.Helper()
	files, _ := filepath.Glob(filepath.Join(Dir(), "*.md"))
	if len(files) == 0 {
		tb.Skipf("no books in %s: the shared data folder is not beside the checkout", Dir())
	}
	out := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		out[filepath.Base(f)] = b
	}
	return out
}

// Big returns a book of at least size bytes made by repeating the real
// books as parts of one volume: each copy's headings are pushed one level
// down under a `# Part N` heading, so the outline stays meaningful.
func Big(tb testing.TB, size int) []byte {
	tb.Helper()
	books := Books(tb)
	names := make([]string, 0, len(books))
	for n := range books {
		names = append(names, n)
	}
	sort.Strings(names)
	var out bytes.Buffer
	out.WriteString("# Collected works\n\n")
	for part := 1; out.Len() < size; part++ {
		for _, n := range names {
			fmt.Fprintf(&out, "# Part %d\n\n", part)
			out.Write(demote(books[n]))
			out.WriteString("\n")
		}
	}
	return out.Bytes()
}

// NovelSize is the size of the novel the performance goals are stated for
// (issue 21): 5.6 MB, built from the real books by Sized; the growth curve
// uses 2, 4 and 8 times it.
const NovelSize = 5_600_000

// Sized returns a book of about size bytes (at most size, less only by the
// rest of one paragraph): Big cut after the last paragraph break at or
// before size, so the book ends with a whole paragraph.
func Sized(tb testing.TB, size int) []byte {
	tb.Helper()
	b := Big(tb, size)
	if i := bytes.LastIndex(b[:size], []byte("\n\n")); i > 0 {
		return b[:i+1]
	}
	return b
}

// demote adds one `#` to every ATX heading line (up to level 6).
func demote(src []byte) []byte {
	lines := bytes.SplitAfter(src, []byte("\n"))
	var out bytes.Buffer
	for _, l := range lines {
		if bytes.HasPrefix(l, []byte("#")) && !bytes.HasPrefix(l, []byte("######")) {
			out.WriteByte('#')
		}
		out.Write(l)
	}
	return out.Bytes()
}

// Sizes returns the book sizes a growth benchmark runs, as multiples of
// NovelSize: AITE_BENCH_SIZES ("1,2,4,8" is the growth curve), default 1.
func Sizes(tb testing.TB) []int {
	tb.Helper()
	spec := os.Getenv("AITE_BENCH_SIZES")
	if spec == "" {
		return []int{1}
	}
	var out []int
	for _, f := range strings.Split(spec, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			tb.Fatalf("AITE_BENCH_SIZES: %q is not a positive multiple", f)
		}
		out = append(out, n)
	}
	return out
}
