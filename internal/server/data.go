package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"strconv"

	"github.com/aitexteditor/aite/internal/api"
	"github.com/aitexteditor/aite/internal/server/auth"
	"github.com/aitexteditor/aite/internal/store"
)

// tokenErrorData is the data of a 403 answer of GET /data.
type tokenErrorData struct {
	ErrorCode string `json:"errorCode"`
}

// The 403 messages of GET /data (§ 8.3 steps 3 and 5).
const (
	msgTokenExpired  = "Chat image token expired"
	msgTokenInvalid  = "Chat image token invalid"
	msgTokenNotCover = "Chat image token does not cover this file"
)

// getData is GET /data (§ 8.3): steps 1–6 in order.
func (s *Server) getData(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	rel, err := auth.CleanDataPath(q.Get("file")) // step 1
	if err != nil {
		writeError(w, http.StatusBadRequest, auth.ErrInvalidFile.Error(), nil)
		return
	}
	target, resolveErr := "", auth.ErrFileNotFound // no data directory: no file exists
	if s.opts.DataDir != "" {
		target, resolveErr = auth.ResolveDataFile(s.opts.DataDir, rel) // steps 2 and 4
	}
	if errors.Is(resolveErr, auth.ErrInvalidFilename) {
		writeError(w, http.StatusBadRequest, auth.ErrInvalidFilename.Error(), nil)
		return
	}
	token := q.Get("t")
	checkToken := token != "" && s.opts.DataTokenValidation
	var chatID string
	if checkToken { // step 3
		ct, err := s.verifyChatToken(token)
		if err != nil {
			code := auth.TokenErrorCode(err)
			msg := msgTokenInvalid
			if code == auth.ErrTokenExpired.Error() {
				msg = msgTokenExpired
			}
			writeError(w, http.StatusForbidden, msg, tokenErrorData{ErrorCode: code})
			return
		}
		chatID = ct.ChatID
		if !s.tokenOwnsChat(r.Context(), ct) {
			writeError(w, http.StatusForbidden, msgTokenInvalid, tokenErrorData{ErrorCode: auth.ErrTokenInvalid.Error()})
			return
		}
	}
	if resolveErr != nil { // step 4
		writeError(w, http.StatusNotFound, auth.ErrFileNotFound.Error(), nil)
		return
	}
	if checkToken { // step 5
		files, err := s.chatFileSet(r.Context(), chatID)
		if err != nil {
			s.writeInternal(w, r, err)
			return
		}
		if !files[rel] {
			writeError(w, http.StatusForbidden, msgTokenNotCover, tokenErrorData{ErrorCode: auth.ErrTokenInvalid.Error()})
			return
		}
	}
	s.serveDataFile(w, r, target, q.Get("download") == "true") // step 6
}

// tokenOwnsChat reports whether a chat image token's subject (u) owns its
// chat (c): a token belongs to its subject, so a token of a chat that
// changed hands, or one issued to an admin for another user's chat, does
// not open it (the admin uses the Bearer token). Chats without an owner,
// and unknown ones (step 5 finds no file), pass.
func (s *Server) tokenOwnsChat(ctx context.Context, ct auth.ChatToken) bool {
	chat, err := s.opts.Store.GetChat(ctx, ct.ChatID)
	return err != nil || chat.Owner == "" || chat.Owner == ct.Subject
}

// verifyChatToken verifies a chat image token; without an issuer every token
// is invalid.
func (s *Server) verifyChatToken(token string) (auth.ChatToken, error) {
	if s.opts.ChatTokens == nil {
		return auth.ChatToken{}, fmt.Errorf("%w: no chat image token secret configured", auth.ErrTokenInvalid)
	}
	return s.opts.ChatTokens.Verify(token)
}

// serveDataFile streams the file with the § 8.3 headers, or answers 500
// "Failed to read file" when it cannot be opened.
func (s *Server) serveDataFile(w http.ResponseWriter, r *http.Request, target string, download bool) {
	f, err := os.Open(target)
	if err != nil {
		s.opts.Logger.Error("data file open failed", "err", err)
		writeError(w, http.StatusInternalServerError, "Failed to read file", nil)
		return
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		s.opts.Logger.Error("data file stat failed", "err", err)
		writeError(w, http.StatusInternalServerError, "Failed to read file", nil)
		return
	}
	name := path.Base(target)
	ct := auth.ContentType(name)
	h := w.Header()
	h.Set("Content-Type", ct)
	h.Set("Content-Disposition", auth.ContentDisposition(name, download, ct))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", dataCSP)
	h.Set("Content-Length", strconv.FormatInt(info.Size(), 10))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	if _, err := io.Copy(w, f); err != nil {
		s.opts.Logger.Warn("data file copy failed", "err", err)
	}
}

// chatFileSet returns the files chat chatID references, through
// Options.ChatFiles or the store.
func (s *Server) chatFileSet(ctx context.Context, chatID string) (map[string]bool, error) {
	if s.opts.ChatFiles != nil {
		return s.opts.ChatFiles(ctx, chatID)
	}
	return s.chatFiles(ctx, chatID)
}

// chatFiles returns the normalised data paths the chat references (§ 8.3
// "Referenced"): the references[].url of its runs' stored queries and the
// Markdown link and image targets in the content texts of its stored
// assistant messages. An unknown chat references nothing.
func (s *Server) chatFiles(ctx context.Context, chatID string) (map[string]bool, error) {
	runs, err := s.opts.Store.ListRuns(ctx, chatID)
	if errors.Is(err, store.ErrNotFound) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("chat files of %s: %w", chatID, err)
	}
	var urls, texts []string
	for _, run := range runs {
		urls = append(urls, queryReferenceURLs(run.Query)...)
		msgs, err := s.opts.Store.ListMessages(ctx, run.ID)
		if err != nil {
			return nil, fmt.Errorf("chat files of %s: %w", chatID, err)
		}
		for _, m := range msgs {
			texts = append(texts, assistantTexts(m.Body)...)
		}
	}
	return auth.ReferencedFiles(texts, urls), nil
}

// queryReferenceURLs returns the references[].url of a stored query; a query
// that does not parse has none.
func queryReferenceURLs(raw json.RawMessage) []string {
	var q api.QueryRequest
	if len(raw) == 0 || json.Unmarshal(raw, &q) != nil {
		return nil
	}
	var out []string
	for _, ref := range q.References {
		if ref.URL != "" {
			out = append(out, ref.URL)
		}
	}
	return out
}

// storedMessage is the part of a stored message (§ 5.1) chatFiles reads.
type storedMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// assistantTexts returns the content texts of a stored assistant message:
// the text of each content part, or the content itself when it is a string.
func assistantTexts(body json.RawMessage) []string {
	var m storedMessage
	if json.Unmarshal(body, &m) != nil || m.Role != "assistant" || len(m.Content) == 0 {
		return nil
	}
	var text string
	if json.Unmarshal(m.Content, &text) == nil {
		return []string{text}
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(m.Content, &parts) != nil {
		return nil
	}
	var out []string
	for _, p := range parts {
		if p.Type == "text" || p.Type == "" {
			out = append(out, p.Text)
		}
	}
	return out
}
