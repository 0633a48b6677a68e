// Package quick answers aite's reading commands (find, read, items,
// outline, cursor) on a book whose cache is valid, before the rest of the
// program has even started.
//
// Why before: Go initialises every package a program links before main
// runs, and aite links a Markdown parser, model clients, an MCP server,
// an HTTP server and SQLite, whose initialisation alone takes longer than
// `grep -c` needs to read a 5 MB book. A reading command on an unchanged
// book needs none of them: the book's items and index are in its cache
// (internal/bookcache), mapped into memory and read lazily. So this
// package's init runs the command when it can and exits; the packages it
// imports are light (no parser, no cobra, nothing about models, HTTP or
// storage; the architecture test keeps it so), and Go initialises them,
// and only what sorts before them, first.
//
// The command is the same code the ordinary command line runs
// (internal/reading: the same flags, checks, requests and output), and
// anything this path does not handle — another command, --help, a flag it
// does not know, a book without a valid cache, any error — leaves it
// without a byte written, so the ordinary command line runs the command
// and reports what it has to. A test runs every reading command both ways
// and compares their output byte for byte.
//
// AITE_QUICK=0 turns this path off (to compare, or to rule it out).
package quick

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"

	"github.com/spf13/pflag"

	"github.com/aitexteditor/aite/internal/bookcache"
	"github.com/aitexteditor/aite/internal/bookview"
	"github.com/aitexteditor/aite/internal/reading"
)

func init() {
	if os.Getenv("AITE_QUICK") == "0" {
		return
	}
	if code, ok := Run(os.Args[1:], os.Stdout, os.Stderr); ok {
		os.Exit(code)
	}
}

// Run runs args (the command line without the program name) as a reading
// command on a cached book and returns its exit code. ok is false, and
// nothing was written, when it cannot: then the caller runs the command
// the ordinary way.
func Run(args []string, stdout, stderr io.Writer) (code int, ok bool) {
	if len(args) > 0 && args[0] == "--json" && !slices.Contains(args, "--") { // the global flag before the command
		args = append(slices.Clone(args[1:]), "--json")
	}
	if len(args) == 0 {
		return 0, false
	}
	name := args[0]
	c := reading.NewCommand(name)
	if c == nil {
		return 0, false
	}
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	asJSON := fs.Bool("json", false, "")
	c.Register(fs)
	if fs.Parse(args[1:]) != nil {
		return 0, false // a flag error or --help: the ordinary path says it
	}
	pos := fs.Args()
	if min, max := reading.Args(name); len(pos) < min || max >= 0 && len(pos) > max {
		return 0, false
	}
	if c.Prepare(fs, pos[1:]) != nil || reading.Heavy(c) {
		return 0, false // an error to report, or the codex or a model to load
	}
	t := tape{stdout: stdout, stderr: stderr}
	err, ok := run(c, pos[0], *asJSON, &t)
	switch {
	case !ok && !t.committed:
		return 0, false
	case err == nil:
		err = t.flush()
	}
	if err != nil { // only after output was written: report it as the ordinary path does
		return report(stderr, err, *asJSON), true
	}
	return reading.ExitOK, true
}

// report writes an error the command met after its output began, as
// cli.ReportError does for errors other than pointer errors (the only
// ones that can come so late are failed writes), and returns the exit
// code.
func report(w io.Writer, err error, asJSON bool) int {
	if asJSON {
		_ = reading.WriteJSON(w, struct {
			Error string `json:"error"`
		}{err.Error()})
	} else {
		_, _ = io.WriteString(w, "aite: "+err.Error()+"\n")
	}
	var ioe *reading.IOError
	if errors.As(err, &ioe) {
		return reading.ExitIO
	}
	return reading.ExitUsage
}

// run opens the book from its cache and runs the command, its output on
// t. ok is false on any failure, also on a fault reading a mapped file
// that shrank meanwhile; err is the command's error.
func run(c reading.Command, book string, asJSON bool, t *tape) (err error, ok bool) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err, ok = fmt.Errorf("reading the book %s failed: %v", book, r), false
		}
	}()
	o, err := bookcache.Open(book)
	if err != nil {
		return err, false
	}
	if o.Index == nil { // the command may build the index the cache lacks
		defer reading.LimitMemoryMapped(book, o.Mapped())()
	}
	bv := bookview.New(o.Doc, o.Index)
	err = c.Run(reading.NewBook(bv, false), asJSON, t.stream(1), t.stream(2)) // the cache holds the recorded IDs
	if x := bv.Index(); err == nil && o.Index == nil && x != nil {
		_ = o.KeepIndex(x) // built for this command: kept for the next (best effort)
	}
	return err, err == nil
}

// tape keeps what a command writes to its two streams, in order, until
// the command succeeded, so that nothing is written when the ordinary
// path has to run the command instead. Output beyond commitAt is written
// as it comes (commit): a command that prints that much (a cursor over a
// whole book) has met every error it could meet but a failed write.
type tape struct {
	stdout, stderr io.Writer
	buf            []byte
	runs           []tapeRun
	committed      bool
}

// commitAt is the size of output kept before it is written as it comes (a
// variable for the tests).
var commitAt = 1 << 20

type tapeRun struct {
	stream, end int
}

// stream returns a writer onto stream n (1 or 2).
func (t *tape) stream(n int) io.Writer { return tapeWriter{t, n} }

type tapeWriter struct {
	t *tape
	n int
}

func (w tapeWriter) Write(p []byte) (int, error) {
	t := w.t
	if t.committed {
		if w.n == 2 {
			_, _ = t.stderr.Write(p)
			return len(p), nil
		}
		return t.stdout.Write(p)
	}
	if t.buf == nil {
		t.buf = make([]byte, 0, 32<<10)
	}
	t.buf = append(t.buf, p...)
	if k := len(t.runs); k > 0 && t.runs[k-1].stream == w.n {
		t.runs[k-1].end = len(t.buf)
	} else {
		t.runs = append(t.runs, tapeRun{w.n, len(t.buf)})
	}
	if len(t.buf) > commitAt {
		t.committed = true
		if err := t.flush(); err != nil {
			return len(p), err
		}
	}
	return len(p), nil
}

// flush writes what the tape kept to the real streams, in order, and
// returns the first failure to write standard output (one to standard
// error ends it too: there is nowhere left to report it).
func (t *tape) flush() error {
	start := 0
	for _, r := range t.runs {
		b := t.buf[start:r.end]
		start = r.end
		if r.stream == 2 {
			if _, err := t.stderr.Write(b); err != nil {
				break
			}
		} else if _, err := t.stdout.Write(b); err != nil {
			return &reading.IOError{Err: fmt.Errorf("write output: %w", err)}
		}
	}
	t.buf, t.runs = nil, nil
	return nil
}
