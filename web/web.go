// Package web is aite's web app: plain ES modules, CSS and two HTML pages,
// embedded into the binary, with no build step. Handler serves them; the
// app talks to the server only through the public HTTP API under /api/ap.
//
// Every page is served with a strict Content-Security-Policy (scripts,
// styles, images and connections from the same origin only; no inline
// script) and X-Content-Type-Options: nosniff. The one exception is
// frame.html, the host of frontend-tool viewports: it is sandboxed by its
// own CSP (an opaque origin that cannot reach the app's storage or the API
// with the user's token) and may run the viewport's inline scripts.
package web

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"
)

//go:embed static
var static embed.FS

// AppCSP is the Content-Security-Policy of the app's pages and assets.
const AppCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
	"connect-src 'self'; frame-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// FrameCSP is the Content-Security-Policy of frame.html, the viewport host:
// sandboxed (no same origin, no top navigation, no popups), inline scripts
// and styles of the viewport allowed, nothing loaded from anywhere.
const FrameCSP = "sandbox allow-scripts allow-forms; default-src 'none'; script-src 'unsafe-inline'; " +
	"style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'"

// FS returns the app's files (index.html, frame.html, assets/…).
func FS() fs.FS {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embedded directory exists
	}
	return sub
}

// Handler serves the app: GET / is index.html, GET /frame.html the
// viewport host, GET /assets/… the scripts, styles and icons. Everything
// else is not found (nil handled: the caller decides). Responses carry an
// ETag of their content and Cache-Control: no-cache, so a new binary's
// assets are picked up at once and unchanged ones are not sent again.
func Handler() http.Handler {
	files := FS()
	etags := map[string]string{}
	_ = fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, err := fs.ReadFile(files, p); err == nil {
				sum := sha256.Sum256(b)
				etags[p] = `"` + hex.EncodeToString(sum[:8]) + `"`
			}
		}
		return nil
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, ok := fileOf(r.URL.Path)
		etag := etags[name]
		if !ok || etag == "" || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		if name == "frame.html" {
			h.Set("Content-Security-Policy", FrameCSP)
		} else {
			h.Set("Content-Security-Policy", AppCSP)
			h.Set("X-Frame-Options", "DENY")
		}
		h.Set("Cache-Control", "no-cache")
		h.Set("ETag", etag)
		if ct := mime.TypeByExtension(path.Ext(name)); ct != "" {
			h.Set("Content-Type", ct)
		}
		if match := r.Header.Get("If-None-Match"); match == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		b, err := fs.ReadFile(files, name)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		if r.Method == http.MethodHead {
			return
		}
		_, _ = w.Write(b)
	})
}

// IsAppPath reports whether Handler serves the URL path p: "/",
// "/frame.html" and everything under "/assets/".
func IsAppPath(p string) bool {
	_, ok := fileOf(p)
	return ok
}

// fileOf maps a URL path onto a file of FS.
func fileOf(p string) (string, bool) {
	switch {
	case p == "/" || p == "/index.html":
		return "index.html", true
	case p == "/frame.html":
		return "frame.html", true
	case strings.HasPrefix(p, "/assets/") && !strings.Contains(p, ".."):
		return strings.TrimPrefix(p, "/"), true
	}
	return "", false
}

// App is the web app as the server mounts it: the handler and the paths it
// serves.
type App struct{ h func() http.Handler }

// NewApp returns the web app. Its handler (which hashes every file for
// its ETag) is made on the first request, not by every aite command that
// only builds its command line.
func NewApp() App { return App{h: sync.OnceValue(Handler)} }

// ServeHTTP implements http.Handler.
func (a App) ServeHTTP(w http.ResponseWriter, r *http.Request) { a.h().ServeHTTP(w, r) }

// Serves reports whether the app serves the URL path p (IsAppPath).
func (App) Serves(p string) bool { return IsAppPath(p) }
