package server

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aitexteditor/aite/internal/store"
)

// documentEditView is one entry of GET /document/history.
type documentEditView struct {
	Revision   int    `json:"revision"`
	RunID      string `json:"runId"`
	ToolID     string `json:"toolId"`
	Op         string `json:"op"`
	Pointer    string `json:"pointer"`
	NewPointer string `json:"newPointer,omitempty"`
	Before     string `json:"before,omitempty"`
	After      string `json:"after,omitempty"`
	At         int64  `json:"at"`
	RevertedTo *int   `json:"revertedTo,omitempty"` // [EXT] op revert: the revision restored
}

type documentHistory struct {
	DocumentID string             `json:"documentId"`
	Edits      []documentEditView `json:"edits"`
}

type documentRaw struct {
	DocumentID string `json:"documentId"`
	Revision   int    `json:"revision"`
	Markdown   string `json:"markdown"`
}

// registerDocuments registers the document endpoints of § 2.2. Without
// Options.Documents the server keeps its own over Options.Store.
func (s *Server) registerDocuments() {
	if s.opts.Documents == nil {
		s.opts.Documents = NewDocuments(s.opts.Store, s.opts.Clock)
		s.opts.Documents.Logger = s.opts.Logger
	}
	s.mux.HandleFunc("GET /api/ap/documents", s.listDocuments)
	s.Route("POST /api/ap/documents", http.HandlerFunc(s.createDocument),
		Policy{Bodies: []string{"application/json", "multipart/form-data"}})
	s.mux.HandleFunc("GET /api/ap/document", s.getDocument)
	s.mux.HandleFunc("GET /api/ap/document/items", s.getDocumentItems)
	s.mux.HandleFunc("GET /api/ap/document/raw", s.getDocumentRaw)
	s.mux.HandleFunc("GET /api/ap/document/history", s.getDocumentHistory)
	s.registerDocumentViews()
	s.registerCodex()
}

func (s *Server) listDocuments(w http.ResponseWriter, r *http.Request) {
	docs, err := s.opts.Store.ListDocuments(r.Context())
	if err != nil {
		s.writeInternal(w, r, err)
		return
	}
	out := make([]documentSummary, 0, len(docs)) // the store lists most recently updated first
	for _, d := range docs {
		if s.visible(r.Context(), d.Owner) {
			out = append(out, summarizeDocument(d))
		}
	}
	writeOK(w, out)
}

// documentIDParam reads the required documentId parameter: blank → 400
// Validation failed, not a UUID → 400; the id is returned in lowercase. A
// document the request may not see is answered 404 like an unknown one.
func (s *Server) documentIDParam(w http.ResponseWriter, r *http.Request) (string, bool) {
	id, ok := metaQuery(w, r, "documentId")
	if !ok {
		return "", false
	}
	canon, valid := uuidCanonical(id)
	if !valid {
		writeError(w, http.StatusBadRequest, "documentId must be a valid UUID", nil)
		return "", false
	}
	if err := s.visibleDocument(r.Context(), canon); err != nil {
		s.documentFailure(w, r, canon, err)
		return "", false
	}
	return canon, true
}

// documentFailure answers an error of a document lookup: 404 for an
// unknown document, else 500.
func (s *Server) documentFailure(w http.ResponseWriter, r *http.Request, id string, err error) {
	if errors.Is(err, store.ErrNotFound) {
		writeError(w, http.StatusNotFound, "Document not found: "+id, nil)
		return
	}
	s.writeInternal(w, r, err)
}

func (s *Server) getDocument(w http.ResponseWriter, r *http.Request) {
	id, ok := s.documentIDParam(w, r)
	if !ok {
		return
	}
	out, err := s.opts.Documents.detail(r.Context(), id)
	if err != nil {
		s.documentFailure(w, r, id, err)
		return
	}
	writeOK(w, out)
}

// The paging limits of GET /document/items.
const (
	defaultItemsLimit = 100
	maxItemsLimit     = 500
)

func (s *Server) getDocumentItems(w http.ResponseWriter, r *http.Request) {
	id, ok := s.documentIDParam(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	from, limit := 0, defaultItemsLimit
	if v := strings.TrimSpace(q.Get("from")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			writeError(w, http.StatusBadRequest, "Invalid from: "+v+". Use an integer >= 0", nil)
			return
		}
		from = n
	}
	if v := strings.TrimSpace(q.Get("limit")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxItemsLimit {
			writeError(w, http.StatusBadRequest, "Invalid limit: "+v+". Use an integer from 1 to 500", nil)
			return
		}
		limit = n
	}
	html, ok := formatParam(w, r)
	if !ok {
		return
	}
	out, err := s.opts.Documents.items(r.Context(), id, from, limit, html)
	if err != nil {
		s.documentFailure(w, r, id, err)
		return
	}
	writeOK(w, out)
}

func (s *Server) getDocumentRaw(w http.ResponseWriter, r *http.Request) {
	id, ok := s.documentIDParam(w, r)
	if !ok {
		return
	}
	rev, ok := revisionParam(w, r)
	if !ok {
		return
	}
	if rev >= 0 {
		s.rawAt(w, r, id, rev)
		return
	}
	doc, err := s.opts.Store.GetDocument(r.Context(), id)
	if err != nil {
		s.documentFailure(w, r, id, err)
		return
	}
	writeOK(w, documentRaw{DocumentID: id, Revision: doc.Revision, Markdown: doc.Markdown})
}

func (s *Server) getDocumentHistory(w http.ResponseWriter, r *http.Request) {
	id, ok := s.documentIDParam(w, r)
	if !ok {
		return
	}
	if _, err := s.opts.Store.GetDocument(r.Context(), id); err != nil {
		s.documentFailure(w, r, id, err)
		return
	}
	edits, err := s.opts.Store.ListDocumentEdits(r.Context(), id, 0)
	if err != nil {
		s.documentFailure(w, r, id, err)
		return
	}
	out := documentHistory{DocumentID: id, Edits: make([]documentEditView, len(edits))}
	for i, e := range edits {
		out.Edits[i] = documentEditView{Revision: e.Revision, RunID: e.RunID, ToolID: e.ToolID, Op: e.Op,
			Pointer: e.Pointer, NewPointer: e.NewPointer, Before: e.Before, After: e.After, At: e.At.UnixMilli(),
			RevertedTo: e.RevertedTo}
	}
	writeOK(w, out)
}

// uploadMargin is added to documents.maxBytes for the POST /documents body:
// room for JSON escaping (twice the size) and multipart framing.
const uploadMargin = 1 << 20

// maxNamePart bounds the name part of a multipart upload.
const maxNamePart = 64 << 10

// upload is a parsed POST /documents body.
type upload struct {
	name     string
	markdown []byte
	field    string // the field holding the Markdown: markdown or file
}

// invalidUpload is 400 Validation failed for one field of the body.
func invalidUpload(field, reason string) error {
	return invalidFields(map[string]string{field: reason})
}

// bodyError turns a read error of the body into a 400 *reqError.
func bodyError(err error, malformed string) error {
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return badRequest("Request body too large")
	}
	return badRequest("%s", malformed)
}

func (s *Server) createDocument(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 2*s.opts.DocumentMaxBytes+uploadMargin)
	var up upload
	var err error
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "multipart/form-data" {
		up, err = readMultipartUpload(r)
	} else {
		up, err = readJSONUpload(r)
	}
	if err == nil {
		err = checkUploadName(up.name)
	}
	var doc store.Document
	if err == nil {
		doc, err = s.opts.Documents.Create(r.Context(), up.name, up.markdown, s.opts.DocumentMaxBytes)
	}
	switch {
	case err == nil:
		writeOK(w, summarizeDocument(doc))
	case errors.Is(err, ErrDocumentEmpty):
		writeValidation(w, map[string]string{up.field: "must not be empty"})
	case errors.Is(err, ErrDocumentEncoding):
		writeError(w, http.StatusBadRequest, "Document is not valid UTF-8", nil)
	case errors.Is(err, ErrDocumentTooLarge):
		writeError(w, http.StatusBadRequest, fmt.Sprintf("Document too large: the limit is %d bytes", s.opts.DocumentMaxBytes), nil)
	default:
		s.writeReqError(w, r, err)
	}
}

// checkUploadName validates a document name (§ 2.2: 1..200 characters).
func checkUploadName(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return invalidUpload("name", reasonRequired)
	case !utf8.ValidString(name):
		return invalidUpload("name", "must be valid UTF-8")
	case utf8.RuneCountInString(strings.TrimSpace(name)) > MaxDocumentName:
		return invalidUpload("name", fmt.Sprintf("must have at most %d characters", MaxDocumentName))
	}
	return nil
}

// readJSONUpload reads {name, markdown}.
func readJSONUpload(r *http.Request) (upload, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return upload{}, bodyError(err, "Unreadable request body")
	}
	if !utf8.Valid(body) {
		return upload{}, ErrDocumentEncoding
	}
	var in struct {
		Name     string `json:"name"`
		Markdown string `json:"markdown"`
	}
	if err := decodeJSON(body, &in); err != nil {
		return upload{}, err
	}
	fields := map[string]string{}
	if strings.TrimSpace(in.Name) == "" {
		fields["name"] = reasonRequired
	}
	if strings.TrimSpace(in.Markdown) == "" {
		fields["markdown"] = reasonRequired
	}
	if len(fields) > 0 {
		return upload{}, invalidFields(fields)
	}
	return upload{name: in.Name, markdown: []byte(in.Markdown), field: "markdown"}, nil
}

// readMultipartUpload reads the parts file (required) and name (optional,
// default: the file name without its extension).
func readMultipartUpload(r *http.Request) (upload, error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return upload{}, badRequest("Malformed multipart body")
	}
	up := upload{field: "file"}
	var hasFile bool
	var fileName string
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return upload{}, bodyError(err, "Malformed multipart body")
		}
		switch part.FormName() {
		case "file":
			if hasFile {
				break // the first file part counts
			}
			if up.markdown, err = io.ReadAll(part); err != nil {
				return upload{}, bodyError(err, "Malformed multipart body")
			}
			hasFile, fileName = true, part.FileName()
		case "name":
			b, err := io.ReadAll(io.LimitReader(part, maxNamePart))
			if err != nil {
				return upload{}, bodyError(err, "Malformed multipart body")
			}
			up.name = string(b)
		}
		_ = part.Close()
	}
	if !hasFile {
		return upload{}, invalidUpload("file", "is required")
	}
	if strings.TrimSpace(up.name) == "" {
		up.name = defaultDocumentName(fileName)
	}
	return up, nil
}

// defaultDocumentName is a file name without directories and extension,
// cut to MaxDocumentName characters.
func defaultDocumentName(fileName string) string {
	base := path.Base(strings.ReplaceAll(fileName, "\\", "/"))
	if base == "." || base == "/" {
		return ""
	}
	name := []rune(strings.TrimSpace(strings.TrimSuffix(base, path.Ext(base))))
	return string(name[:min(len(name), MaxDocumentName)])
}
