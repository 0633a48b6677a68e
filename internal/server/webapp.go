package server

import "net/http"

// WebApp is the web app served next to the API (package web): its pages and
// assets at webPatterns, public (the pages hold no data; the app signs in to
// the API itself) but behind the rest of the security chain. The app sets
// its own Content-Security-Policy on what it serves, replacing the chain's
// deny-all default.
type WebApp interface {
	http.Handler
}

// webPatterns are the routes of the web app: index.html at "/", the
// viewport host and the assets. GET patterns also answer HEAD.
var webPatterns = []string{"GET /{$}", "GET /index.html", "GET /frame.html", "GET /assets/"}

// registerWeb mounts Options.Web (nothing when nil).
func (s *Server) registerWeb() {
	if s.opts.Web == nil {
		return
	}
	for _, p := range webPatterns {
		s.Route(p, s.opts.Web, Policy{Public: true})
	}
}
