package agent

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/agent/protocol"
	"github.com/aitexteditor/aite/internal/agentdef"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/tool"
)

// protoRun is one run of a protocol agent (AGENT_PROTOCOL § 5): the
// protocol runtime drives the turns; the engine supplies the agent, the
// activities, the approver and the chat memory, and maps the runtime's
// events onto the stream.
type protoRun struct {
	e     *Runner
	spec  Spec
	agent agentdef.AgentDef // normalized
	em    *emitter
	log   *slog.Logger

	backends map[string]tool.Tool         // Spec.Tools, by lowercase name
	natives  map[string]protocol.Activity // Spec.Activities, by lowercase name
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
	memory   agentctx.Context          // the chat memory the run starts from
	first    bool                      // the model has not answered in the chat yet
}

// builtAgent is a converted protocol agent, or why it could not be built.
type builtAgent struct {
	a   *protocol.Agent
	err error
}

// errStore cancels a run whose messages could not be stored.
var errStore = errors.New("agent: storing the run's messages failed")

// newProtoRun prepares a protocol agent's run (AGENT_PROTOCOL §§ 5.3–5.5):
// its backends and activities, its chat memory and the stored user
// message. cancel is the run's cancel function. execute then runs it.
func (e *Runner) newProtoRun(ctx context.Context, spec Spec, cancel context.CancelCauseFunc) (*protoRun, error) {
	if err := e.check(spec); err != nil {
		return nil, err
	}
	p := &protoRun{e: e, spec: spec, agent: normalize(spec.Agent),
		log:    e.logger().With("runId", spec.RunID, "protocol", true),
		cancel: cancel, agents: map[string]*builtAgent{}, models: map[string]*modelProvider{}}
	p.backends = lowerKeys(spec.Tools)
	p.natives = make(map[string]protocol.Activity, len(spec.Activities))
	for k, a := range spec.Activities {
		p.natives[lower(k)] = a
	}
	var err error
	if p.memory, p.first, err = p.loadMemory(ctx); err != nil {
		return nil, err
	}
	if err := p.saveUser(ctx); err != nil {
		return nil, err
	}
	return p, nil
}

// execute runs the prepared run to its end, emitting through em.
func (p *protoRun) execute(ctx context.Context, em *emitter) {
	p.em = em
	res, err := p.safeRun(ctx, p.memory, p.first)
	p.end(ctx, res, err)
}

// safeRun converts the agent and runs it; a panic becomes an error.
func (p *protoRun) safeRun(ctx context.Context, memory agentctx.Context, first bool) (res *protocol.RunResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			p.log.Error("protocol run panic", "panic", r, "stack", string(debug.Stack()))
			res, err = nil, internalf("panic: %v", r)
		}
	}()
	built := p.agentFor(ctx, p.agent)
	if built.err != nil {
		var f *failure
		if errors.As(built.err, &f) {
			return nil, f
		}
		return nil, internalf("%v", built.err)
	}
	rt := &protocol.Runtime{Provider: p.provider, Registry: p.registry(ctx), Approver: (*protoApprover)(p),
		Confirmer: (*protoConfirmer)(p), Clock: p.e.Clock}
	initial := append(memory, p.inputMessage())
	return rt.Run(ctx, built.a, initial, protocol.RunOptions{RunID: p.spec.RunID, FirstOfChat: first,
		Sink: func(ev protocol.Event) { p.sink(ctx, ev) }, ChatGrants: protocol.GrantsFromContext(memory)})
}

// end emits the terminal event of the run and stores the conversation
// entry of its end.
func (p *protoRun) end(ctx context.Context, res *protocol.RunResult, err error) {
	if p.em.over() {
		p.log.Warn("the run's consumer stopped reading", "err", err)
		return
	}
	if err == nil {
		if serr := p.saveConversation(context.WithoutCancel(ctx), res); serr != nil {
			err = serr
		}
	}
	if err == nil {
		end := &End{FinishReason: res.FinishReason, Ledger: res.Ledger, Usage: res.Usage}
		if res.HasOutput && p.output != nil {
			end.Answer = p.output.Text
		}
		p.em.emit(Event{Type: TurnEnd}, Event{Type: RunComplete, End: end})
		return
	}
	info := p.failure(ctx, err)
	p.log.Info("protocol run failed", "code", info.Code, "message", info.Message)
	p.em.emit(Event{Type: RunError, End: &End{Error: &info}})
}

// failure converts a run error into the run.error info: a storage failure
// or a panic is internal_error, a done run context run_aborted, a model
// failure model_error.
func (p *protoRun) failure(ctx context.Context, err error) ErrorInfo {
	var f *failure
	var le *llm.Error
	switch {
	case errors.As(err, &f):
		return f.info
	case errors.Is(context.Cause(ctx), errStore):
		return internalf("%v", p.storageError()).info
	case ctx.Err() != nil:
		return ErrorInfo{Code: CodeRunAborted, Message: "The run was aborted", Retriable: true}
	case errors.As(err, &le):
		return modelFailure(err)
	}
	return internalf("%v", err).info
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
		if refs, err := agentctx.Decode(p.spec.References); err == nil {
			v.Set("references", refs)
		}
	}
	return agentctx.Message{Type: agentctx.TypeInput, Kind: string(agentctx.TypeInput), Value: v, HasValue: true}
}

// emitEdit streams an applied edit of call toolID as document.edit.
func (p *protoRun) emitEdit(toolID string, e tool.Edit) {
	p.em.emit(Event{Type: DocumentEdit, ToolID: toolID, Edit: &e})
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

// errorResult is the platform's error result for a failed call
// ({"tool","ok":false,"code","error"}, § 7.1) from the runtime's payload.
func errorResult(ev protocol.Event) outcome {
	var payload struct {
		Error string `json:"error"`
	}
	if json.Unmarshal([]byte(ev.Result), &payload) != nil || payload.Error == "" {
		payload.Error = ev.Result
	}
	return errorOutcome(ev.ToolName, string(ev.Code), payload.Error)
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
