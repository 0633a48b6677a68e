package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmtext "github.com/yuin/goldmark/text"

	"github.com/aitexteditor/aite/internal/testbook"
)

// The whole-process benchmarks of issue 21: each runs the aite binary and
// its baseline alternately (interleaved, so a busy machine disturbs both
// alike) on the same book file and reports the ratio of the medians, the
// median, fastest and slowest run of aite in ms, and its peak RSS as a
// multiple of the book's size.
//
//	go test ./cmd/aite -run XXX -bench CLI -benchtime 21x
//
// AITE_BENCH_BIN runs a prebuilt binary instead of building this one (to
// measure an older aite with the same harness); AITE_BENCH_SIZES lists the
// book sizes as multiples of testbook.NovelSize (default "1"; "1,2,4,8" is
// the growth curve).

var (
	benchBinOnce sync.Once
	benchBin     string
	benchBinErr  error
)

// aiteBinary returns the aite binary to time: AITE_BENCH_BIN or this
// package built into a temporary directory (once per test process).
func aiteBinary(b *testing.B) string {
	if p := os.Getenv("AITE_BENCH_BIN"); p != "" {
		return p
	}
	benchBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "aite-bench")
		if err != nil {
			benchBinErr = err
			return
		}
		benchBin = filepath.Join(dir, "aite")
		out, err := exec.Command("go", "build", "-o", benchBin, ".").CombinedOutput()
		if err != nil {
			benchBinErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if benchBinErr != nil {
		b.Fatal(benchBinErr)
	}
	return benchBin
}

// benchBook writes a book of m times NovelSize into a temporary directory.
func benchBook(b *testing.B, m int) (string, []byte) {
	src := testbook.Sized(b, m*testbook.NovelSize)
	path := filepath.Join(b.TempDir(), "novel.md")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		b.Fatal(err)
	}
	return path, src
}

// timing is one timed process run.
type timing struct {
	d time.Duration
}

// timeProcess runs a command to its end, its output going to /dev/null
// (no pipes to drain: the harness adds as little as it can to both
// subjects), and fails the benchmark if it fails.
func timeProcess(b *testing.B, name string, args ...string) timing {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer null.Close()
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = null, null
	t0 := time.Now()
	err = cmd.Run()
	d := time.Since(t0)
	if err != nil {
		b.Fatalf("%s %v: %v (run it by hand to see its output)", name, args, err)
	}
	return timing{d: d}
}

// peakRSS runs a command once under /usr/bin/time and returns its peak
// resident set in bytes (0 without GNU time). A process started straight
// from this one would report this process's resident set as its peak:
// Linux counts the memory a child shares with its parent until it
// executes the new program.
func peakRSS(b *testing.B, name string, args ...string) int64 {
	if _, err := os.Stat("/usr/bin/time"); err != nil {
		return 0
	}
	f, err := os.CreateTemp(b.TempDir(), "rss")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command("/usr/bin/time", append([]string{"-f", "%M", "-o", f.Name(), name}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	out, err := os.ReadFile(f.Name())
	if err != nil {
		b.Fatal(err)
	}
	kb, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		b.Fatalf("/usr/bin/time said %q", out)
	}
	return kb << 10
}

// stats holds the runs of one subject.
type stats []timing

func (s stats) durations() []time.Duration {
	out := make([]time.Duration, len(s))
	for i, r := range s {
		out[i] = r.d
	}
	slices.Sort(out)
	return out
}

func (s stats) median() time.Duration {
	d := s.durations()
	return d[len(d)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// report writes the metrics of subject against its baseline; rss is the
// subject's peak resident set (0: not measured).
func report(b *testing.B, subject, base stats, baseName string, size int, rss int64) {
	d := subject.durations()
	b.ReportMetric(float64(subject.median())/float64(base.median()), "ratio-to-"+baseName)
	b.ReportMetric(ms(d[len(d)/2]), "ms-median")
	b.ReportMetric(ms(d[0]), "ms-min")
	b.ReportMetric(ms(d[len(d)-1]), "ms-max")
	b.ReportMetric(ms(base.median()), baseName+"-ms")
	if rss > 0 {
		b.ReportMetric(float64(rss)/float64(size), "peak-rss/size")
	}
	b.ReportMetric(0, "ns/op") // the process times above are the figures
}

// cliCommands are the reading commands of the goal, on the novel: each
// finds, lists or reads something a writer asks for.
var cliCommands = []struct {
	name string
	args func(book string) []string
}{
	{"find", func(p string) []string { return []string{"find", p, "Симонов"} }},
	{"find-common", func(p string) []string { return []string{"find", p, "человек"} }},
	{"read", func(p string) []string { return []string{"read", p, "3:2.1", "--after", "2"} }},
	{"items", func(p string) []string { return []string{"items", p, "--limit", "50"} }},
	{"outline", func(p string) []string { return []string{"outline", p} }},
	{"cursor", func(p string) []string { return []string{"cursor", p, "--keywords", "Симонов", "--no-content"} }},
}

// BenchmarkCLI times each reading command on an unchanged book (its state
// and cache already written by an earlier command) against `grep -c` of a
// word on the same file, whole processes, interleaved.
func BenchmarkCLI(b *testing.B) {
	bin := aiteBinary(b)
	if _, err := exec.LookPath("grep"); err != nil {
		b.Skip("no grep on PATH")
	}
	for _, m := range testbook.Sizes(b) {
		path, src := benchBook(b, m)
		timeProcess(b, bin, "outline", path) // records the state (and the cache)
		for _, c := range cliCommands {
			b.Run(fmt.Sprintf("%s/%dx", c.name, m), func(b *testing.B) {
				var subject, base stats
				for i := 0; b.Loop(); i++ {
					if i%2 == 0 {
						base = append(base, timeProcess(b, "grep", "-c", "Симонов", path))
						subject = append(subject, timeProcess(b, bin, c.args(path)...))
					} else {
						subject = append(subject, timeProcess(b, bin, c.args(path)...))
						base = append(base, timeProcess(b, "grep", "-c", "Симонов", path))
					}
				}
				report(b, subject, base, "grep", len(src), peakRSS(b, bin, c.args(path)...))
			})
		}
	}
}

// goldmarkParser is goldmark's own parser with the extensions aite enables.
var goldmarkParser = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.Footnote)).Parser()

// BenchmarkCLIFirstRun times each reading command on a book aite has never
// seen (no state directory: every run parses the book, numbers its items
// and writes what it keeps beside it) against goldmark's parse of the same
// bytes in this process, interleaved.
func BenchmarkCLIFirstRun(b *testing.B) {
	bin := aiteBinary(b)
	for _, m := range testbook.Sizes(b) {
		path, src := benchBook(b, m)
		state := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".aite")
		for _, c := range cliCommands {
			b.Run(fmt.Sprintf("%s/%dx", c.name, m), func(b *testing.B) {
				var subject, base stats
				for b.Loop() {
					if err := os.RemoveAll(state); err != nil {
						b.Fatal(err)
					}
					subject = append(subject, timeProcess(b, bin, c.args(path)...))
					t0 := time.Now()
					goldmarkParser.Parse(gmtext.NewReader(src))
					base = append(base, timing{d: time.Since(t0)})
				}
				if err := os.RemoveAll(state); err != nil {
					b.Fatal(err)
				}
				report(b, subject, base, "goldmark", len(src), peakRSS(b, bin, c.args(path)...))
			})
		}
	}
}

// BenchmarkCLIEdit times `aite edit` replacing a paragraph of a book aite
// has read before (its cache holds the items and the search index, as
// after a find), whole processes, against `cp` of the same book (reading
// and writing the whole file once: the least any program that rewrites
// the book pays), interleaved. Each edit replaces the same paragraph with
// another text, so each one writes the book, its state, journal and cache.
func BenchmarkCLIEdit(b *testing.B) {
	bin := aiteBinary(b)
	if _, err := exec.LookPath("cp"); err != nil {
		b.Skip("no cp on PATH")
	}
	for _, m := range testbook.Sizes(b) {
		path, src := benchBook(b, m)
		timeProcess(b, bin, "find", path, "Симонов") // records the state and the cache with the index
		copyTo := filepath.Join(b.TempDir(), "copy.md")
		edit := func(i int) []string {
			return []string{"edit", path, "replace", "9:", "--no-backup", "--text",
				fmt.Sprintf("Mr. Bennet replied that he had not (edit %d).", i)}
		}
		b.Run(fmt.Sprintf("%dx", m), func(b *testing.B) {
			var subject, base stats
			for i := 0; b.Loop(); i++ {
				if i%2 == 0 {
					base = append(base, timeProcess(b, "cp", path, copyTo))
					subject = append(subject, timeProcess(b, bin, edit(i)...))
				} else {
					subject = append(subject, timeProcess(b, bin, edit(i)...))
					base = append(base, timeProcess(b, "cp", path, copyTo))
				}
			}
			report(b, subject, base, "cp", len(src), peakRSS(b, bin, edit(-1)...))
		})
	}
}
