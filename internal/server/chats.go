package server

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/aitexteditor/aite/internal/api"
	"github.com/aitexteditor/aite/internal/server/auth"
	"github.com/aitexteditor/aite/internal/store"
)

// registerChats registers the chat, query and run endpoints:
//
//	GET  /api/ap/chats       ChatSummary[] (§ 2.1)
//	POST /api/ap/read        {chatId} → {chatId, readStatus:1, readAt}
//	GET  /api/ap/chat        ChatDetail (§ 5.3)
//	POST /api/ap/query       SSE (query.go)
//	POST /api/ap/submit      SubmitResponse (stream.go)
//	GET  /api/ap/run/stream  SSE reattach [EXT] (stream.go)
//
// and two [EXT] endpoints outside the contract tables, for operators:
//
//	GET  /api/ap/runs        the running runs: [{runId, chatId, agentKey, startedAt}]
//	                         in runId order (startedAt in epoch ms)
//	POST /api/ap/run/cancel  {runId} → {runId, canceled:true}; the run ends with
//	                         run.error run_aborted. Blank runId → 400 Validation
//	                         failed; unknown → 404 "Run not found: <id>"; ended →
//	                         400 "Run is not running: <id>".
func (s *Server) registerChats() {
	s.mux.HandleFunc("GET /api/ap/chats", s.handleChats)
	s.mux.HandleFunc("POST /api/ap/read", s.handleRead)
	s.mux.HandleFunc("GET /api/ap/chat", s.handleChat)
	s.mux.HandleFunc("POST /api/ap/query", s.handleQuery)
	s.mux.HandleFunc("POST /api/ap/submit", s.handleSubmit)
	s.mux.HandleFunc("GET /api/ap/run/stream", s.handleRunStream)
	s.mux.HandleFunc("GET /api/ap/runs", s.handleRuns)
	s.mux.HandleFunc("POST /api/ap/run/cancel", s.handleRunCancel)
}

// ChatSummary is one entry of GET /chats (§ 2.1). ReadAt is the one
// explicit null of the API (unread).
type ChatSummary struct {
	ChatID         string `json:"chatId"`
	ChatName       string `json:"chatName"`
	AgentKey       string `json:"agentKey"`
	CreatedAt      int64  `json:"createdAt"`
	UpdatedAt      int64  `json:"updatedAt"`
	LastRunID      string `json:"lastRunId"`
	LastRunContent string `json:"lastRunContent"`
	ReadStatus     int    `json:"readStatus"`
	ReadAt         *int64 `json:"readAt"`
	DocumentID     string `json:"documentId,omitempty"` // [EXT] the document the chat is bound to
}

// ReadResult is the data of POST /read.
type ReadResult struct {
	ChatID     string `json:"chatId"`
	ReadStatus int    `json:"readStatus"`
	ReadAt     int64  `json:"readAt"`
}

// ChatDetail is the data of GET /chat (§ 5.3). RawMessages is present only
// when asked for (then possibly empty).
type ChatDetail struct {
	ChatID         string             `json:"chatId"`
	ChatName       string             `json:"chatName"`
	ChatImageToken string             `json:"chatImageToken,omitempty"`
	Events         []api.Event        `json:"events"`
	References     []api.Reference    `json:"references"`
	RawMessages    *[]json.RawMessage `json:"rawMessages,omitempty"`
	ActiveRunID    string             `json:"activeRunId,omitempty"`
}

// RunSummary is one entry of GET /runs [EXT].
type RunSummary struct {
	RunID     string `json:"runId"`
	ChatID    string `json:"chatId"`
	AgentKey  string `json:"agentKey"`
	StartedAt int64  `json:"startedAt"`
}

// CancelResult is the data of POST /run/cancel [EXT].
type CancelResult struct {
	RunID    string `json:"runId"`
	Canceled bool   `json:"canceled"`
}

// handleChats serves GET /chats: without lastRunId every chat by lastRunId
// desc, then updatedAt desc; with lastRunId=X only the chats whose
// lastRunId > X, ascending (incremental sync). [EXT] documentId=D keeps
// only the chats bound to document D.
func (s *Server) handleChats(w http.ResponseWriter, r *http.Request) {
	chats, err := s.opts.Store.ListChats(r.Context())
	if err != nil {
		s.writeInternal(w, r, err)
		return
	}
	chats = slices.DeleteFunc(chats, func(c store.Chat) bool { return !s.visible(r.Context(), c.Owner) })
	after := strings.TrimSpace(r.URL.Query().Get("lastRunId"))
	if after != "" {
		chats = slices.DeleteFunc(chats, func(c store.Chat) bool { return c.LastRunID <= after })
	}
	if doc := strings.TrimSpace(r.URL.Query().Get("documentId")); doc != "" {
		id, ok := uuidCanonical(doc)
		if !ok {
			writeError(w, http.StatusBadRequest, "documentId must be a valid UUID", nil)
			return
		}
		chats = slices.DeleteFunc(chats, func(c store.Chat) bool { return c.DocumentID != id })
	}
	slices.SortStableFunc(chats, func(a, b store.Chat) int {
		c := cmp.Or(strings.Compare(a.LastRunID, b.LastRunID), a.UpdatedAt.Compare(b.UpdatedAt))
		if after == "" {
			c = -c
		}
		return cmp.Or(c, strings.Compare(a.ID, b.ID))
	})
	out := make([]ChatSummary, 0, len(chats))
	for _, c := range chats {
		out = append(out, chatSummary(c))
	}
	writeOK(w, out)
}

// chatSummary converts a stored chat.
func chatSummary(c store.Chat) ChatSummary {
	sum := ChatSummary{ChatID: c.ID, ChatName: c.Name, AgentKey: c.AgentKey, CreatedAt: c.CreatedAt.UnixMilli(),
		UpdatedAt: c.UpdatedAt.UnixMilli(), LastRunID: c.LastRunID, LastRunContent: c.LastRunContent,
		ReadStatus: c.ReadStatus, DocumentID: c.DocumentID}
	if c.ReadAt != nil {
		at := c.ReadAt.UnixMilli()
		sum.ReadAt = &at
	}
	return sum
}

// handleRead serves POST /read {chatId}.
func (s *Server) handleRead(w http.ResponseWriter, r *http.Request) {
	var body struct {
		ChatID string `json:"chatId"`
	}
	if err := decodeRequestJSON(w, r, &body); err != nil {
		s.writeReqError(w, r, err)
		return
	}
	chat, err := s.existingChat(r.Context(), body.ChatID)
	if err != nil {
		s.writeReqError(w, r, err)
		return
	}
	now := s.opts.Clock()
	if err := s.opts.Store.MarkRead(r.Context(), chat.ID, now); err != nil {
		s.writeReqError(w, r, chatLookupError(chat.ID, err))
		return
	}
	writeOK(w, ReadResult{ChatID: chat.ID, ReadStatus: 1, ReadAt: store.StoredTime(now).UnixMilli()})
}

// existingChat validates a chatId parameter (blank → V, non-UUID → 400)
// and returns the chat it names (else, or when the request may not see it,
// 404).
func (s *Server) existingChat(ctx context.Context, raw string) (store.Chat, error) {
	if strings.TrimSpace(raw) == "" {
		return store.Chat{}, invalidFields(map[string]string{"chatId": reasonRequired})
	}
	chatID, ok := uuidCanonical(raw)
	if !ok {
		return store.Chat{}, badRequest("chatId must be a valid UUID")
	}
	chat, err := s.visibleChat(ctx, chatID)
	if err != nil {
		return store.Chat{}, chatLookupError(chatID, err)
	}
	return chat, nil
}

// chatLookupError maps ErrNotFound to 404 "Chat not found: <id>".
func chatLookupError(chatID string, err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return &reqError{status: http.StatusNotFound, msg: "Chat not found: " + chatID}
	}
	return err
}

// handleChat serves GET /chat?chatId=…&includeRawMessages=….
func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	raw := false
	if v := strings.TrimSpace(q.Get("includeRawMessages")); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			s.writeReqError(w, r, badRequest("includeRawMessages must be a boolean"))
			return
		}
		raw = b
	}
	chat, err := s.existingChat(r.Context(), q.Get("chatId"))
	if err != nil {
		s.writeReqError(w, r, err)
		return
	}
	detail, err := s.chatDetail(r.Context(), chat, raw)
	if err != nil {
		s.writeReqError(w, r, chatLookupError(chat.ID, err))
		return
	}
	writeOK(w, detail)
}

// chatDetail builds the ChatDetail of an existing chat.
func (s *Server) chatDetail(ctx context.Context, chat store.Chat, raw bool) (ChatDetail, error) {
	runs, err := s.opts.Store.ListRuns(ctx, chat.ID)
	if err != nil {
		return ChatDetail{}, err
	}
	d := ChatDetail{ChatID: chat.ID, ChatName: chat.Name, References: []api.Reference{},
		ChatImageToken: s.chatImageToken(ctx, chat.ID)}
	logs := make([][]store.Event, 0, len(runs))
	seen := map[string]bool{}
	var msgs []json.RawMessage
	for _, run := range runs {
		log, err := s.runEvents(ctx, run)
		if err != nil {
			return ChatDetail{}, err
		}
		logs = append(logs, log)
		d.References = mergeReferences(d.References, seen, run.Query)
		if raw {
			if msgs, err = s.appendRawMessages(ctx, msgs, run.ID); err != nil {
				return ChatDetail{}, err
			}
		}
	}
	d.Events = CompactHistory(logs)
	if raw {
		if msgs == nil {
			msgs = []json.RawMessage{}
		}
		d.RawMessages = &msgs
	}
	if id, ok := s.opts.Runs.ActiveIn(chat.ID, runs); ok { // the runs listed above: one store read
		d.ActiveRunID = id
	}
	return d, nil
}

// runEvents returns the live event log of a run so far, from the store
// (every event a client saw is stored): for a running run the events its
// subscribers may see, so not a terminal event stored but not yet sent
// (for a run of another node: while the store says it is running).
func (s *Server) runEvents(ctx context.Context, run store.Run) ([]store.Event, error) {
	log, err := s.opts.Store.ListEvents(ctx, run.ID, 0)
	if err != nil {
		return nil, err
	}
	if visible, ok := s.opts.Runs.visibleSeq(run.ID); ok {
		for len(log) > 0 && log[len(log)-1].Seq > visible {
			log = log[:len(log)-1]
		}
	} else if n := len(log); run.Status == store.RunRunning && n > 0 && Terminal(log[n-1].Type) {
		log = log[:n-1]
	}
	return log, nil
}

// mergeReferences appends the references of a stored query whose id has
// not been seen (first wins); entries without id are always appended.
func mergeReferences(refs []api.Reference, seen map[string]bool, query json.RawMessage) []api.Reference {
	var q struct {
		References []api.Reference `json:"references"`
	}
	if len(query) == 0 || json.Unmarshal(query, &q) != nil {
		return refs
	}
	for _, ref := range q.References {
		if ref.ID != "" {
			if seen[ref.ID] {
				continue
			}
			seen[ref.ID] = true
		}
		refs = append(refs, ref)
	}
	return refs
}

// appendRawMessages appends the stored messages of a run, each with a runId
// key added.
func (s *Server) appendRawMessages(ctx context.Context, out []json.RawMessage, runID string) ([]json.RawMessage, error) {
	msgs, err := s.opts.Store.ListMessages(ctx, runID)
	if err != nil {
		return nil, err
	}
	for _, m := range msgs {
		b, err := withRunID(m.Body, runID)
		if err != nil {
			return nil, fmt.Errorf("server: message %d of run %q: %w", m.Ord, runID, err)
		}
		out = append(out, b)
	}
	return out, nil
}

// withRunID returns the JSON object body with "runId" set to runID, as
// its first key when the body has none.
func withRunID(body json.RawMessage, runID string) (json.RawMessage, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return nil, err
	}
	id, _ := json.Marshal(runID)
	if _, ok := fields["runId"]; ok {
		fields["runId"] = id
		return json.Marshal(fields)
	}
	rest := strings.TrimSpace(string(body))[1:]
	if strings.TrimSpace(rest) != "}" {
		rest = "," + rest
	}
	return json.RawMessage(`{"runId":` + string(id) + rest), nil
}

// chatImageToken returns the chat image token of chatID when one is
// issuable (§ 8.2: a request subject and a configured secret), else "".
func (s *Server) chatImageToken(ctx context.Context, chatID string) string {
	subject, ok := auth.SubjectFrom(ctx)
	if !ok || s.opts.ChatTokens == nil || !s.opts.ChatTokens.Enabled() {
		return ""
	}
	tok, err := s.opts.ChatTokens.Issue(chatID, subject)
	if err != nil {
		s.opts.Logger.Warn("chat image token not issued", "chat", chatID, "err", err)
		return ""
	}
	return tok
}

// handleRuns serves GET /runs [EXT]: the running runs of every node the request may see.
func (s *Server) handleRuns(w http.ResponseWriter, r *http.Request) {
	list, err := s.opts.Runs.Running(r.Context())
	if err != nil {
		s.writeInternal(w, r, err)
		return
	}
	out := make([]RunSummary, 0, len(list))
	for _, ri := range list {
		if _, err := s.visibleChat(r.Context(), ri.ChatID); err != nil {
			continue
		}
		out = append(out, RunSummary{RunID: ri.RunID, ChatID: ri.ChatID, AgentKey: ri.AgentKey, StartedAt: ri.StartedAt.UnixMilli()})
	}
	writeOK(w, out)
}

// handleRunCancel serves POST /run/cancel {runId} [EXT].
func (s *Server) handleRunCancel(w http.ResponseWriter, r *http.Request) {
	var body struct {
		RunID string `json:"runId"`
	}
	if err := decodeRequestJSON(w, r, &body); err != nil {
		s.writeReqError(w, r, err)
		return
	}
	runID := strings.TrimSpace(body.RunID)
	if runID == "" {
		writeValidation(w, map[string]string{"runId": reasonRequired})
		return
	}
	err := s.checkRun(r.Context(), runID)
	if err == nil {
		err = s.opts.Runs.Cancel(r.Context(), runID)
	}
	switch {
	case errors.Is(err, ErrRunNotFound):
		writeError(w, http.StatusNotFound, "Run not found: "+runID, nil)
	case errors.Is(err, ErrRunNotRunning):
		writeError(w, http.StatusBadRequest, "Run is not running: "+runID, nil)
	case err != nil:
		s.writeInternal(w, r, err)
	default:
		writeOK(w, CancelResult{RunID: runID, Canceled: true})
	}
}
