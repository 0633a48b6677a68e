package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aitexteditor/aite/internal/agent"
	"github.com/aitexteditor/aite/internal/agentdef"
	"github.com/aitexteditor/aite/internal/api"
	"github.com/aitexteditor/aite/internal/store"
	"github.com/aitexteditor/aite/internal/tool/bookprotocol"
	"github.com/aitexteditor/aite/internal/tool/booktools"
)

// defaultChatName is the name of a chat whose first message has no text.
const defaultChatName = "New chat"

// chatNameRunes is the length of a chat name in code points.
const chatNameRunes = 30

// errChatCreated means the chat was created by a concurrent first query
// while this one was being prepared: prepare again.
var errChatCreated = errors.New("server: the chat was created concurrently")

// preparedQuery is a /query request on its way through the preparation of § 2.1.
type preparedQuery struct {
	req      api.QueryRequest
	chatID   string
	chat     store.Chat // the stored chat when exists
	exists   bool
	firstRun bool // the chat has no run yet: chat.start is sent
	defs     *agentdef.Snapshot
	agent    agentdef.AgentDef
	docID    string
	rebind   bool // the stored chat's agent or document changes
}

// handleQuery serves POST /query (§ 2.1): parse → validate → resolve chat →
// resolve agent → resolve document → busy check → runId → start the run →
// stream it. Every failure before the stream is a 4xx/500 envelope without
// any SSE byte; the run is detached from the request (§ 3.6).
func (s *Server) handleQuery(w http.ResponseWriter, r *http.Request) {
	var req api.QueryRequest
	if err := decodeRequestJSON(w, r, &req); err != nil {
		s.writeReqError(w, r, err)
		return
	}
	run, err := s.startQuery(r.Context(), req)
	if errors.Is(err, errChatCreated) {
		run, err = s.startQuery(r.Context(), req)
	}
	if err != nil {
		s.writeReqError(w, r, err)
		return
	}
	s.stream(w, r, run.ID(), 0)
}

// startQuery prepares a query and starts its run.
func (s *Server) startQuery(ctx context.Context, req api.QueryRequest) (*Run, error) {
	q, err := s.prepareQuery(ctx, req)
	if err != nil {
		return nil, err
	}
	return s.startRun(ctx, q)
}

// prepareQuery runs the checks of § 2.1 up to the busy chat, in order.
func (s *Server) prepareQuery(ctx context.Context, req api.QueryRequest) (*preparedQuery, error) {
	if strings.TrimSpace(req.Message) == "" {
		return nil, invalidFields(map[string]string{"message": reasonRequired})
	}
	q := &preparedQuery{req: req}
	if raw := strings.TrimSpace(req.ChatID); raw != "" {
		id, ok := uuidCanonical(raw)
		if !ok {
			return nil, badRequest("chatId must be a valid UUID")
		}
		q.chatID = id
	}
	if err := s.resolveChat(ctx, q); err != nil {
		return nil, err
	}
	if err := s.resolveAgent(q); err != nil {
		return nil, err
	}
	if err := s.resolveDocument(ctx, q); err != nil {
		return nil, err
	}
	if id, ok := s.supersede(ctx, q.chatID); !ok {
		return nil, busyError(id)
	}
	return q, nil
}

// supersedeWait bounds how long a query waits for the run it supersedes to
// end (its terminal event stored and its chat updated).
const supersedeWait = 10 * time.Second

// supersede applies the busy-chat rule: a chat's running run that a client
// follows keeps the chat (400 busy, § 2.1); one that no client follows any
// more (the client's Stop closed the stream, or a reload) is canceled with
// reason superseded, so the new query runs (RunManager.Supersede).
func (s *Server) supersede(ctx context.Context, chatID string) (string, bool) {
	ctx, cancel := context.WithTimeout(ctx, supersedeWait)
	defer cancel()
	return s.opts.Runs.Supersede(ctx, chatID)
}

// busyError is 400 "Chat has an active run: <runId>" with data.activeRunId.
func busyError(runID string) error {
	return &reqError{status: http.StatusBadRequest, msg: "Chat has an active run: " + runID,
		data: api.ActiveRunData{ActiveRunID: runID}}
}

// resolveChat looks the chat up; a blank chatId names a new chat. The chat
// is created by startRun, once every check has passed.
func (s *Server) resolveChat(ctx context.Context, q *preparedQuery) error {
	if q.chatID == "" {
		q.chatID, q.firstRun = uuidV4(), true
		return nil
	}
	chat, err := s.opts.Store.GetChat(ctx, q.chatID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		q.firstRun = true
		return nil
	case err != nil:
		return err
	case !s.visible(ctx, chat.Owner):
		return chatLookupError(q.chatID, store.ErrNotFound) // another user's chat
	}
	q.chat, q.exists = chat, true
	runs, err := s.opts.Store.ListRuns(ctx, q.chatID)
	if err != nil {
		return err
	}
	q.firstRun = len(runs) == 0
	return nil
}

// resolveAgent picks the run's agent: the chat's bound agent while it
// exists, else the request's agentKey (blank, auto and default mean
// Options.DefaultAgent, else the alphabetically first agent).
func (s *Server) resolveAgent(q *preparedQuery) error {
	q.defs = s.opts.Defs()
	if q.defs == nil {
		return errors.New("server: no definitions loaded")
	}
	if q.exists && q.chat.AgentKey != "" {
		if a, ok := runnableAgent(q.defs, q.chat.AgentKey); ok {
			q.agent = a
			return nil
		}
	}
	key := strings.TrimSpace(q.req.AgentKey)
	a, ok := runnableAgent(q.defs, key)
	switch strings.ToLower(key) {
	case "", "auto", "default":
		if a, ok = runnableAgent(q.defs, s.opts.DefaultAgent); !ok {
			if all := listedAgents(q.defs); len(all) > 0 {
				a, ok = all[0], true
			}
		}
		if key == "" {
			key = s.opts.DefaultAgent
		}
	}
	if !ok {
		return unknownAgent(key, q.defs)
	}
	q.agent = a
	q.rebind = q.rebind || (q.exists && q.chat.AgentKey != a.Key)
	return nil
}

// runnableAgent returns the agent key names unless it is an internal
// sub-agent (AgentDef.Internal), which only its parent agents run.
func runnableAgent(defs *agentdef.Snapshot, key string) (agentdef.AgentDef, bool) {
	a, ok := defs.Agent(key)
	return a, ok && !a.Internal
}

// listedAgents are the agents clients see (GET /agents, the available
// list), sorted by key: all but the internal sub-agents.
func listedAgents(defs *agentdef.Snapshot) []agentdef.AgentDef {
	return slices.DeleteFunc(defs.Agents(), func(a agentdef.AgentDef) bool { return a.Internal })
}

// unknownAgent is 400 "Unknown agentId: <key>. Available: [<k1>, <k2>]".
func unknownAgent(key string, defs *agentdef.Snapshot) error {
	var keys []string
	for _, a := range listedAgents(defs) {
		keys = append(keys, a.Key)
	}
	return badRequest("Unknown agentId: %s. Available: [%s]", key, strings.Join(keys, ", "))
}

// resolveDocument picks the run's document [EXT]: the request's selection
// (params.documentId or a references[] entry of type document), which
// becomes the chat's binding, else the chat's bound document.
func (s *Server) resolveDocument(ctx context.Context, q *preparedQuery) error {
	sel, err := documentSelection(q.req)
	if err != nil {
		return err
	}
	if sel == "" {
		q.docID = q.chat.DocumentID
		if q.docID == "" && usesBookTools(q.agent) {
			// A book agent without a document works on the most recently
			// updated one (the sample book on a fresh server), bound from
			// now on like a selection.
			docs, err := s.opts.Store.ListDocuments(ctx)
			if err != nil {
				return err
			}
			for _, d := range docs {
				if s.visible(ctx, d.Owner) {
					q.docID = d.ID
					q.rebind = q.rebind || q.exists
					break
				}
			}
		}
		return nil
	}
	if err := s.visibleDocument(ctx, sel); errors.Is(err, store.ErrNotFound) {
		return badRequest("Unknown documentId: %s", sel)
	} else if err != nil {
		return err
	}
	q.docID = sel
	q.rebind = q.rebind || (q.exists && q.chat.DocumentID != sel)
	return nil
}

// bookToolNames are the names of the book tools: the classic ones and the
// protocol book editor's activities.
var bookToolNames = sync.OnceValue(func() map[string]bool {
	names := map[string]bool{}
	for _, t := range booktools.Tools(booktools.Env{}) {
		names[strings.ToLower(t.Name())] = true
	}
	for _, n := range bookprotocol.ActivityNames() {
		names[strings.ToLower(n)] = true
	}
	return names
})

// usesBookTools reports whether the agent enables any book tool.
func usesBookTools(a agentdef.AgentDef) bool {
	for _, name := range a.Tools {
		if bookToolNames()[strings.ToLower(name)] {
			return true
		}
	}
	return false
}

// documentSelection returns the documentId a query selects ("" for none):
// params.documentId and every references[] entry of type document must
// agree (else 400 Conflicting documentId). Ids are trimmed; UUIDs are
// compared in canonical form.
func documentSelection(req api.QueryRequest) (string, error) {
	var ids []string
	if raw, ok := req.Params["documentId"]; ok && string(raw) != "null" {
		var id string
		if err := json.Unmarshal(raw, &id); err != nil {
			return "", badRequest("Wrong type for field params.documentId")
		}
		ids = append(ids, id)
	}
	for _, ref := range req.References {
		if strings.EqualFold(strings.TrimSpace(ref.Type), "document") {
			ids = append(ids, ref.ID)
		}
	}
	sel := ""
	for _, id := range ids {
		id = strings.TrimSpace(id)
		if c, ok := uuidCanonical(id); ok {
			id = c
		}
		switch {
		case id == "":
		case sel == "":
			sel = id
		case sel != id:
			return "", badRequest("Conflicting documentId")
		}
	}
	return sel, nil
}

// startRun stores the chat (created, or with its new binding), allocates
// the runId and starts the run: bootstrap events, then the engine on the
// run's own goroutine.
func (s *Server) startRun(ctx context.Context, q *preparedQuery) (*Run, error) {
	if err := s.saveChat(ctx, q); err != nil {
		return nil, err
	}
	runID := s.runID.Next()
	rq := requestQuery(q, runID)
	stored, err := json.Marshal(rq)
	if err != nil {
		return nil, err
	}
	var chatStart *api.ChatStart
	if q.firstRun {
		chatStart = &api.ChatStart{ChatID: q.chatID, ChatName: q.chatName(), ChatImageToken: s.chatImageToken(ctx, q.chatID)}
	}
	spec := agent.Spec{RunID: runID, ChatID: q.chatID, RequestID: rq.RequestID, Agent: q.agent, Defs: q.defs,
		Message: q.req.Message, Params: rq.Params, ContinuePlan: continuePlan(q.req.Params)}
	if len(rq.References) > 0 {
		if spec.References, err = api.Encode(rq.References); err != nil {
			return nil, err
		}
	}
	run, err := s.opts.Runs.Start(ctx, RunSpec{RunID: runID, ChatID: q.chatID, RequestID: rq.RequestID,
		AgentKey: q.agent.Key, Query: stored,
		Bootstrap: func(a *Assembler) { a.Bootstrap(rq, chatStart) },
		Execute: func(ctx context.Context, a *Assembler) error {
			if s.opts.Tools != nil {
				if err := s.opts.Tools(ctx, &spec, q.docID); err != nil {
					return fmt.Errorf("agent: backend tools: %w", err)
				}
			}
			defer s.opts.Waits.Close(runID)
			return a.Run(asking(s.opts.Waits, runID, s.opts.Engine.Run(ctx, spec)))
		},
		Finished: func(ctx context.Context, content string) {
			s.recordRunEnd(ctx, q.chatID, runID, q.req.Message, content)
		},
	})
	if errors.Is(err, ErrChatBusy) {
		id, _ := s.opts.Runs.Active(q.chatID)
		return nil, busyError(id)
	}
	return run, err
}

// asking opens the question each event shows (a frontend call, a scope or
// an edit approval) before the event goes on to a client, so a client that
// answers at once is matched.
func asking(waits *agent.Waits, runID string, seq iter.Seq2[agent.Event, error]) iter.Seq2[agent.Event, error] {
	return func(yield func(agent.Event, error) bool) {
		for ev, err := range seq {
			if err == nil {
				waits.Open(runID, ev)
			}
			if !yield(ev, err) {
				return
			}
		}
	}
}

// saveChat creates a new chat bound to the resolved agent and document, or
// stores the changed binding of an existing one.
func (s *Server) saveChat(ctx context.Context, q *preparedQuery) error {
	now := s.opts.Clock()
	if !q.exists {
		err := s.opts.Store.CreateChat(ctx, store.Chat{ID: q.chatID, Name: q.chatName(), AgentKey: q.agent.Key,
			DocumentID: q.docID, CreatedAt: now, UpdatedAt: now, Owner: ownerOf(ctx)})
		if errors.Is(err, store.ErrExists) {
			return errChatCreated
		}
		return err
	}
	if q.rebind {
		return s.opts.Store.SetChatBinding(ctx, q.chatID, q.agent.Key, q.docID, now)
	}
	return nil
}

// chatName is the stored name, or for a new chat the message with
// whitespace runs collapsed, trimmed, cut to 30 code points ("New chat"
// when empty).
func (q *preparedQuery) chatName() string {
	if q.exists {
		return q.chat.Name
	}
	name := []rune(strings.Join(strings.Fields(q.req.Message), " "))
	if len(name) > chatNameRunes {
		name = name[:chatNameRunes]
	}
	if len(name) == 0 {
		return defaultChatName
	}
	return string(name)
}

// requestQuery is the request.query payload (§ 3.2), also the stored
// query of the run: the canonical chatId, the agentKey of the agent that
// runs (whatever the request named: blank, auto, another agent while the
// chat stays bound to its own), requestId defaulting to the runId, role to
// user, params without the internal "__" keys.
func requestQuery(q *preparedQuery, runID string) api.RequestQuery {
	rq := api.RequestQuery{RequestID: strings.TrimSpace(q.req.RequestID), ChatID: q.chatID,
		Role: strings.TrimSpace(q.req.Role), Message: q.req.Message, AgentKey: q.agent.Key,
		References: q.req.References, Scene: q.req.Scene, Stream: q.req.Stream}
	if rq.RequestID == "" {
		rq.RequestID = runID
	}
	if rq.Role == "" {
		rq.Role = "user"
	}
	for k, v := range q.req.Params {
		if strings.HasPrefix(k, "__") {
			continue
		}
		if rq.Params == nil {
			rq.Params = map[string]json.RawMessage{}
		}
		rq.Params[k] = v
	}
	return rq
}

// continuePlan reports whether params.continuePlan is true.
func continuePlan(params map[string]json.RawMessage) bool {
	var b bool
	return json.Unmarshal(params["continuePlan"], &b) == nil && b
}

// recordRunEnd stores the end of a run on its chat (§ 5.1): lastRunId,
// updatedAt, lastRunContent (the run's content text, else the user
// message), unread. RunSpec.Finished calls it before the terminal event
// reaches any subscriber.
func (s *Server) recordRunEnd(ctx context.Context, chatID, runID, message, content string) {
	if content == "" {
		content = message
	}
	if err := s.opts.Store.UpdateChatAfterRun(ctx, chatID, runID, content, s.opts.Clock()); err != nil {
		s.opts.Logger.Error("recording the end of a run on its chat failed", "chat", chatID, "run", runID, "err", err)
	}
}

// contentText concatenates the content deltas of a run's events.
func contentText(log []api.Event) string {
	var b strings.Builder
	for _, e := range log {
		if e.Type != api.TypeContentDelta {
			continue
		}
		switch p := e.Payload.(type) {
		case api.ContentDelta:
			b.WriteString(p.Delta)
		case *api.ContentDelta:
			b.WriteString(p.Delta)
		case json.RawMessage:
			var d api.ContentDelta
			if json.Unmarshal(p, &d) == nil {
				b.WriteString(d.Delta)
			}
		}
	}
	return b.String()
}

// stream follows run runID from afterSeq on the response (§ 3.6): the
// request is a mere subscriber, its end does not stop the run.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, runID string, afterSeq int64) {
	sub, err := s.opts.Runs.Subscribe(r.Context(), runID, afterSeq)
	if errors.Is(err, ErrRunNotFound) {
		writeError(w, http.StatusNotFound, "Run not found: "+runID, nil)
		return
	}
	if err != nil {
		s.writeInternal(w, r, err)
		return
	}
	defer sub.Close()
	err = Serve(r.Context(), w, r, sub, StreamOptions{Heartbeat: s.opts.Heartbeat, Done: s.opts.DoneMarker, Stall: s.opts.Stall})
	switch {
	case errors.Is(err, ErrNoFlush):
		s.writeInternal(w, r, err)
	case err != nil && r.Context().Err() == nil:
		s.opts.Logger.Info("stream ended early", "run", runID, "err", err)
	}
}
