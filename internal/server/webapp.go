package server

import "net/http"

// WebApp is the web app served next to the API (package web): GET and HEAD
// requests for the paths it Serves go to it, outside the API's auth (the
// app's pages hold no data; the app signs in to the API itself), and
// everything else goes to the API handler, whose 404 envelope answers
// unknown paths as before.
type WebApp interface {
	http.Handler
	Serves(path string) bool
}

// withWeb puts the web app of Options.Web in front of api.
func (s *Server) withWeb(api http.Handler) http.Handler {
	app := s.opts.Web
	if app == nil {
		return api
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if (r.Method == http.MethodGet || r.Method == http.MethodHead) && app.Serves(r.URL.Path) {
			app.ServeHTTP(w, r)
			return
		}
		api.ServeHTTP(w, r)
	})
}
