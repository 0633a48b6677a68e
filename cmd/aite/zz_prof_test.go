package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/aitexteditor/aite/internal/testbook"
)

func TestZZProfFirstRun(t *testing.T) {
	cmd := os.Getenv("ZZ_CMD")
	if cmd == "" {
		t.Skip()
	}
	src := testbook.Sized(t, testbook.NovelSize)
	dir := t.TempDir()
	path := filepath.Join(dir, "novel.md")
	os.WriteFile(path, src, 0o644)
	state := filepath.Join(dir, ".novel.md.aite")
	args := map[string][]string{"read": {"read", path, "3:2.1", "--after", "2"}, "find": {"find", path, "Симонов"}, "outline": {"outline", path}}[cmd]
	f, _ := os.Create("/tmp/first.cpu")
	pprof.StartCPUProfile(f)
	var tot time.Duration
	for range 40 {
		os.RemoveAll(state)
		t0 := time.Now()
		if code := executeContext(context.Background(), args, nil, io.Discard, io.Discard); code != 0 {
			t.Fatal(code)
		}
		tot += time.Since(t0)
	}
	pprof.StopCPUProfile()
	t.Log("mean", tot/40)
}
