package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/agent/protocol"
	"github.com/aitexteditor/aite/internal/agentdef"
	"github.com/aitexteditor/aite/internal/api"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/tool"
)

// ContextProvider supplies the messages of a `provider` entry of
// protocol.context at run start (AGENT_PROTOCOL § 5.1), e.g. the reference
// cards of the run's document.
type ContextProvider func(ctx context.Context, spec Spec) ([]agentctx.Message, error)

// protoRun is one run of a protocol agent (AGENT_PROTOCOL § 5): the
// protocol runtime drives the turns; the engine supplies the agent, the
// activities, the approver and the chat memory, and maps the runtime's
// events onto the stream.
type protoRun struct {
	e     *Engine
	spec  Spec
	agent agentdef.AgentDef // normalized
	em    *lockedEmitter
	log   *slog.Logger
	waits *runWaits

	backends map[string]tool.Tool         // Engine.Backends, by lowercase name
	natives  map[string]protocol.Activity // Engine.Activities, by lowercase name
	ctx      context.Context              // the run context (context providers of delegates)
	cancel   context.CancelCauseFunc

	agentsMu sync.Mutex
	agents   map[string]*builtAgent    // protocol agents of the snapshot, by key
	models   map[string]*modelProvider // by model key
	modelsMu sync.Mutex                // guards models
	stores   sync.Mutex                // serialises the stored rows
	storeErr error                     // the first storage failure (guarded by stores)
	turn     int                       // the top run's current turn (sink only)
	inTurn   bool                      // a turn is open on the stream (sink only)
	output   *protocol.Event           // the top run's EvOutput (sink only)
}

// builtAgent is a converted protocol agent, or why it could not be built.
type builtAgent struct {
	a   *protocol.Agent
	err error
}

// errStore cancels a run whose messages could not be stored.
var errStore = errors.New("engine: storing the run's messages failed")

// executeProtocol runs a protocol agent through the protocol runtime
// (AGENT_PROTOCOL §§ 5.3–5.5). Like Execute it returns nil once em got its
// terminal event, an error only for failures before anything was emitted.
func (e *Engine) executeProtocol(ctx context.Context, spec Spec, em Emitter) error {
	switch {
	case spec.Defs == nil:
		return errors.New("engine: spec without definitions")
	case e.Store == nil || e.Models == nil:
		return errors.New("engine: Store and Models are required")
	case spec.RunID == "" || spec.ChatID == "":
		return errors.New("engine: spec without run id or chat id")
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	p := &protoRun{e: e, spec: spec, agent: normalize(spec.Agent), em: &lockedEmitter{em: em},
		log: e.logger().With("runId", spec.RunID, "protocol", true), waits: newRunWaits(e, spec.RunID),
		ctx: runCtx, cancel: cancel, agents: map[string]*builtAgent{}, models: map[string]*modelProvider{}}
	defer p.waits.close()
	if e.Backends != nil {
		b, err := e.Backends(ctx, spec)
		if err != nil {
			return fmt.Errorf("engine: backend tools: %w", err)
		}
		p.backends = lowerKeys(b)
	}
	if e.Activities != nil {
		acts, err := e.Activities(ctx, spec, p.emitEdit)
		if err != nil {
			return fmt.Errorf("engine: protocol activities: %w", err)
		}
		p.natives = make(map[string]protocol.Activity, len(acts))
		for k, a := range acts {
			p.natives[lower(k)] = a
		}
	}
	memory, first, err := p.loadMemory(ctx)
	if err != nil {
		return err
	}
	if err := p.saveUser(ctx); err != nil {
		return err
	}
	res, err := p.safeRun(runCtx, memory, first)
	p.end(runCtx, res, err)
	return nil
}

// safeRun converts the agent and runs it; a panic becomes an error.
func (p *protoRun) safeRun(ctx context.Context, memory agentctx.Context, first bool) (res *protocol.RunResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			p.log.Error("protocol run panic", "panic", r, "stack", string(debug.Stack()))
			res, err = nil, internalf("panic: %v", r)
		}
	}()
	built := p.agentFor(p.agent)
	if built.err != nil {
		var f *failure
		if errors.As(built.err, &f) {
			return nil, f
		}
		return nil, internalf("%v", built.err)
	}
	rt := &protocol.Runtime{Provider: p.provider, Registry: (*protoRegistry)(p), Approver: (*protoApprover)(p),
		Confirmer: (*protoConfirmer)(p), Clock: p.e.Clock}
	initial := append(memory, p.inputMessage())
	return rt.Run(ctx, built.a, initial, protocol.RunOptions{RunID: p.spec.RunID, FirstOfChat: first,
		Sink: p.sink, ChatGrants: protocol.GrantsFromContext(memory)})
}

// end emits the terminal event of the run and stores the conversation
// entry of its end.
func (p *protoRun) end(ctx context.Context, res *protocol.RunResult, err error) {
	if p.em.ended() {
		p.log.Warn("the emitter ended the run", "err", err)
		return
	}
	if err == nil {
		if serr := p.saveConversation(context.WithoutCancel(ctx), res); serr != nil {
			err = serr
		}
	}
	if err == nil {
		p.em.do(func(em Emitter) {
			em.TurnEnd()
			if res.Ledger != nil {
				em.CompleteLedger(res.FinishReason, apiLedger(res.Ledger))
				return
			}
			em.Complete(res.FinishReason)
		})
		return
	}
	info := p.failure(ctx, err)
	p.log.Info("protocol run failed", "code", info.Code, "message", info.Message)
	p.em.do(func(em Emitter) { em.Fail(info) })
}

// failure converts a run error into the run.error info: a storage failure
// or a panic is internal_error, a done run context run_aborted, a model
// failure model_error.
func (p *protoRun) failure(ctx context.Context, err error) api.ErrorInfo {
	var f *failure
	var le *llm.Error
	switch {
	case errors.As(err, &f):
		return f.info
	case errors.Is(context.Cause(ctx), errStore):
		return internalf("%v", p.storageError()).info
	case ctx.Err() != nil:
		return api.ErrorInfo{Code: api.CodeRunAborted, Message: "The run was aborted", Retriable: true}
	case errors.As(err, &le):
		p.log.Warn("model call failed", "err", err)
		return modelErrorInfo(err)
	}
	return internalf("%v", err).info
}

// apiLedger converts the runtime's ledger; its lists are never null.
func apiLedger(l *protocol.Ledger) *api.Ledger {
	out := &api.Ledger{Cap: l.Cap, Turns: l.Turns, ModelCalls: l.ModelCalls, Repairs: l.Repairs, ToolCalls: l.ToolCalls,
		Tokens: api.LedgerTokens{Prompt: l.Tokens.Prompt, Completion: l.Tokens.Completion}, ElapsedMs: l.ElapsedMs,
		PendingCalls: []api.PendingCall{}, LastErrors: nonNilStrings(l.LastErrors)}
	for _, c := range l.PendingCalls {
		out.PendingCalls = append(out.PendingCalls, api.PendingCall{ToolID: c.ToolID, Tool: c.Tool, WaitingOn: nonNilStrings(c.WaitingOn)})
	}
	return out
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// inputMessage is the run's `input`: {message, params?, references?} of the
// query (AGENT_PROTOCOL § 5.5).
func (p *protoRun) inputMessage() agentctx.Message {
	v := agentctx.NewObject("message", p.spec.Message)
	if len(p.spec.Params) > 0 {
		params := &agentctx.Object{}
		for _, k := range sortedKeys(p.spec.Params) {
			if val, err := agentctx.Decode(p.spec.Params[k]); err == nil {
				params.Set(k, val)
			}
		}
		v.Set("params", params)
	}
	if len(p.spec.References) > 0 {
		if b, err := api.Encode(p.spec.References); err == nil {
			if refs, err := agentctx.Decode(b); err == nil {
				v.Set("references", refs)
			}
		}
	}
	return agentctx.Message{Type: agentctx.TypeInput, Kind: string(agentctx.TypeInput), Value: v, HasValue: true}
}

// lockedEmitter serialises the emitter: the runtime's sink, the activities
// and the approver emit from several goroutines.
type lockedEmitter struct {
	mu sync.Mutex
	em Emitter
}

func (l *lockedEmitter) do(f func(Emitter)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f(l.em)
}

func (l *lockedEmitter) ended() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.em.Ended()
}

// emitEdit streams an applied edit of call toolID as document.edit.
func (p *protoRun) emitEdit(toolID string, e tool.Edit) {
	p.em.do(func(em Emitter) { em.DocumentEdit(toolID, e) })
}

// fail records the first storage failure and cancels the run.
func (p *protoRun) fail(err error) {
	p.stores.Lock()
	if p.storeErr == nil {
		p.storeErr = err
	}
	p.stores.Unlock()
	p.log.Error("protocol run: storage failed", "err", err)
	p.cancel(errStore)
}

func (p *protoRun) storageError() error {
	p.stores.Lock()
	defer p.stores.Unlock()
	return p.storeErr
}

// toolKind is the call kind of a tool file kind.
func toolKind(fileKind string) CallKind {
	switch agentdef.ToolKind(fileKind) {
	case agentdef.ToolFrontend:
		return CallFrontend
	case agentdef.ToolAction:
		return CallAction
	}
	return CallBackend
}

// errorResultText is the platform's error result for a failed call
// ({"tool","ok":false,"code","error"}, § 7.1) from the runtime's payload.
func errorResultText(ev protocol.Event) string {
	var payload struct {
		Error string `json:"error"`
	}
	if json.Unmarshal([]byte(ev.Result), &payload) != nil || payload.Error == "" {
		payload.Error = ev.Result
	}
	return errorText(ev.ToolName, string(ev.Code), payload.Error)
}

// resultText is the tool.result string of a successful call: the result's
// JSON, a JSON string as its text.
func resultText(result string) string {
	var s string
	if strings.HasPrefix(result, `"`) && json.Unmarshal([]byte(result), &s) == nil {
		return s
	}
	return result
}

// encodeObject is the compact JSON of an ordered object ({} for nil).
func encodeObject(o *agentctx.Object) string {
	if o == nil {
		return "{}"
	}
	b, err := agentctx.Encode(o)
	if err != nil {
		return "{}"
	}
	return string(b)
}
