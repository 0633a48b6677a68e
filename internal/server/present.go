package server

import (
	"net/http"

	"github.com/aitexteditor/aite/internal/render"
)

// Presentation endpoints [EXT] (docs/server.md, "Endpoints of the web app"):
// the web app renders Markdown and diffs through the server instead of
// shipping a parser and a diff algorithm to the browser.
//
//	POST /api/ap/render {markdown: [string]}            → {html: [string]}
//	POST /api/ap/diff   {pairs: [{before, after}]}       → {html: [string]} (word-level: <del>, <ins>)
//
// Both take at most maxPresentItems entries in one body of at most
// MaxJSONBody bytes.
func (s *Server) registerPresent() {
	s.mux.HandleFunc("POST /api/ap/render", s.handleRender)
	s.mux.HandleFunc("POST /api/ap/diff", s.handleDiff)
}

// maxPresentItems bounds the entries of one /render or /diff request.
const maxPresentItems = 500

// presentResult is the data of /render and /diff: one HTML string per
// entry, in order.
type presentResult struct {
	HTML []string `json:"html"`
}

func (s *Server) handleRender(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Markdown []string `json:"markdown"`
	}
	if err := decodeRequestJSON(w, r, &body); err != nil {
		s.writeReqError(w, r, err)
		return
	}
	if err := checkPresentCount("markdown", body.Markdown == nil, len(body.Markdown)); err != nil {
		s.writeReqError(w, r, err)
		return
	}
	out := presentResult{HTML: make([]string, len(body.Markdown))}
	for i, md := range body.Markdown {
		out.HTML[i] = render.Markdown(md)
	}
	writeOK(w, out)
}

func (s *Server) handleDiff(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Pairs []struct {
			Before string `json:"before"`
			After  string `json:"after"`
		} `json:"pairs"`
	}
	if err := decodeRequestJSON(w, r, &body); err != nil {
		s.writeReqError(w, r, err)
		return
	}
	if err := checkPresentCount("pairs", body.Pairs == nil, len(body.Pairs)); err != nil {
		s.writeReqError(w, r, err)
		return
	}
	out := presentResult{HTML: make([]string, len(body.Pairs))}
	for i, p := range body.Pairs {
		out.HTML[i] = render.Diff(p.Before, p.After)
	}
	writeOK(w, out)
}

// checkPresentCount validates the list field of a presentation request.
func checkPresentCount(field string, missing bool, n int) error {
	switch {
	case missing:
		return invalidFields(map[string]string{field: reasonNotNull})
	case n > maxPresentItems:
		return badRequest("Too many entries in %s: the limit is %d", field, maxPresentItems)
	}
	return nil
}
