package auth

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestCleanDataPath(t *testing.T) {
	tests := []struct {
		param, want string // want "" = ErrInvalidFile
	}{
		{"a.png", "a.png"},
		{"  a.png\t", "a.png"},
		{"/a.png", "a.png"},
		{"//a.png", "a.png"},
		{"/data/x.png", "data/x.png"},
		{"dir/./x.png", "dir/x.png"},
		{"dir//x.png", "dir/x.png"},
		{"dir/x.png/", "dir/x.png"},
		{"...", "..."},
		{"..a/b..", "..a/b.."},
		{"отчёт.png", "отчёт.png"},
		{"", ""},
		{"   ", ""},
		{"/", ""},
		{".", ""},
		{"./", ""},
		{"..", ""},
		{"../a", ""},
		{"/../a", ""},
		{"a/..", ""},
		{"a/../b", ""},
		{"a/../../b", ""},
		{"../", ""},  // "%2e%2e%2f" after the HTTP layer's single decoding
		{"../x", ""}, // "%2e%2e%2fx" decoded
		{"a\\b", ""},
		{"..\\x", ""},
		{"\\x.png", ""},
		{"a\x00b", ""},
	}
	for _, tc := range tests {
		t.Run(tc.param, func(t *testing.T) {
			got, err := CleanDataPath(tc.param)
			if tc.want == "" {
				if !errors.Is(err, ErrInvalidFile) || err.Error() != "Invalid file parameter" {
					t.Fatalf("CleanDataPath(%q) = %q, %v; want ErrInvalidFile", tc.param, got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("CleanDataPath(%q) = %q, %v; want %q", tc.param, got, err, tc.want)
			}
		})
	}
}

func TestResolveDataFile(t *testing.T) {
	root := t.TempDir()
	dataDir := filepath.Join(root, "data")
	write := func(rel string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("data/a.png")
	write("data/sub/b.txt")
	write("secret.txt")
	links := map[string]string{
		"data/link.png": "a.png",
		"data/linkdir":  "sub",
		"data/escape":   filepath.Join(root, "secret.txt"),
		"data/outdir":   root,
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Skip("symbolic links unavailable:", err)
		}
	}

	tests := []struct {
		rel  string
		want error // nil = resolved
	}{
		{"a.png", nil},
		{"sub/b.txt", nil},
		{"sub", ErrFileNotFound},
		{"missing.png", ErrFileNotFound},
		{"sub/missing.txt", ErrFileNotFound},
		{"a.png/x", ErrFileNotFound},
		{"link.png", ErrFileNotFound},
		{"linkdir/b.txt", ErrFileNotFound},
		{"escape", ErrFileNotFound},
		{"outdir/secret.txt", ErrFileNotFound},
		{"../secret.txt", ErrInvalidFilename},
		{"sub/../../secret.txt", ErrInvalidFilename},
		{".", ErrInvalidFilename},
		{"", ErrInvalidFilename},
	}
	for _, tc := range tests {
		t.Run(tc.rel, func(t *testing.T) {
			got, err := ResolveDataFile(dataDir, tc.rel)
			if tc.want == nil {
				if want := filepath.Join(dataDir, filepath.FromSlash(tc.rel)); err != nil || got != want {
					t.Fatalf("ResolveDataFile(%q) = %q, %v; want %q", tc.rel, got, err, want)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("ResolveDataFile(%q) = %q, %v; want %v", tc.rel, got, err, tc.want)
			}
		})
	}
}

func TestResolveDataFileThroughCleanDataPath(t *testing.T) {
	dataDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dataDir, "x.png"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	rel, err := CleanDataPath("/x.png")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ResolveDataFile(dataDir+string(filepath.Separator), rel); err != nil {
		t.Fatalf("absolute parameter, stripped: %v", err)
	}
}

func TestContentType(t *testing.T) {
	tests := []struct{ name, want string }{
		{"a.png", "image/png"},
		{"dir/A.PNG", "image/png"},
		{"photo.jpeg", "image/jpeg"},
		{"doc.pdf", "application/pdf"},
		{"table.csv", "text/csv; charset=utf-8"},
		{"blob.zzzunknown", "application/octet-stream"},
		{"noext", "application/octet-stream"},
	}
	for _, tc := range tests {
		if got := ContentType(tc.name); got != tc.want {
			t.Errorf("ContentType(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestContentDisposition(t *testing.T) {
	tests := []struct {
		name        string
		download    bool
		contentType string
		want        string
	}{
		{"отчёт.png", false, "image/png", "inline; filename*=UTF-8''%D0%BE%D1%82%D1%87%D1%91%D1%82.png"},
		{"отчёт.png", true, "image/png", "attachment; filename*=UTF-8''%D0%BE%D1%82%D1%87%D1%91%D1%82.png"},
		{"report.pdf", false, "application/pdf", "attachment; filename*=UTF-8''report.pdf"},
		{"t.csv", false, "text/csv; charset=utf-8", "attachment; filename*=UTF-8''t.csv"},
		{"Chart.PNG", false, "Image/PNG", "inline; filename*=UTF-8''Chart.PNG"},
		{"dir/a b.png", false, "image/png", "inline; filename*=UTF-8''a%20b.png"},
		{`q"u;o'te%.txt`, false, "text/plain", "attachment; filename*=UTF-8''q%22u%3Bo%27te%25.txt"},
		{"a\r\nSet-Cookie: x.gif", false, "image/gif", "inline; filename*=UTF-8''a%0D%0ASet-Cookie%3A%20x.gif"},
		{"ok!#$&+-.^_`|~.bin", false, "", "attachment; filename*=UTF-8''ok!#$&+-.^_`|~.bin"},
		{"", false, "image/png", "inline"},
	}
	for _, tc := range tests {
		if got := ContentDisposition(tc.name, tc.download, tc.contentType); got != tc.want {
			t.Errorf("ContentDisposition(%q, %v, %q) = %q, want %q", tc.name, tc.download, tc.contentType, got, tc.want)
		}
	}
}
