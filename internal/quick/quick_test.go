package quick

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aitexteditor/aite/internal/editor"
)

// cachedBook writes the sample book into a temporary folder and has the
// editor record its state and cache.
func cachedBook(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile("../../examples/zvezdochkin.md")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "book.md")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	s := editor.New()
	if _, err := s.Open(path); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(path); err != nil { // writes the cache
		t.Fatal(err)
	}
	return path
}

// A command that prints more than quick keeps prints it as it goes: the
// same bytes in the same order.
func TestBigOutputIsWrittenAsItGoes(t *testing.T) {
	book := cachedBook(t)
	for _, args := range [][]string{{"cursor", book, "--max-elements", "1"}, {"cursor", "--json", book},
		{"items", book, "--from", "1.1.p30"}, {"find", book, "Варя"}} {
		var kept, kOut bytes.Buffer
		code, ok := Run(args, &kept, &kOut)
		if !ok || code != 0 {
			t.Fatalf("%v: not answered (%v %d)", args, ok, code)
		}
		old := commitAt
		commitAt = 64
		var streamed, sOut bytes.Buffer
		code, ok = Run(args, &streamed, &sOut)
		commitAt = old
		if !ok || code != 0 || kept.String() != streamed.String() || kOut.String() != sOut.String() {
			t.Errorf("%v: kept and streamed output differ", args)
		}
	}
}

// A write that fails once the output is being written is reported as the
// ordinary path reports it: exit code 2 and the cause on standard error.
func TestFailedWriteIsReported(t *testing.T) {
	book := cachedBook(t)
	old := commitAt
	commitAt = 64
	defer func() { commitAt = old }()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"cursor", book}, "aite: write output: "},
		{[]string{"cursor", "--json", book}, `"error": "write output: `},
	} {
		var errOut bytes.Buffer
		code, ok := Run(tc.args, failingWriter{}, &errOut)
		if !ok || code != 2 || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%v: %v %d %q", tc.args, ok, code, errOut.String())
		}
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, os.ErrClosed }
