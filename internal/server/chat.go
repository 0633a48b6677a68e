package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/aitexteditor/aite/internal/agent"
	"github.com/aitexteditor/aite/internal/agentdef"
	"github.com/aitexteditor/aite/internal/api"
	"github.com/aitexteditor/aite/internal/store"
)

// chatService owns a chat's lifecycle for POST /query (PLATFORM_API § 2.1,
// § 5.1): it resolves the chat (one lookup; its runs are listed only while
// none of them has ended), the run's agent and document, applies the busy
// rule, stores the chat (created, or with its new binding), starts the run
// on the runner (its tools bound to the document on the run's goroutine,
// its questions opened for /submit) and records the run's end on the chat.
// The runner loads the chat's memory once, at the run's start.
type chatService struct{ *Server }

// chats returns the server's chat service.
func (s *Server) chats() chatService { return chatService{s} }

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

// startQuery prepares a query and starts its run.
func (s chatService) startQuery(ctx context.Context, req api.QueryRequest) (*Run, error) {
	q, err := s.prepareQuery(ctx, req)
	if err != nil {
		return nil, err
	}
	return s.startRun(ctx, q)
}

// prepareQuery runs the checks of § 2.1 up to the busy chat, in order.
func (s chatService) prepareQuery(ctx context.Context, req api.QueryRequest) (*preparedQuery, error) {
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

// supersede applies the busy-chat rule: a chat's running run that a client
// follows keeps the chat (400 busy, § 2.1); one that no client follows any
// more (the client's Stop closed the stream, or a reload) is canceled with
// reason superseded, so the new query runs (RunManager.Supersede).
func (s chatService) supersede(ctx context.Context, chatID string) (string, bool) {
	ctx, cancel := context.WithTimeout(ctx, supersedeWait)
	defer cancel()
	return s.opts.Runs.Supersede(ctx, chatID)
}

// supersedeWait bounds how long a query waits for the run it supersedes to
// end (its terminal event stored and its chat updated).
const supersedeWait = 10 * time.Second

// resolveChat looks the chat up; a blank chatId names a new chat. The chat
// is created by startRun, once every check has passed. Whether the run is
// the chat's first (chat.start) needs the chat's runs only while none of
// them has ended (LastRunID is set when one does).
func (s chatService) resolveChat(ctx context.Context, q *preparedQuery) error {
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
	if chat.LastRunID != "" {
		return nil // a run of the chat ended: this is not its first
	}
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
func (s chatService) resolveAgent(q *preparedQuery) error {
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

// resolveDocument picks the run's document [EXT]: the request's selection
// (params.documentId or a references[] entry of type document), which
// becomes the chat's binding, else the chat's bound document.
func (s chatService) resolveDocument(ctx context.Context, q *preparedQuery) error {
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

// startRun stores the chat (created, or with its new binding), allocates
// the runId and starts the run: bootstrap events, then the engine on the
// run's own goroutine.
func (s chatService) startRun(ctx context.Context, q *preparedQuery) (*Run, error) {
	if err := s.saveChat(ctx, q); err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		run, err := s.startRunAs(ctx, q, s.runID.Next())
		if busy, ok := errors.AsType[*BusyError](err); ok {
			return nil, busyError(busy.RunID)
		}
		if !errors.Is(err, store.ErrExists) || attempt == runIDAttempts {
			return run, err
		}
	}
}

// runIDAttempts bounds the run ids tried for one query: an id another
// node issued in the same millisecond is taken, and the next one is tried.
const runIDAttempts = 5

// startRunAs starts the run of q with id runID.
func (s chatService) startRunAs(ctx context.Context, q *preparedQuery, runID string) (*Run, error) {
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
		Message: q.req.Message, Params: rq.Params, ContinuePlan: continuePlan(q.req.Params), NewChat: q.firstRun}
	if len(rq.References) > 0 {
		if spec.References, err = api.Encode(rq.References); err != nil {
			return nil, err
		}
	}
	return s.opts.Runs.Start(ctx, RunSpec{RunID: runID, ChatID: q.chatID, RequestID: rq.RequestID,
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
}

// saveChat creates a new chat bound to the resolved agent and document, or
// stores the changed binding of an existing one.
func (s chatService) saveChat(ctx context.Context, q *preparedQuery) error {
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

// recordRunEnd stores the end of a run on its chat (§ 5.1): lastRunId,
// updatedAt, lastRunContent (the run's content text, else the user
// message), unread. RunSpec.Finished calls it before the terminal event
// reaches any subscriber.
func (s chatService) recordRunEnd(ctx context.Context, chatID, runID, message, content string) {
	if content == "" {
		content = message
	}
	if err := s.opts.Store.UpdateChatAfterRun(ctx, chatID, runID, content, s.opts.Clock()); err != nil {
		s.opts.Logger.Error("recording the end of a run on its chat failed", "chat", chatID, "run", runID, "err", err)
	}
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
