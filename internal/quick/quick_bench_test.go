package quick

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/testbook"
)

// BenchmarkRun times the reading commands answered from the cache of the
// 5.6 MB novel, in process (no process start-up).
func BenchmarkRun(b *testing.B) {
	path := filepath.Join(b.TempDir(), "novel.md")
	if err := os.WriteFile(path, testbook.Sized(b, testbook.NovelSize), 0o644); err != nil {
		b.Fatal(err)
	}
	s := editor.New()
	if _, err := s.Open(path); err != nil { // writes the state
		b.Fatal(err)
	}
	if err := s.Close(path); err != nil { // writes the cache
		b.Fatal(err)
	}
	for _, args := range [][]string{{"find", path, "Симонов"}, {"outline", path}, {"items", path},
		{"read", path, "3:2.1", "--after", "2"}, {"cursor", path, "--keywords", "Симонов", "--no-content"}} {
		b.Run(args[0], func(b *testing.B) {
			for b.Loop() {
				if _, ok := Run(args, io.Discard, io.Discard); !ok {
					b.Fatal("not answered from the cache")
				}
			}
		})
	}
}
