package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/aitexteditor/aite/internal/codex"
	"github.com/aitexteditor/aite/internal/codex/assist"
	"github.com/aitexteditor/aite/internal/cursoragent"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/markdown"
)

// The codex and vector-index endpoints of a document [EXT] (docs/server.md,
// "The codex and search by meaning"):
//
//	GET    /api/ap/document/codex          the entries, with the items naming each
//	GET    /api/ap/document/codex/entry    one entry: names, forms, facts (as of an item with at=)
//	POST   /api/ap/document/codex/entry    add an entry, or replace the one with the body's id
//	DELETE /api/ap/document/codex/entry    remove an entry
//	POST   /api/ap/document/codex/merge    merge entries into one
//	POST   /api/ap/document/codex/build    find the entries in the text; withModel: the model's part
//	GET    /api/ap/document/codex/export   the codex as a Markdown appendix or JSON
//	POST   /api/ap/document/codex/import   entries from a codex, reference cards or an appendix
//	GET    /api/ap/document/index          the vector index's state
//	POST   /api/ap/document/index          embed what the index lacks
//
// Each runs under the document's lock; the codex and the vectors are kept
// in the document store (store.DocumentData).
func (s *Server) registerCodex() {
	s.mux.HandleFunc("GET /api/ap/document/codex", s.getCodex)
	s.mux.HandleFunc("GET /api/ap/document/codex/entry", s.getCodexEntry)
	s.mux.HandleFunc("POST /api/ap/document/codex/entry", s.postCodexEntry)
	s.mux.HandleFunc("DELETE /api/ap/document/codex/entry", s.deleteCodexEntry)
	s.mux.HandleFunc("POST /api/ap/document/codex/merge", s.postCodexMerge)
	s.mux.HandleFunc("POST /api/ap/document/codex/build", s.postCodexBuild)
	s.mux.HandleFunc("GET /api/ap/document/codex/export", s.getCodexExport)
	s.mux.HandleFunc("POST /api/ap/document/codex/import", s.postCodexImport)
	s.mux.HandleFunc("GET /api/ap/document/index", s.getDocumentIndex)
	s.mux.HandleFunc("POST /api/ap/document/index", s.postDocumentIndex)
}

// codexEntryView is an entry with how the book uses it.
type codexEntryView struct {
	codex.Entry
	Items int    `json:"items"`
	First string `json:"first,omitempty"`
}

// documentCodex is the data of GET /document/codex.
type documentCodex struct {
	DocumentID string           `json:"documentId"`
	Source     string           `json:"source"`
	Warning    string           `json:"warning,omitempty"`
	Entries    []codexEntryView `json:"entries"`
}

// noAppendixMsg answers (400) an import from a text without appendix
// sections, given in the request or, as errNoAppendix, found in the
// document under its lock.
const noAppendixMsg = "No appendix section (Characters, Places, Objects, Glossary, Timeline, Style guide) to import"

// errNoAppendix is the document's text without appendix sections: answered
// with noAppendixMsg.
var errNoAppendix = errors.New("codex import: the document has no appendix section")

// codexFailure answers an error of a codex call: 404 for an unknown
// document or entry, 400 for an invalid or ambiguous one (and for a bad
// pointer), else 500.
func (s *Server) codexFailure(w http.ResponseWriter, r *http.Request, id string, err error) {
	var pe *document.PointerError
	switch {
	case errors.Is(err, codex.ErrNotFound):
		writeError(w, http.StatusNotFound, err.Error(), nil)
	case errors.Is(err, codex.ErrInvalid), errors.Is(err, codex.ErrAmbiguous), errors.As(err, &pe):
		writeError(w, http.StatusBadRequest, err.Error(), nil)
	default:
		s.documentFailure(w, r, id, err)
	}
}

func (s *Server) getCodex(w http.ResponseWriter, r *http.Request) {
	id, ok := s.documentIDParam(w, r)
	if !ok {
		return
	}
	var kind codex.Kind
	if v := strings.TrimSpace(r.URL.Query().Get("kind")); v != "" {
		k, err := codex.ParseKind(v)
		if err != nil {
			writeError(w, http.StatusBadRequest, err.Error(), nil)
			return
		}
		kind = k
	}
	out := documentCodex{DocumentID: id, Entries: []codexEntryView{}}
	docs := s.opts.Documents
	err := docs.locked(r.Context(), id, func(*docState) error {
		c, info, err := docs.session.Codex(id)
		if err != nil {
			return err
		}
		uses, err := docs.session.CodexUses(id)
		if err != nil {
			return err
		}
		out.Source, out.Warning = info.Source, info.Warning
		for _, e := range c.Entries {
			if kind == "" || e.Kind == kind {
				out.Entries = append(out.Entries, codexEntryView{Entry: e, Items: uses[e.ID].Items, First: uses[e.ID].First})
			}
		}
		return nil
	})
	if err != nil {
		s.codexFailure(w, r, id, err)
		return
	}
	writeOK(w, out)
}

// codexEntryDetail is the data of GET /document/codex/entry.
type codexEntryDetail struct {
	DocumentID string           `json:"documentId"`
	Entry      codex.Entry      `json:"entry"`
	Uses       editor.EntryUses `json:"uses"`
	At         string           `json:"at,omitempty"`
	FactsAsOf  []codex.Fact     `json:"factsAsOf,omitempty"`
}

func (s *Server) getCodexEntry(w http.ResponseWriter, r *http.Request) {
	id, ok := s.documentIDParam(w, r)
	if !ok {
		return
	}
	ref, ok := metaQuery(w, r, "entry")
	if !ok {
		return
	}
	at := strings.TrimSpace(r.URL.Query().Get("at"))
	out := codexEntryDetail{DocumentID: id}
	docs := s.opts.Documents
	err := docs.locked(r.Context(), id, func(*docState) error {
		c, _, err := docs.session.Codex(id)
		if err != nil {
			return err
		}
		e, err := c.Find(ref)
		if err != nil {
			return err
		}
		uses, err := docs.session.CodexUses(id)
		if err != nil {
			return err
		}
		out.Entry, out.Uses = *e, uses[e.ID]
		if at != "" {
			facts, ptr, err := docs.session.FactsAsOf(id, e.ID, at)
			if err != nil {
				return err
			}
			out.At, out.FactsAsOf = ptr, append([]codex.Fact{}, facts...)
		}
		return nil
	})
	if err != nil {
		s.codexFailure(w, r, id, err)
		return
	}
	writeOK(w, out)
}

// bodyDocument reads the documentId of a JSON body and checks it like
// documentIDParam.
func (s *Server) bodyDocument(w http.ResponseWriter, r *http.Request, raw string) (string, bool) {
	if strings.TrimSpace(raw) == "" {
		writeValidation(w, map[string]string{"documentId": reasonRequired})
		return "", false
	}
	id, valid := uuidCanonical(raw)
	if !valid {
		writeError(w, http.StatusBadRequest, "documentId must be a valid UUID", nil)
		return "", false
	}
	if err := s.visibleDocument(r.Context(), id); err != nil {
		s.documentFailure(w, r, id, err)
		return "", false
	}
	return id, true
}

// updateCodex runs change on the document's codex under its lock and stores
// the result.
func (s *Server) updateCodex(r *http.Request, id string, change func(c *codex.Codex) error) error {
	docs := s.opts.Documents
	return docs.locked(r.Context(), id, func(*docState) error {
		c, _, err := docs.session.Codex(id)
		if err != nil {
			return err
		}
		if err := change(c); err != nil {
			return err
		}
		_, err = docs.session.SetCodex(id, c)
		return err
	})
}

func (s *Server) postCodexEntry(w http.ResponseWriter, r *http.Request) {
	var body struct {
		DocumentID string      `json:"documentId"`
		Entry      codex.Entry `json:"entry"`
	}
	if err := decodeRequestJSON(w, r, &body); err != nil {
		s.writeReqError(w, r, err)
		return
	}
	id, ok := s.bodyDocument(w, r, body.DocumentID)
	if !ok {
		return
	}
	e := body.Entry
	if e.Origin == "" || e.Origin == codex.FromText {
		e.Origin = codex.FromUser // an entry someone wrote is theirs: builds keep it
	}
	var out codex.Entry
	err := s.updateCodex(r, id, func(c *codex.Codex) error {
		if err := s.opts.Documents.session.CheckEvidence(id, &e); err != nil {
			return err
		}
		var stored *codex.Entry
		var err error
		if e.ID != "" {
			if _, ferr := c.Find(e.ID); ferr == nil {
				stored, err = c.Replace(e)
			} else {
				stored, err = c.Add(e)
			}
		} else {
			stored, err = c.Add(e)
		}
		if err == nil {
			out = *stored
		}
		return err
	})
	if err != nil {
		s.codexFailure(w, r, id, err)
		return
	}
	writeOK(w, out)
}

func (s *Server) deleteCodexEntry(w http.ResponseWriter, r *http.Request) {
	id, ok := s.documentIDParam(w, r)
	if !ok {
		return
	}
	ref, ok := metaQuery(w, r, "entry")
	if !ok {
		return
	}
	var gone codex.Entry
	err := s.updateCodex(r, id, func(c *codex.Codex) error {
		var err error
		gone, err = c.Remove(ref)
		return err
	})
	if err != nil {
		s.codexFailure(w, r, id, err)
		return
	}
	writeOK(w, map[string]any{"removed": gone})
}

func (s *Server) postCodexMerge(w http.ResponseWriter, r *http.Request) {
	var body struct {
		DocumentID string   `json:"documentId"`
		Into       string   `json:"into"`
		From       []string `json:"from"`
	}
	if err := decodeRequestJSON(w, r, &body); err != nil {
		s.writeReqError(w, r, err)
		return
	}
	if strings.TrimSpace(body.Into) == "" || len(body.From) == 0 {
		writeValidation(w, map[string]string{"into": reasonRequired, "from": "must name at least one entry"})
		return
	}
	id, ok := s.bodyDocument(w, r, body.DocumentID)
	if !ok {
		return
	}
	var out codex.Entry
	err := s.updateCodex(r, id, func(c *codex.Codex) error {
		e, err := c.Merge(body.Into, body.From...)
		if err == nil {
			e.Origin = codex.FromUser
			out = *e
		}
		return err
	})
	if err != nil {
		s.codexFailure(w, r, id, err)
		return
	}
	writeOK(w, out)
}

// codexBuildResult is the data of POST /document/codex/build.
type codexBuildResult struct {
	DocumentID string         `json:"documentId"`
	Entries    int            `json:"entries"`
	FromText   map[string]int `json:"fromText"`
	Model      *assist.Report `json:"model,omitempty"`
	Left       int            `json:"left,omitempty"`
	// Notice says why the model's part did not run.
	Notice string `json:"notice,omitempty"`
}

// maxModelEntries bounds what one build request lets the model read.
const maxModelEntries = 100

func (s *Server) postCodexBuild(w http.ResponseWriter, r *http.Request) {
	var body struct {
		DocumentID string `json:"documentId"`
		WithModel  bool   `json:"withModel"`
		Entries    int    `json:"entries"`
	}
	if err := decodeRequestJSON(w, r, &body); err != nil {
		s.writeReqError(w, r, err)
		return
	}
	if body.Entries < 0 || body.Entries > maxModelEntries {
		writeError(w, http.StatusBadRequest, "Invalid entries: "+strconv.Itoa(body.Entries)+". Use 1 to 100 (0: 10)", nil)
		return
	}
	id, ok := s.bodyDocument(w, r, body.DocumentID)
	if !ok {
		return
	}
	docs := s.opts.Documents
	out := codexBuildResult{DocumentID: id}
	err := docs.locked(r.Context(), id, func(*docState) error {
		c, rep, err := docs.session.BuildCodex(id)
		if err != nil {
			return err
		}
		if _, err := docs.session.SetCodex(id, c); err != nil {
			return err
		}
		out.Entries = c.Len()
		out.FromText = map[string]int{"candidates": len(rep.Candidates), "added": rep.Added, "updated": rep.Updated,
			"kept": rep.Kept, "removed": rep.Removed}
		return nil
	})
	if err == nil && body.WithModel {
		err = s.modelBuild(r, id, body.Entries, &out)
	}
	if err != nil {
		s.codexFailure(w, r, id, err)
		return
	}
	writeOK(w, out)
}

// modelBuild runs the model's part of a build on the default model (not
// under the document's lock: the cursor agent reads through the session's
// own lock, and the codex is stored after every entry).
func (s *Server) modelBuild(r *http.Request, id string, entries int, out *codexBuildResult) error {
	var ag *assist.Builder
	if s.opts.MCPCursorAgent != nil {
		if a := s.opts.MCPCursorAgent(); a != nil {
			a.Session = s.opts.Documents.session
			a.Store = cursoragent.Persistent{Tasks: s.opts.Store, Now: s.opts.Clock}
			ag = &assist.Builder{Agent: a, Book: id, Plans: assist.SessionPlans{Session: a.Session, Book: id}, MaxEntries: entries}
		}
	}
	if ag == nil {
		out.Notice = "the model's part did not run: no model is configured (the default model key)"
		return nil
	}
	if ag.MaxEntries == 0 {
		ag.MaxEntries = 10
	}
	plan, err := ag.Resume()
	if err != nil || plan == nil {
		if plan, err = ag.NewPlan(); err != nil {
			return err
		}
	}
	rep, err := ag.Run(r.Context(), plan)
	out.Model, out.Left = &rep, plan.Remaining()
	if c, _, cerr := s.opts.Documents.session.Codex(id); cerr == nil {
		out.Entries = c.Len()
	}
	return err
}

func (s *Server) getCodexExport(w http.ResponseWriter, r *http.Request) {
	id, ok := s.documentIDParam(w, r)
	if !ok {
		return
	}
	format := strings.TrimSpace(r.URL.Query().Get("format"))
	if format != "" && format != "md" && format != "json" {
		writeError(w, http.StatusBadRequest, "Invalid format: "+format+". Use md|json", nil)
		return
	}
	var c *codex.Codex
	err := s.opts.Documents.locked(r.Context(), id, func(*docState) error {
		var err error
		c, _, err = s.opts.Documents.session.Codex(id)
		return err
	})
	if err != nil {
		s.codexFailure(w, r, id, err)
		return
	}
	if format == "json" {
		data, err := codex.Marshal(c)
		if err != nil {
			s.writeInternal(w, r, err)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(data)
		return
	}
	w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
	_, _ = w.Write([]byte(codex.Markdown(c, codex.MarkdownOptions{Notes: r.URL.Query().Get("notes") == "true"})))
}

func (s *Server) postCodexImport(w http.ResponseWriter, r *http.Request) {
	var body struct {
		DocumentID string          `json:"documentId"`
		Codex      json.RawMessage `json:"codex"`
		Markdown   string          `json:"markdown"`
		Appendix   bool            `json:"appendix"`
		Replace    bool            `json:"replace"`
	}
	if err := decodeRequestJSON(w, r, &body); err != nil {
		s.writeReqError(w, r, err)
		return
	}
	id, ok := s.bodyDocument(w, r, body.DocumentID)
	if !ok {
		return
	}
	var in *codex.Codex
	switch {
	case len(body.Codex) > 0 && string(body.Codex) != "null":
		c, err := codex.Unmarshal(body.Codex)
		if err != nil {
			writeError(w, http.StatusBadRequest, err.Error(), nil)
			return
		}
		in = c
	case body.Markdown != "":
		in = codex.FromAppendix(markdown.Parse([]byte(body.Markdown)).Items())
	case body.Appendix: // read under the document's lock, from its current text
	default:
		writeValidation(w, map[string]string{"codex": "give codex, markdown or appendix"})
		return
	}
	if in == nil && !body.Appendix {
		writeError(w, http.StatusBadRequest, noAppendixMsg, nil)
		return
	}
	var added int
	skipped := []string{}
	var total int
	err := s.updateCodex(r, id, func(c *codex.Codex) error {
		if body.Appendix {
			src, err := s.opts.Documents.session.Source(id)
			if err != nil {
				return err
			}
			if in = codex.FromAppendix(markdown.Parse(src).Items()); in == nil {
				return errNoAppendix
			}
		}
		if body.Replace {
			*c = codex.Codex{Rejected: c.Rejected}
		}
		n, sk, err := c.Import(in)
		added, total = n, c.Len()
		skipped = append(skipped, sk...)
		return err
	})
	if errors.Is(err, errNoAppendix) {
		writeError(w, http.StatusBadRequest, noAppendixMsg, nil)
		return
	}
	if err != nil {
		s.codexFailure(w, r, id, err)
		return
	}
	writeOK(w, map[string]any{"documentId": id, "added": added, "skipped": skipped, "entries": total})
}

func (s *Server) getDocumentIndex(w http.ResponseWriter, r *http.Request) {
	id, ok := s.documentIDParam(w, r)
	if !ok {
		return
	}
	var out editor.VectorInfo
	err := s.opts.Documents.locked(r.Context(), id, func(*docState) error {
		var err error
		out, err = s.opts.Documents.session.VectorStatus(id)
		return err
	})
	if err != nil {
		s.documentFailure(w, r, id, err)
		return
	}
	writeOK(w, indexView(id, out, 0))
}

// documentIndex is the data of GET and POST /document/index.
type documentIndex struct {
	DocumentID string `json:"documentId"`
	editor.VectorInfo
	EmbeddedNow int    `json:"embeddedNow,omitempty"`
	Notice      string `json:"notice,omitempty"`
}

func indexView(id string, v editor.VectorInfo, n int) documentIndex {
	out := documentIndex{DocumentID: id, VectorInfo: v, EmbeddedNow: n}
	if !v.Enabled {
		out.Notice = "no embedding model is configured (AITE_EMBED_MODEL or embedModel): documents are searched by words"
	}
	return out
}

func (s *Server) postDocumentIndex(w http.ResponseWriter, r *http.Request) {
	var body struct {
		DocumentID string `json:"documentId"`
	}
	if err := decodeRequestJSON(w, r, &body); err != nil {
		s.writeReqError(w, r, err)
		return
	}
	id, ok := s.bodyDocument(w, r, body.DocumentID)
	if !ok {
		return
	}
	docs := s.opts.Documents
	if err := docs.locked(r.Context(), id, func(*docState) error { return nil }); err != nil {
		s.documentFailure(w, r, id, err)
		return
	}
	n, err := docs.session.IndexVectors(r.Context(), id, nil)
	if errors.Is(err, editor.ErrNoEmbeddings) {
		err = nil
	}
	info, serr := docs.session.VectorStatus(id)
	if err := errors.Join(err, serr); err != nil {
		writeError(w, http.StatusBadGateway, "Embedding stopped (what was embedded is kept; post again to go on): "+err.Error(), nil)
		return
	}
	writeOK(w, indexView(id, info, n))
}
