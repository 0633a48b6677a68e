package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aitexteditor/aite/internal/agent"
	"github.com/aitexteditor/aite/internal/agentdef"
	"github.com/aitexteditor/aite/internal/cursoragent"
	"github.com/aitexteditor/aite/internal/reading"
	"github.com/aitexteditor/aite/internal/server/builtins"
	"github.com/aitexteditor/aite/internal/store"
	"github.com/aitexteditor/aite/internal/store/memory"
	"github.com/aitexteditor/aite/internal/tool"
	"github.com/aitexteditor/aite/internal/tool/bookprotocol"
	"github.com/aitexteditor/aite/internal/tool/booktools"
)

// DefaultMaxSteps is --max-steps of the default agent: its model turns
// with tools before it must answer.
const DefaultMaxSteps = 12

// agentSession runs an agent on an open book through the one runtime
// (agent.Runner), as the server runs it: the definitions the server runs
// (agent), the model of --model for the key "default", the book's tools
// bound to the command's editor session (edits stay in memory until they
// are written), a chat memory of its own (an in-memory store: the runs of
// `aite chat` see the earlier ones) and the person at the terminal for
// the questions.
type agentSession struct {
	b      *Book
	req    AskRequest
	defs   *definitions
	agent  agentdef.AgentDef
	runner *agent.Runner
	mem    *memory.Store
	chatID string
	runs   int
}

// newAgentSession prepares the agent of req (req.Agent, else
// DefaultAgent) over the open book b, answering questions on term.
func newAgentSession(b *Book, req AskRequest, term *terminal) (*agentSession, error) {
	models := cliModels{chosen: req.Model}
	defs, err := loadDefinitions(req.Config, req.Agent != "", models, req.Log)
	if err != nil {
		return nil, err
	}
	key := req.Agent
	if key == "" {
		key = DefaultAgent
	}
	a, err := defs.agent(key)
	if err != nil {
		defs.close()
		return nil, err
	}
	if req.MaxSteps > 0 && a.React == nil && a.Protocol == nil {
		defs.close()
		return nil, reading.Usagef("--max-steps bounds the turns of a REACT or protocol agent; %s is %s", key, a.Mode)
	}
	s := &agentSession{b: b, req: req, defs: defs, agent: withMaxSteps(a, req.MaxSteps), mem: memory.New(),
		chatID: "cli"}
	s.runner = &agent.Runner{Models: models, Memory: s.mem, Waiter: term}
	now := time.Now()
	if err := s.mem.CreateChat(context.Background(), store.Chat{ID: s.chatID, Name: b.ID(), AgentKey: key,
		CreatedAt: now, UpdatedAt: now}); err != nil {
		defs.close()
		return nil, err
	}
	return s, nil
}

// withMaxSteps sets the model turns with tools of a REACT agent (its
// protocol's maxTurns for a protocol agent); n <= 0 keeps the agent's own.
// The mode blocks are copied: they belong to the definitions.
func withMaxSteps(a agentdef.AgentDef, n int) agentdef.AgentDef {
	if n <= 0 {
		return a
	}
	if a.React != nil {
		r := *a.React
		r.MaxSteps = n
		a.React = &r
	}
	if a.Protocol != nil {
		p := *a.Protocol
		p.Limits.MaxTurns = n
		a.Protocol = &p
	}
	return a
}

// close releases the definitions.
func (s *agentSession) close() { s.defs.close() }

// run runs the agent once on message, showing the run with pr, and returns
// its events. A run that failed (or was canceled) is an error too.
func (s *agentSession) run(ctx context.Context, message string, pr *Printer) ([]agent.Event, error) {
	s.runs++
	runID := fmt.Sprintf("run%d", s.runs)
	err := s.mem.CreateRun(ctx, store.Run{ID: runID, ChatID: s.chatID, AgentKey: s.agent.Key, Status: store.RunRunning,
		StartedAt: time.Now()})
	if err != nil {
		return nil, err
	}
	spec := agent.Spec{RunID: runID, ChatID: s.chatID, RequestID: runID, Agent: s.agent, Defs: s.defs.snap,
		Message: message}
	s.bind(&spec)
	var evs []agent.Event
	for ev, err := range s.runner.Run(ctx, spec) {
		if err != nil {
			return evs, err
		}
		pr.Event(ev)
		evs = append(evs, ev)
	}
	last := evs[len(evs)-1]
	switch {
	case ctx.Err() != nil:
		return evs, fmt.Errorf("canceled: the run was canceled")
	case last.Type == agent.RunError:
		return evs, fmt.Errorf("%s: %s", last.End.Error.Code, last.End.Error.Message)
	case last.End.FinishReason != agent.FinishStop:
		return evs, unfinished(last.End.FinishReason, maxSteps(s.agent))
	}
	return evs, nil
}

// unfinished is the error of a run that completed without finishing its
// work: a limit or a deadline stopped it, so its answer and its edits are
// not what was asked.
func unfinished(reason string, turns int) error {
	switch reason {
	case agent.FinishMaxTurns:
		return fmt.Errorf("the agent stopped at its turn limit (%d turns) before it finished; run again with a larger --max-steps", turns)
	case agent.FinishBudget:
		return errors.New("the agent used up its budget before it finished")
	case agent.FinishTimeout:
		return errors.New("the run timed out before it finished (a question got no answer in time, or the run's deadline passed)")
	}
	return fmt.Errorf("the run ended (%s) before it finished", reason)
}

// bind gives a run its tools on the book: the book tools (with the cursor
// agent on the chosen model, its task states in the book's state
// directory) and the demo tools; for a protocol agent also
// the protocol book editor's activities and reference cards.
func (s *agentSession) bind(spec *agent.Spec) {
	if s.req.Model.Embed != nil {
		s.b.s.SetEmbeddings(s.req.Model.Embed) // the book tools search by meaning too
	}
	cursorAgent := s.req.Model.CursorAgent(s.b)
	cursorAgent.Store = cursoragent.FileStore{Book: s.req.Book} // aite navigate --resume continues its tasks
	env := booktools.Env{Session: s.b.Session(), Book: s.b.ID(), Agent: cursorAgent}
	spec.Tools = map[string]tool.Tool{}
	for _, t := range append(builtins.Backends(), booktools.Tools(env)...) {
		spec.Tools[strings.ToLower(t.Name())] = t
	}
	if spec.Agent.Protocol == nil {
		return
	}
	spec.Activities = bookprotocol.Activities(env)
	spec.Context = map[string]agent.ContextProvider{}
	for name, p := range bookprotocol.Providers(env) {
		spec.Context[name] = agent.ContextProvider(p)
	}
}

// maxSteps is the agent's model turns with tools (REACT steps; a protocol
// agent's maxTurns when it sets them).
func maxSteps(a agentdef.AgentDef) int {
	if a.Protocol != nil && a.Protocol.Limits.MaxTurns > 0 {
		return a.Protocol.Limits.MaxTurns
	}
	if a.React != nil {
		return a.React.MaxSteps
	}
	return 0
}
