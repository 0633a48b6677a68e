package web_test

import (
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/aitexteditor/aite/web"
)

func get(t *testing.T, h http.Handler, path string, header map[string]string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

func TestHandlerServesTheAppWithItsPolicies(t *testing.T) {
	h := web.Handler()
	for path, want := range map[string]string{"/": "text/html; charset=utf-8", "/index.html": "text/html; charset=utf-8",
		"/assets/js/main.js": "text/javascript; charset=utf-8", "/assets/app.css": "text/css; charset=utf-8",
		"/assets/icon.svg": "image/svg+xml", "/frame.html": "text/html; charset=utf-8"} {
		resp := get(t, h, path, nil)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != want {
			t.Errorf("%s: %d %q, want 200 %q", path, resp.StatusCode, resp.Header.Get("Content-Type"), want)
		}
		if resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("Cache-Control") != "no-cache" {
			t.Errorf("%s: headers %v", path, resp.Header)
		}
		csp := resp.Header.Get("Content-Security-Policy")
		if path == "/frame.html" {
			if csp != web.FrameCSP || !strings.HasPrefix(csp, "sandbox allow-scripts allow-forms;") {
				t.Errorf("frame.html CSP %q", csp)
			}
		} else if csp != web.AppCSP || strings.Contains(csp, "unsafe") {
			t.Errorf("%s CSP %q", path, csp)
		}
	}
	// Unchanged files are not sent again.
	first := get(t, h, "/assets/js/main.js", nil)
	etag := first.Header.Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	if again := get(t, h, "/assets/js/main.js", map[string]string{"If-None-Match": etag}); again.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match: %d", again.StatusCode)
	}
	for _, path := range []string{"/assets/nope.js", "/assets/../web.go", "/api/ap/agents", "/secret", "/static/index.html"} {
		if resp := get(t, h, path, nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", path, resp.StatusCode)
		}
		if web.IsAppPath(path) && path != "/assets/nope.js" {
			t.Errorf("IsAppPath(%q)", path)
		}
	}
	if !web.IsAppPath("/") || !web.IsAppPath("/assets/js/api.js") || web.IsAppPath("/api/ap/documents") {
		t.Error("IsAppPath")
	}
}

var inlineHandler = regexp.MustCompile(`\son[a-z]+=`)

// The app's pages load nothing inline (the CSP forbids it), and every
// module the app imports is preloaded and served.
func TestPagesHaveNoInlineCode(t *testing.T) {
	files := web.FS()
	index, err := fs.ReadFile(files, "index.html")
	if err != nil {
		t.Fatal(err)
	}
	page := string(index)
	if strings.Contains(page, "<script>") || strings.Contains(page, "style=") || inlineHandler.MatchString(page) {
		t.Error("index.html has inline code")
	}
	mods, _ := fs.Glob(files, "assets/js/*.js")
	for _, m := range mods {
		if !strings.Contains(page, `"/`+m+`"`) {
			t.Errorf("index.html does not load %s", m)
		}
	}
	resp := get(t, web.Handler(), "/frame.html", nil)
	body, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(body), "viewport_ready") {
		t.Error("frame.html does not announce itself")
	}
}
