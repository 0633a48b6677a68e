package server

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aitexteditor/aite/internal/codex"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/pointer"
	"github.com/aitexteditor/aite/internal/render"
	"github.com/aitexteditor/aite/internal/search"
)

// The document endpoints a reader needs beyond § 2.2 [EXT], used by the web
// app (docs/server.md, "Endpoints of the web app"):
//
//	GET  /api/ap/document/layout    the size and type of every item (a virtual reading pane)
//	GET  /api/ap/document/locate    the index of the item a pointer names
//	GET  /api/ap/document/find      search: every word, exact phrase or ranked, with marked excerpts
//	GET  /api/ap/document/download  the current Markdown as a file
//	POST /api/ap/document/revert    restore an earlier revision as the next one
//
// and the parameters format=html of /document/items and revision of
// /document/raw.
func (s *Server) registerDocumentViews() {
	s.mux.HandleFunc("GET /api/ap/document/layout", s.getDocumentLayout)
	s.mux.HandleFunc("GET /api/ap/document/locate", s.getDocumentLocate)
	s.mux.HandleFunc("GET /api/ap/document/find", s.getDocumentFind)
	s.mux.HandleFunc("GET /api/ap/document/download", s.getDocumentDownload)
	s.mux.HandleFunc("POST /api/ap/document/revert", s.postDocumentRevert)
}

// formatParam reads the optional format parameter of /document/items:
// "html" adds the rendered item; "" or "markdown" does not.
func formatParam(w http.ResponseWriter, r *http.Request) (html, ok bool) {
	switch f := strings.TrimSpace(r.URL.Query().Get("format")); f {
	case "", "markdown":
		return false, true
	case "html":
		return true, true
	default:
		writeError(w, http.StatusBadRequest, "Invalid format: "+f+". Use markdown|html", nil)
		return false, false
	}
}

// listDepth counts the lists around an item ("List>ListItem>List>ListItem"
// is 2).
func listDepth(containers string) int {
	n := 0
	for c := range strings.SplitSeq(containers, ">") {
		if c == string(document.InList) {
			n++
		}
	}
	return n
}

// renderItem renders one item as HTML. An item inside a list is dedented
// first, so that a nested list item is not read as code; the app shows the
// nesting (depth) itself.
func renderItem(it editor.ItemView) string {
	md := it.Markdown
	if it.Containers != "" {
		md = dedent(md)
	}
	return render.Markdown(md)
}

// dedent removes the indentation all non-blank lines of s share.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	cut := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " "))
		if cut < 0 || n < cut {
			cut = n
		}
	}
	if cut <= 0 {
		return s
	}
	for i, l := range lines {
		lines[i] = l[min(cut, len(l)-len(strings.TrimLeft(l, " "))):]
	}
	return strings.Join(lines, "\n")
}

// documentLayout is the data of GET /document/layout: per item, the length
// of its Markdown in characters and its type as one letter (h heading, p
// paragraph, l list item, c code, t thematic break, x html), enough to
// estimate the height of any part of the book before loading it.
type documentLayout struct {
	DocumentID string `json:"documentId"`
	Revision   int    `json:"revision"`
	Total      int    `json:"total"`
	Sizes      []int  `json:"sizes"`
	Types      string `json:"types"`
}

// typeLetters maps item types onto the letters of documentLayout.Types.
var typeLetters = map[string]byte{"heading": 'h', "paragraph": 'p', "list_item": 'l', "code": 'c',
	"thematic_break": 't', "html": 'x'}

func (d *Documents) layout(ctx context.Context, id string) (documentLayout, error) {
	var out documentLayout
	err := d.locked(ctx, id, func(ds *docState) error {
		views, total, err := d.session.ItemsAt(id, 0, 1<<31-1)
		if err != nil {
			return err
		}
		out = documentLayout{DocumentID: id, Revision: ds.revision, Total: total, Sizes: make([]int, len(views))}
		types := make([]byte, len(views))
		for i, it := range views {
			out.Sizes[i] = utf8.RuneCountInString(it.Markdown)
			types[i] = typeLetters[itemType(it.Kind)]
		}
		out.Types = string(types)
		return nil
	})
	return out, err
}

func (s *Server) getDocumentLayout(w http.ResponseWriter, r *http.Request) {
	id, ok := s.documentIDParam(w, r)
	if !ok {
		return
	}
	out, err := s.opts.Documents.layout(r.Context(), id)
	if err != nil {
		s.documentFailure(w, r, id, err)
		return
	}
	writeOK(w, out)
}

// documentLocation is the data of GET /document/locate.
type documentLocation struct {
	DocumentID string `json:"documentId"`
	Revision   int    `json:"revision"`
	Index      int    `json:"index"`
	Pointer    string `json:"pointer"`
	Type       string `json:"type"`
}

func (s *Server) getDocumentLocate(w http.ResponseWriter, r *http.Request) {
	id, ok := s.documentIDParam(w, r)
	if !ok {
		return
	}
	ptr, ok := metaQuery(w, r, "pointer")
	if !ok {
		return
	}
	var out documentLocation
	err := s.opts.Documents.locked(r.Context(), id, func(ds *docState) error {
		it, err := s.opts.Documents.session.Resolve(id, ptr)
		if err != nil {
			return err
		}
		out = documentLocation{DocumentID: id, Revision: ds.revision, Index: it.Index, Pointer: it.Pointer.String(),
			Type: itemType(it.Kind)}
		return nil
	})
	if err != nil {
		s.documentQueryFailure(w, r, id, err)
		return
	}
	writeOK(w, out)
}

// documentQueryFailure answers an error of a document read that took
// arguments: 404 for an unknown document, 400 with the reason for a bad
// pointer, query or limit, else 500.
func (s *Server) documentQueryFailure(w http.ResponseWriter, r *http.Request, id string, err error) {
	var pe *document.PointerError
	switch {
	case errors.As(err, &pe), errors.Is(err, pointer.ErrSyntax), errors.Is(err, document.ErrNotFound),
		errors.Is(err, search.ErrEmptyQuery), errors.Is(err, search.ErrRange), errors.Is(err, search.ErrNotHeading),
		errors.Is(err, codex.ErrNotFound), errors.Is(err, codex.ErrAmbiguous):
		writeError(w, http.StatusBadRequest, err.Error(), nil)
	default:
		s.documentFailure(w, r, id, err)
	}
}

// The search modes of GET /document/find: the modes of `aite find`.
var findModes = map[string]editor.SearchMode{"all": editor.All, "exact": editor.Exact, "ranked": editor.Ranked,
	"semantic": editor.Semantic, "hybrid": editor.Hybrid, "auto": editor.MeaningAuto, "entry": "entry"}

// Limits of GET /document/find.
const defaultFindLimit = 100

// documentFound is the data of GET /document/find.
type documentFound struct {
	DocumentID   string `json:"documentId"`
	Revision     int    `json:"revision"`
	Mode         string `json:"mode"`
	Query        string `json:"query"`
	LimitReached bool   `json:"limitReached"`
	// RankedBy and Notice: how a search by meaning ranked in the end
	// (ranked by words when it could not) and why.
	RankedBy string     `json:"rankedBy,omitempty"`
	Notice   string     `json:"notice,omitempty"`
	Results  []foundHit `json:"results"`
}

// foundHit is one result: Excerpt is HTML, the matches in <mark>.
type foundHit struct {
	Index   int     `json:"index"`
	Pointer string  `json:"pointer"`
	Type    string  `json:"type"`
	Score   float64 `json:"score,omitempty"` // ranked only
	Matches int     `json:"matches"`
	Excerpt string  `json:"excerpt"`
}

// findArgs reads the parameters of GET /document/find.
func findArgs(q url.Values) (mode string, opt search.Options, err error) {
	mode = strings.TrimSpace(q.Get("mode"))
	if mode == "" {
		mode = "all"
	}
	if _, ok := findModes[mode]; !ok {
		return "", opt, badRequest("Invalid mode: %s. Use all|exact|ranked|semantic|hybrid|auto|entry", mode)
	}
	opt = search.Options{Limit: defaultFindLimit, Within: strings.TrimSpace(q.Get("within"))}
	if v := strings.TrimSpace(q.Get("limit")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > search.MaxLimit {
			return "", opt, badRequest("Invalid limit: %s. Use an integer from 1 to %d", v, search.MaxLimit)
		}
		opt.Limit = n
	}
	if v := strings.TrimSpace(q.Get("headings")); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return "", opt, badRequest("headings must be a boolean")
		}
		opt.IncludeHeadings = b
	}
	return mode, opt, nil
}

func (s *Server) getDocumentFind(w http.ResponseWriter, r *http.Request) {
	id, ok := s.documentIDParam(w, r)
	if !ok {
		return
	}
	query, ok := metaQuery(w, r, "q")
	if !ok {
		return
	}
	mode, opt, err := findArgs(r.URL.Query())
	if err != nil {
		s.writeReqError(w, r, err)
		return
	}
	out := documentFound{DocumentID: id, Mode: mode, Query: query, Results: []foundHit{}}
	var res []search.Result
	err = s.opts.Documents.locked(r.Context(), id, func(ds *docState) error {
		out.Revision = ds.revision
		var err error
		switch mode {
		case "entry":
			var hits editor.EntryHits
			hits, err = s.opts.Documents.session.FindEntry(id, query, opt)
			res = hits.Results
		case "all", "exact", "ranked":
			res, err = s.opts.Documents.session.Search(id, query, findModes[mode], opt)
		}
		return err
	})
	if meaning := mode == "semantic" || mode == "hybrid" || mode == "auto"; err == nil && meaning {
		// by meaning: the embedding calls run outside the document's lock
		var m editor.MeaningResult
		m, err = s.opts.Documents.session.SearchMeaning(r.Context(), id, query, findModes[mode], opt)
		if errors.Is(err, editor.ErrNoEmbeddings) {
			m, err = s.opts.Documents.session.SearchMeaning(r.Context(), id, query, editor.MeaningAuto, opt)
		}
		res, out.RankedBy, out.Notice = m.Results, string(m.Mode), m.Notice
	}
	for _, h := range res {
		hit := foundHit{Index: h.Index, Pointer: h.Pointer.String(), Type: itemType(h.Kind), Matches: h.Matches,
			Excerpt: render.Marks(h.Snippet)}
		if mode != "all" && mode != "exact" && mode != "entry" {
			hit.Score = h.Score
		}
		out.Results = append(out.Results, hit)
	}
	if err != nil {
		s.documentQueryFailure(w, r, id, err)
		return
	}
	out.LimitReached = len(out.Results) == opt.Limit
	writeOK(w, out)
}

// getDocumentDownload sends the current Markdown as a file (raw bytes, not
// an envelope): Content-Type text/markdown, attachment named after the
// document.
func (s *Server) getDocumentDownload(w http.ResponseWriter, r *http.Request) {
	id, ok := s.documentIDParam(w, r)
	if !ok {
		return
	}
	doc, err := s.opts.Store.GetDocument(r.Context(), id)
	if err != nil {
		s.documentFailure(w, r, id, err)
		return
	}
	name := doc.Name
	if !strings.HasSuffix(strings.ToLower(name), ".md") {
		name += ".md"
	}
	h := w.Header()
	h.Set("Content-Type", "text/markdown; charset=utf-8")
	h.Set("Content-Disposition", "attachment; filename*=UTF-8''"+url.PathEscape(name))
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(doc.Markdown)))
	_, _ = w.Write([]byte(doc.Markdown))
}

// revisionParam reads an optional revision parameter (integer >= 0); -1
// when absent.
func revisionParam(w http.ResponseWriter, r *http.Request) (int, bool) {
	v := strings.TrimSpace(r.URL.Query().Get("revision"))
	if v == "" {
		return -1, true
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		writeError(w, http.StatusBadRequest, "Invalid revision: "+v+". Use an integer >= 0", nil)
		return 0, false
	}
	return n, true
}

// rawAt answers GET /document/raw with a revision parameter: the text of
// that revision rebuilt from the current one.
func (s *Server) rawAt(w http.ResponseWriter, r *http.Request, id string, rev int) {
	text, _, err := s.opts.Documents.textAt(r.Context(), id, rev)
	if err != nil {
		s.revisionFailure(w, r, id, err)
		return
	}
	writeOK(w, documentRaw{DocumentID: id, Revision: rev, Markdown: text})
}

// revisionFailure answers an error of a revision request.
func (s *Server) revisionFailure(w http.ResponseWriter, r *http.Request, id string, err error) {
	if errors.Is(err, ErrRevision) || errors.Is(err, ErrRevisionUnrecorded) {
		writeError(w, http.StatusBadRequest, upperFirst(err.Error()), nil)
		return
	}
	s.documentFailure(w, r, id, err)
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// revertResult is the data of POST /document/revert: the document after
// the revert, and the revision it restored.
type revertResult struct {
	documentSummary
	RevertedTo int `json:"revertedTo"`
}

func (s *Server) postDocumentRevert(w http.ResponseWriter, r *http.Request) {
	var body struct {
		DocumentID string `json:"documentId"`
		Revision   *int   `json:"revision"`
	}
	if err := decodeRequestJSON(w, r, &body); err != nil {
		s.writeReqError(w, r, err)
		return
	}
	fields := map[string]string{}
	if strings.TrimSpace(body.DocumentID) == "" {
		fields["documentId"] = reasonRequired
	}
	if body.Revision == nil {
		fields["revision"] = reasonNotNull
	}
	if len(fields) > 0 {
		writeValidation(w, fields)
		return
	}
	id, ok := s.bodyDocument(w, r, body.DocumentID)
	if !ok {
		return
	}
	doc, err := s.opts.Documents.Revert(r.Context(), id, *body.Revision)
	if err != nil {
		s.revisionFailure(w, r, id, err)
		return
	}
	writeOK(w, revertResult{documentSummary: summarizeDocument(doc), RevertedTo: *body.Revision})
}
