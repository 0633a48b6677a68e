package textdiff

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// testLines splits text after each "\n", independently of splitLines.
func testLines(text []byte) []string {
	var lines []string
	for _, l := range strings.SplitAfter(string(text), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// hunkLine is one body line of a hunk: its marker and its full text.
type hunkLine struct {
	marker byte
	text   string
}

// applyUnified applies a unified diff made by Unified to old, checking
// every context and deleted line and every hunk header count.
func applyUnified(old []byte, patch string) ([]byte, error) {
	src := testLines(old)
	rows := strings.Split(patch, "\n")
	if len(rows) < 3 || !strings.HasPrefix(rows[0], "--- ") || !strings.HasPrefix(rows[1], "+++ ") {
		return nil, errors.New("missing headers")
	}
	if rows[len(rows)-1] != "" {
		return nil, errors.New("patch does not end with a newline")
	}
	rows = rows[2 : len(rows)-1]
	var out []string
	pos := 0
	for len(rows) > 0 {
		var ol, oc, nl, nc int
		if _, err := fmt.Sscanf(fullRange(rows[0]), "@@ -%d,%d +%d,%d @@", &ol, &oc, &nl, &nc); err != nil {
			return nil, fmt.Errorf("bad hunk header %q: %v", rows[0], err)
		}
		body, rest := hunkBody(rows[1:])
		rows = rest
		start := startIndex(ol, oc)
		if start < pos || start > len(src) {
			return nil, fmt.Errorf("hunk at -%d,%d out of order", ol, oc)
		}
		out, pos = append(out, src[pos:start]...), start
		if len(out) != startIndex(nl, nc) {
			return nil, fmt.Errorf("new start %d, have %d lines", nl, len(out))
		}
		var err error
		if out, pos, err = applyBody(src, out, pos, body, oc, nc); err != nil {
			return nil, err
		}
	}
	out = append(out, src[pos:]...)
	return []byte(strings.Join(out, "")), nil
}

// startIndex converts a hunk range start to a 0-based line index.
func startIndex(line, count int) int {
	if count == 0 {
		return line
	}
	return line - 1
}

// fullRange rewrites a hunk header so that both ranges carry a count.
func fullRange(h string) string {
	f := strings.Fields(h)
	if len(f) != 4 {
		return h
	}
	for i := 1; i <= 2; i++ {
		if !strings.Contains(f[i], ",") {
			f[i] += ",1"
		}
	}
	return strings.Join(f, " ")
}

// hunkBody collects body lines up to the next hunk header.
func hunkBody(rows []string) ([]hunkLine, []string) {
	var body []hunkLine
	for len(rows) > 0 && !strings.HasPrefix(rows[0], "@@") {
		r := rows[0]
		rows = rows[1:]
		if r == `\ No newline at end of file` && len(body) > 0 {
			last := &body[len(body)-1]
			last.text = strings.TrimSuffix(last.text, "\n")
			continue
		}
		if r == "" {
			body = append(body, hunkLine{'?', ""})
			continue
		}
		body = append(body, hunkLine{r[0], r[1:] + "\n"})
	}
	return body, rows
}

// applyBody applies the body of one hunk.
func applyBody(src, out []string, pos int, body []hunkLine, oc, nc int) ([]string, int, error) {
	nOld, nNew := 0, 0
	for _, b := range body {
		switch b.marker {
		case ' ', '-':
			if pos >= len(src) || src[pos] != b.text {
				return nil, 0, fmt.Errorf("line %d: have %q, patch says %q", pos+1, at(src, pos), b.text)
			}
			pos, nOld = pos+1, nOld+1
			if b.marker == ' ' {
				out, nNew = append(out, b.text), nNew+1
			}
		case '+':
			out, nNew = append(out, b.text), nNew+1
		default:
			return nil, 0, fmt.Errorf("bad body line %q", b.text)
		}
	}
	if nOld != oc || nNew != nc {
		return nil, 0, fmt.Errorf("hunk counts -%d +%d, body has -%d +%d", oc, nc, nOld, nNew)
	}
	return out, pos, nil
}

func at(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "<EOF>"
}

// applyOps applies an edit script from Lines to old.
func applyOps(old []byte, ops []Op) ([]byte, error) {
	src := testLines(old)
	var out []string
	pos := 0
	for _, op := range ops {
		if op.OldLine < pos || op.OldLine > len(src) {
			return nil, fmt.Errorf("op %+v out of order", op)
		}
		out, pos = append(out, src[pos:op.OldLine]...), op.OldLine
		if len(out) != op.NewLine {
			return nil, fmt.Errorf("op %v at new line %d, have %d lines", op.Kind, op.NewLine, len(out))
		}
		switch op.Kind {
		case Delete:
			if pos >= len(src) || src[pos] != string(op.Text) {
				return nil, fmt.Errorf("delete %d: have %q, op says %q", pos, at(src, pos), op.Text)
			}
			pos++
		case Insert:
			out = append(out, string(op.Text))
		default:
			return nil, fmt.Errorf("bad op kind %v", op.Kind)
		}
	}
	out = append(out, src[pos:]...)
	return []byte(strings.Join(out, "")), nil
}

// gnuDiff runs GNU diff with args on old and new and returns its output
// without the two header lines; ok is false when diff is not installed.
func gnuDiff(t testing.TB, old, new []byte, args ...string) (out string, ok bool) {
	t.Helper()
	path, err := exec.LookPath("diff")
	if err != nil {
		return "", false
	}
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := os.WriteFile(a, old, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, new, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, append(append([]string{"-a"}, args...), a, b)...)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	raw, err := cmd.Output()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		t.Fatalf("diff: %v", err)
	}
	return stripHeaders(string(raw)), true
}

// stripHeaders drops the "---" and "+++" lines of a unified diff.
func stripHeaders(u string) string {
	for range 2 {
		if i := strings.IndexByte(u, '\n'); i >= 0 && (strings.HasPrefix(u, "---") || strings.HasPrefix(u, "+++")) {
			u = u[i+1:]
		}
	}
	return u
}

// checkDiff verifies that the patch and the edit script both turn old
// into new and that Stat agrees with the edit script.
func checkDiff(t testing.TB, old, new []byte, patch string) {
	t.Helper()
	if bytes.Equal(old, new) != (patch == "") {
		t.Fatalf("equal=%v but patch %q", bytes.Equal(old, new), patch)
	}
	if got, err := applyUnified(old, patch); patch != "" && (err != nil || !bytes.Equal(got, new)) {
		t.Fatalf("applying patch: err %v\nold %q\nnew %q\ngot %q\npatch:\n%s", err, old, new, got, patch)
	}
	ops := Lines(old, new)
	if got, err := applyOps(old, ops); err != nil || !bytes.Equal(got, new) {
		t.Fatalf("applying ops: err %v\nold %q\nnew %q\ngot %q", err, old, new, got)
	}
	added, removed := Stat(old, new)
	for _, op := range ops {
		if op.Kind == Insert {
			added--
		} else {
			removed--
		}
	}
	if added != 0 || removed != 0 {
		t.Fatalf("Stat disagrees with Lines by +%d -%d", added, removed)
	}
}
