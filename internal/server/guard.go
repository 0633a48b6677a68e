package server

import (
	"mime"
	"net"
	"net/http"
	"path"
	"slices"
	"strings"

	"github.com/aitexteditor/aite/internal/server/auth"
)

// The security chain: every request to the server, on every route (the
// /api/ap contract, and whatever else is registered on the server's mux,
// e.g. /mcp or the web app's files), passes the same checks, in this order,
// in Server.Handler:
//
//  1. Response headers: X-Content-Type-Options: nosniff and a default
//     Content-Security-Policy that allows nothing (defaultCSP); a handler
//     that serves something a browser renders sets its own policy, which
//     replaces the default.
//  2. The path must be clean: "//", "/./", "/../" answer the 404 envelope
//     (not the mux's redirect).
//  3. The Host header must name an allowed host (Guard.Hosts): without
//     auth, by default, only the loopback names, so a DNS-rebound name
//     reaches nothing → 403.
//  4. CORS headers and preflight answers, only under /api/ and only when
//     CORS is on (Guard.CORS).
//  5. Cross-origin protection (http.CrossOriginProtection): a browser's
//     unsafe request (POST…) from another origin is refused → 403, unless
//     the origin is a CORS-allowed one.
//  6. The route's Policy (Server.Route): the Bearer JWT when auth is on
//     (→ 401) unless the route is Public; a request body only of the
//     route's media types (default application/json) → else 400.
//
// A route opts in to nothing: registering it on the mux is enough for the
// strict default (auth, JSON bodies). Server.Route registers a route with a
// looser Policy. Ownership of chats, runs and documents is checked by the
// handlers through Server.visible (owner.go).

// Policy is what the security chain demands of a route beyond the rules
// every request meets. The zero value is the strict default: a Bearer JWT
// when auth is on, and request bodies of type application/json only.
type Policy struct {
	// Public routes are served without a Bearer JWT even when auth is on
	// (static files of the web app); the other checks still apply.
	Public bool
	// Bodies are the media types a request body may have (default
	// application/json; "application/*+json" matches any +json type).
	Bodies []string
}

// jsonBodies is the default of Policy.Bodies.
var jsonBodies = []string{"application/json", "application/*+json"}

// Guard configures the checks of the security chain.
type Guard struct {
	// Hosts are the Host names (without port) answered besides the loopback
	// names (localhost, *.localhost, 127.0.0.0/8, ::1); "*" answers any.
	// With auth on and no Hosts, any host is answered (a rebound page has no
	// token to send).
	Hosts []string
	// CORS turns the CORS headers on under /api/ (cors.enabled).
	CORS bool
	// Origins are the origins CORS allows and cross-origin protection
	// trusts (cors.allowedOrigins); with CORS on and none, any origin is
	// allowed: any web page may then drive the API.
	Origins []string
}

// defaultCSP forbids everything a browser could do with a response: no
// scripts, no styles, no frames, no plugins, and sandboxed (a viewport's
// HTML opened straight from the API runs nothing).
const defaultCSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'; sandbox"

// dataCSP is the policy of a file served by GET /data: images, styles and
// media of the file itself render (an SVG opened in a tab, a PDF in the
// app's frame), scripts never run (sandbox).
const dataCSP = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; media-src 'self'; " +
	"frame-ancestors 'self'; sandbox"

// Route registers handler for pattern (a net/http mux pattern) with policy
// p. Routes registered on the mux directly get the zero Policy.
func (s *Server) Route(pattern string, handler http.Handler, p Policy) {
	s.policies[pattern] = p
	s.mux.Handle(pattern, handler)
}

// guard returns the security chain in front of the mux.
func (s *Server) guard() http.Handler {
	g := s.opts.Guard
	cop := http.NewCrossOriginProtection()
	anyOrigin := g.CORS && (len(g.Origins) == 0 || slices.Contains(g.Origins, "*"))
	for _, o := range g.Origins {
		if o != "*" {
			_ = cop.AddTrustedOrigin(o) // checked by the config (config.Validate)
		}
	}
	// routed checks the route's bodies and serves it; authed does the same
	// after the Bearer check.
	routed := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := s.policy(r); !bodyAllowed(r, p) {
			writeError(w, http.StatusBadRequest, contentTypeMessage(p), nil)
			return
		}
		s.mux.ServeHTTP(w, r)
	})
	var authed http.Handler
	if s.opts.Auth != nil {
		authed = auth.Middleware(s.opts.Auth, routed, auth.WithDataTokenValidation(s.opts.DataTokenValidation),
			auth.WithDataPath("/api/ap/data"), auth.WithLogger(s.opts.Logger))
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Content-Security-Policy", defaultCSP)
		if !cleanPath(r.URL.Path) {
			writeError(w, http.StatusNotFound, "Not found", nil)
			return
		}
		if !s.hostAllowed(r.Host) {
			writeError(w, http.StatusForbidden, "Host not allowed: "+hostOnly(r.Host), nil)
			return
		}
		api := strings.HasPrefix(r.URL.Path, "/api/")
		if g.CORS && api && s.cors(w, r, anyOrigin) {
			return // a preflight, answered
		}
		if !(anyOrigin && api) {
			if err := cop.Check(r); err != nil {
				writeError(w, http.StatusForbidden, "Cross-origin request refused", nil)
				return
			}
		}
		if authed != nil && !s.policy(r).Public {
			authed.ServeHTTP(w, r)
			return
		}
		routed.ServeHTTP(w, r)
	})
}

// policy returns the Policy of the route that serves r.
func (s *Server) policy(r *http.Request) Policy {
	_, pattern := s.mux.Handler(r)
	return s.policies[pattern]
}

// cleanPath reports whether p is what the mux would clean it to (a
// trailing slash kept).
func cleanPath(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c == p
}

// hostOnly returns the host of a Host header without its port, lowercased.
func hostOnly(hostport string) string {
	h := hostport
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		h = host
	}
	return strings.ToLower(strings.Trim(h, "[]"))
}

// hostAllowed applies Guard.Hosts to a Host header.
func (s *Server) hostAllowed(hostport string) bool {
	hosts := s.opts.Guard.Hosts
	if slices.Contains(hosts, "*") || (len(hosts) == 0 && s.opts.Auth != nil) {
		return true
	}
	h := hostOnly(hostport)
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	if ip := net.ParseIP(h); ip != nil && ip.IsLoopback() {
		return true
	}
	for _, allowed := range hosts {
		if strings.EqualFold(strings.Trim(allowed, "[]"), h) {
			return true
		}
	}
	return false
}

// cors adds the CORS headers of an /api/ request and answers a preflight
// (it returns true then). Only allowed origins get them.
func (s *Server) cors(w http.ResponseWriter, r *http.Request, anyOrigin bool) bool {
	origin := r.Header.Get("Origin")
	h := w.Header()
	switch {
	case anyOrigin:
		h.Set("Access-Control-Allow-Origin", "*")
	case origin != "" && slices.Contains(s.opts.Guard.Origins, origin):
		h.Set("Access-Control-Allow-Origin", origin)
		h.Add("Vary", "Origin")
	default:
		return false
	}
	h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Last-Event-ID")
	h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS") // DELETE: codex entries
	h.Set("Access-Control-Expose-Headers", "Content-Disposition")
	if r.Method == http.MethodOptions {
		w.WriteHeader(http.StatusNoContent)
		return true
	}
	return false
}

// bodyAllowed reports whether the request's body is of one of the route's
// media types. Safe methods and an empty body without a Content-Type (read
// as {}) pass.
func bodyAllowed(r *http.Request, p Policy) bool {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return true
	}
	ct := r.Header.Get("Content-Type")
	if ct == "" && r.ContentLength == 0 {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	bodies := p.Bodies
	if len(bodies) == 0 {
		bodies = jsonBodies
	}
	for _, b := range bodies {
		if mt == b || (b == "application/*+json" && strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json")) {
			return true
		}
	}
	return false
}

// contentTypeMessage is the 400 message of a body of the wrong type.
func contentTypeMessage(p Policy) string {
	bodies := p.Bodies
	if len(bodies) == 0 {
		bodies = jsonBodies[:1]
	}
	return "Content-Type must be " + strings.Join(bodies, " or ")
}
