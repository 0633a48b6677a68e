package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/aitexteditor/aite/internal/agentdef"
	"github.com/aitexteditor/aite/internal/api"
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
	run, err := s.chats().startQuery(r.Context(), req)
	if errors.Is(err, errChatCreated) {
		run, err = s.chats().startQuery(r.Context(), req)
	}
	if err != nil {
		s.writeReqError(w, r, err)
		return
	}
	s.stream(w, r, run.ID(), 0)
}

// busyError is 400 "Chat has an active run: <runId>" with data.activeRunId.
func busyError(runID string) error {
	return &reqError{status: http.StatusBadRequest, msg: "Chat has an active run: " + runID,
		data: api.ActiveRunData{ActiveRunID: runID}}
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
