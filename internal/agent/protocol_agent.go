package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/agent/protocol"
	"github.com/aitexteditor/aite/internal/agentdef"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/models"
	"github.com/aitexteditor/aite/internal/tool"
)

// agentFor converts a protocol agent definition once per run (cached by
// key). The cache entry exists before Agent.Check runs, so delegates that
// name each other terminate. ctx is the run's: context providers get it.
func (p *protoRun) agentFor(ctx context.Context, def agentdef.AgentDef) *builtAgent {
	p.agentsMu.Lock()
	if b := p.agents[def.Key]; b != nil {
		p.agentsMu.Unlock()
		return b
	}
	p.agentsMu.Unlock()
	a, err := p.buildAgent(ctx, def)
	b := &builtAgent{a: a, err: err}
	p.agentsMu.Lock()
	if prev := p.agents[def.Key]; prev != nil {
		p.agentsMu.Unlock()
		return prev
	}
	p.agents[def.Key] = b
	p.agentsMu.Unlock()
	if err == nil {
		if err := a.Check(p.registry(ctx)); err != nil {
			b.a, b.err = nil, err
		}
	}
	return b
}

// buildAgent converts an agent definition with a protocol block into a
// normalised protocol.Agent (AGENT_PROTOCOL § 5.1).
func (p *protoRun) buildAgent(ctx context.Context, def agentdef.AgentDef) (*protocol.Agent, error) {
	def = normalize(def)
	pb := def.Protocol
	if pb == nil {
		return nil, fmt.Errorf("agent %q has no protocol block", def.Key)
	}
	a := &protocol.Agent{Key: def.Key}
	var stage agentdef.Stage
	switch {
	case def.Mode == agentdef.ModeOneshot && def.Plain != nil:
		stage, a.Oneshot = *def.Plain, true
	case def.Mode == agentdef.ModeReact && def.React != nil:
		stage, a.Limits.MaxTurns = def.React.Stage, def.React.MaxSteps // LM2: else react.maxSteps
	default:
		return nil, fmt.Errorf("agent %q: mode %s cannot run as a protocol agent", def.Key, def.Mode)
	}
	a.SystemPrompt = stage.SystemPrompt
	if pb.Limits.MaxTurns > 0 {
		a.Limits.MaxTurns = pb.Limits.MaxTurns
	}
	a.Limits.MaxParallel, a.Limits.MaxDelegateDepth = pb.Limits.MaxParallel, pb.Limits.MaxDelegateDepth
	a.Limits.MaxModelCalls, a.Limits.MaxToolCalls = def.Budget.Model.MaxCalls, def.Budget.Tool.MaxCalls
	a.Limits.RunTimeout = def.Budget.RunTimeout()

	for _, name := range stage.ToolConfig.Names() {
		d, ok, err := p.toolDecl(name)
		switch {
		case err != nil:
			return nil, fmt.Errorf("agent %q: %w", def.Key, err)
		case ok:
			a.Tools = append(a.Tools, d)
		default:
			p.log.Warn("protocol agent tool has no definition and no implementation; left out", "agent", def.Key, "tool", name)
		}
	}
	advisors, err := def.AdvisorMessages()
	if err != nil {
		return nil, fmt.Errorf("agent %q: %w", def.Key, err)
	}
	a.Advisors = advisors
	if a.Context, err = p.contextMessages(ctx, def.Key, pb.Context); err != nil {
		return nil, err
	}
	if a.OutputSchema, err = decodeSchema(pb.OutputSchema); err != nil {
		return nil, fmt.Errorf("agent %q: outputSchema: %w", def.Key, err)
	}
	if a.InputSchema, err = decodeSchema(pb.InputSchema); err != nil {
		return nil, fmt.Errorf("agent %q: inputSchema: %w", def.Key, err)
	}
	a.OutputText, a.ResponseFormat, a.UnpathedResults = pb.OutputText, pb.ResponseFormat, pb.UnpathedResults
	a.ReasoningField, a.ReasoningOff = pb.ReasoningField, pb.ReasoningOff
	if pb.RepairRetries != nil {
		a.RepairRetries = *pb.RepairRetries
		if a.RepairRetries == 0 {
			a.RepairRetries = -1 // written 0: no repair (0 means the default)
		}
	}
	if pb.ErrorWindow != nil {
		a.ErrorWindow = *pb.ErrorWindow
	}
	a.Approval = protocol.Approval{RequestedScopes: pb.Approval.RequestedScopes,
		Timeout: time.Duration(pb.Approval.TimeoutMs) * time.Millisecond, Calls: pb.Approval.Calls}
	a.ConfirmTools = slices.Clone(pb.Approval.ConfirmTools)
	if g := pb.Guard; g != nil {
		a.Guard = &protocol.GuardConfig{MinMeanWeight: g.MinMeanWeight, Tools: g.Tools, OnNoVotes: g.OnNoVotes}
		if g.DisagreementSpread != nil {
			a.Guard.DisagreementSpread = *g.DisagreementSpread
		}
	}
	mp, err := p.modelFor(stage.ModelConfig)
	if err != nil {
		return nil, fmt.Errorf("agent %q: %w", def.Key, err)
	}
	a.Model = protocol.ModelInfo{Key: stage.ModelConfig.ModelKey, SupportsTools: mp.model.SupportsTools}
	switch {
	case mp.model.SupportsJSONSchema:
		a.Model.StructuredOutput = "json_schema"
	case mp.model.SupportsTools:
		a.Model.StructuredOutput = "tool"
	}
	if err := a.Normalize(); err != nil {
		return nil, err
	}
	return a, nil
}

// decodeSchema decodes an optional JSON Schema into ordered form.
func decodeSchema(raw json.RawMessage) (any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	return agentctx.Decode(raw)
}

// toolDecl declares a configured tool: its tool file entry (all its
// parameters, meta-properties included, in declared order), else the Go
// backend tool of that name; ok is false when neither exists.
func (p *protoRun) toolDecl(name string) (d protocol.ToolDecl, ok bool, err error) {
	name = lower(name)
	impl := p.backends[name]
	raw, desc, kind := json.RawMessage(nil), "", string(agentdef.ToolBackend)
	if def, has := p.spec.Defs.Tool(name); has {
		raw, desc, kind = def.Parameters, def.Description, string(def.Kind)
		if desc == "" && def.Kind == agentdef.ToolBackend && impl != nil {
			desc = impl.Description()
		}
	} else if impl != nil {
		raw, desc = impl.Parameters(), impl.Description()
	} else {
		return d, false, nil
	}
	d = protocol.ToolDecl{Name: name, Description: desc, FileKind: kind}
	if len(raw) > 0 {
		v, err := agentctx.Decode(raw)
		if err != nil {
			return d, false, fmt.Errorf("tool %q: parameters: %w", name, err)
		}
		obj, isObj := v.(*agentctx.Object)
		if !isObj {
			return d, false, fmt.Errorf("tool %q: parameters must be a JSON object", name)
		}
		d.Parameters = obj
	}
	return d, true, nil
}

// contextMessages resolves protocol.context: static messages as they are,
// provider entries through Runner.ContextProviders (frozen tier). An
// unknown provider or a failing one is an error: the run cannot start
// without the context its agent declares.
func (p *protoRun) contextMessages(ctx context.Context, key string, entries []json.RawMessage) (agentctx.Context, error) {
	var out agentctx.Context
	for i, raw := range entries {
		var probe struct {
			Provider *string `json:"provider"`
		}
		if err := json.Unmarshal(raw, &probe); err != nil {
			return nil, fmt.Errorf("agent %q: protocol.context[%d]: %w", key, i, err)
		}
		if probe.Provider == nil {
			m, err := agentctx.ParseMessage(raw)
			if err != nil {
				return nil, fmt.Errorf("agent %q: protocol.context[%d]: %w", key, i, err)
			}
			out = append(out, m)
			continue
		}
		name := strings.TrimSpace(*probe.Provider)
		provide := p.spec.Context[name]
		if provide == nil {
			return nil, fmt.Errorf("agent %q: protocol.context[%d]: context provider %q is not registered", key, i, name)
		}
		msgs, err := provide(ctx)
		if err != nil {
			return nil, fmt.Errorf("agent %q: context provider %q: %w", key, name, err)
		}
		out = append(out, msgs...)
	}
	return out, nil
}

// protoRegistry is the run's protocol.Registry: activities for the Go
// backend tools, the frontend tools and the actions; tool declarations for
// `ref` tool messages; the snapshot's protocol agents for delegates,
// converted by build (agentFor under the run's context).
type protoRegistry struct {
	p     *protoRun
	build func(def agentdef.AgentDef) *builtAgent
}

// registry is the run's protocol.Registry; delegates are converted under
// ctx, the run's context.
func (p *protoRun) registry(ctx context.Context) *protoRegistry {
	return &protoRegistry{p: p, build: func(def agentdef.AgentDef) *builtAgent { return p.agentFor(ctx, def) }}
}

// Activity implements protocol.Registry.
func (reg *protoRegistry) Activity(name string) (protocol.Activity, bool) {
	p := reg.p
	name = lower(name)
	if act := p.natives[name]; act != nil {
		n := &nativeActivity{act: act, timeout: p.agent.Budget.Tool.Timeout(), edit: p.emitEdit}
		if pv, ok := act.(protocol.Previewer); ok {
			return &previewingActivity{nativeActivity: n, pv: pv}, true
		}
		return n, true
	}
	if def, ok := p.spec.Defs.Tool(name); ok {
		switch def.Kind {
		case agentdef.ToolFrontend:
			return protocol.ActivityFunc(p.runFrontend), true
		case agentdef.ToolAction:
			return protocol.ActivityFunc(runAction), true
		}
	}
	if impl := p.backends[name]; impl != nil {
		return protocol.ActivityFunc(func(ctx context.Context, call *protocol.Call, _ *protocol.Tool, _ protocol.Scoped) (protocol.Result, error) {
			return p.runBackend(ctx, name, impl, call)
		}), true
	}
	return nil, false
}

// Tool implements protocol.Registry.
func (reg *protoRegistry) Tool(name string) (protocol.ToolDecl, bool) {
	d, ok, err := reg.p.toolDecl(name)
	return d, ok && err == nil
}

// Agent implements protocol.Registry: the snapshot's protocol agent of
// that key, converted once per run.
func (reg *protoRegistry) Agent(key string) (*protocol.Agent, bool) {
	p := reg.p
	def, ok := p.spec.Defs.Agent(key)
	if !ok || def.Protocol == nil {
		return nil, false
	}
	b := reg.build(def)
	if b.err != nil {
		p.log.Warn("delegate agent unusable", "agent", key, "err", b.err)
		return nil, false
	}
	return b.a, true
}

// nativeActivity runs a native activity with the call's id in its context
// (CallID) under the budget.tool timeout; the edits it reports
// (tool.ReportEdit) are streamed as document.edit of the call.
type nativeActivity struct {
	act     protocol.Activity
	timeout time.Duration
	edit    func(toolID string, e tool.Edit)
}

// Run implements protocol.Activity.
func (n *nativeActivity) Run(ctx context.Context, call *protocol.Call, t *protocol.Tool, scoped protocol.Scoped) (protocol.Result, error) {
	ctx, cancel := context.WithTimeout(WithCall(ctx, call.ToolID), n.timeout)
	defer cancel()
	ctx = tool.WithEdits(ctx, func(e tool.Edit) { n.edit(call.ToolID, e) })
	return n.act.Run(ctx, call, t, scoped)
}

// previewingActivity is a native activity that previews its calls for the
// edit approval (protocol.Previewer), under the same timeout.
type previewingActivity struct {
	*nativeActivity
	pv protocol.Previewer
}

// Preview implements protocol.Previewer.
func (n *previewingActivity) Preview(ctx context.Context, call *protocol.Call, t *protocol.Tool, scoped protocol.Scoped) (any, error) {
	ctx, cancel := context.WithTimeout(WithCall(ctx, call.ToolID), n.timeout)
	defer cancel()
	return n.pv.Preview(ctx, call, t, scoped)
}

// protoConfirmer is the run's Confirmer under the policy approval.calls
// "ask": it puts the approval.request to the Waiter. The runtime bounds the
// wait with approval.timeoutMs and then decides "timeout".
type protoConfirmer protoRun

// Confirm implements protocol.Confirmer: it waits for the decision on the
// request's approvalId and emits request.submit with the answer as given.
// When nobody can answer, every call is denied by policy.
func (c *protoConfirmer) Confirm(ctx context.Context, req protocol.CallConfirmation) (protocol.ConfirmDecision, error) {
	p := (*protoRun)(c)
	a, err := p.e.ask(ctx, 0, Question{RunID: p.spec.RunID, ID: req.ApprovalID, Kind: AskApproval, Approval: approvalOf(&req)})
	switch {
	case errors.Is(err, ErrNoAnswer):
		return protocol.ConfirmDecision{Verdict: protocol.VerdictDeny, By: protocol.ByPolicy, Reason: err.Error()}, nil
	case err != nil:
		return protocol.ConfirmDecision{}, err
	case a.Approval == nil:
		return protocol.ConfirmDecision{}, fmt.Errorf("the answer to %s is not an edit decision", req.ApprovalID)
	}
	p.em.emit(Event{Type: Submitted, ToolID: req.ApprovalID, Answer: a.Raw})
	return *a.Approval, nil
}

// protoApprover is the run's Approver under the policy "ask": it puts the
// scope.request to the Waiter (AGENT_PROTOCOL § 5.4). The runtime bounds
// the wait with approval.timeoutMs and then decides "timeout".
type protoApprover protoRun

// Decide implements protocol.Approver: it waits for the decision on
// scope:<toolId> and emits request.submit with the answer as given. When
// nobody can answer, the scopes are denied by policy.
func (ap *protoApprover) Decide(ctx context.Context, req protocol.ScopeRequest) (protocol.ScopeDecision, error) {
	p := (*protoRun)(ap)
	id := ScopeApprovalPrefix + req.ToolID
	a, err := p.e.ask(ctx, 0, Question{RunID: p.spec.RunID, ID: id, Kind: AskScope, Scope: &req})
	switch {
	case errors.Is(err, ErrNoAnswer):
		return protocol.ScopeDecision{Verdict: protocol.VerdictDeny, By: protocol.ByPolicy, Reason: err.Error()}, nil
	case err != nil:
		return protocol.ScopeDecision{}, err
	case a.Scope == nil:
		return protocol.ScopeDecision{}, fmt.Errorf("the answer to %s is not a scope decision", id)
	}
	p.em.emit(Event{Type: Submitted, ToolID: id, Answer: a.Raw})
	return *a.Scope, nil
}

// runAction is the activity of an action tool: "OK" at once (§ 4.2).
func runAction(context.Context, *protocol.Call, *protocol.Tool, protocol.Scoped) (protocol.Result, error) {
	return protocol.Result{Value: "OK"}, nil
}

// errFrontendTimeout marks a frontend call without a submit in time.
var errFrontendTimeout = errors.New("frontend submit timeout")

// runFrontend is the activity of a frontend tool: it waits for the answer
// to the call (its question opened at tool.start) up to FrontendTimeout
// and returns it. A timeout (or nobody to answer) fails the call with
// activity_timeout; unlike in the modes, the run goes on.
func (p *protoRun) runFrontend(ctx context.Context, call *protocol.Call, _ *protocol.Tool, _ protocol.Scoped) (protocol.Result, error) {
	a, err := p.e.ask(ctx, p.e.frontendTimeout(), Question{RunID: p.spec.RunID, ID: call.ToolID, Kind: AskFrontend,
		Call: &Call{ID: call.ToolID, Name: call.Tool, Kind: CallFrontend, ToolParams: json.RawMessage(encodeObject(call.Args))}})
	switch {
	case ctx.Err() != nil:
		return protocol.Result{}, ctx.Err()
	case err != nil:
		return protocol.Result{}, fmt.Errorf("%w runId=%s, toolId=%s: %w", errFrontendTimeout, p.spec.RunID, call.ToolID,
			context.DeadlineExceeded)
	}
	p.em.emit(Event{Type: Submitted, ToolID: call.ToolID, Answer: a.Raw})
	v, err := agentctx.Decode(a.Raw)
	if err != nil {
		return protocol.Result{Value: string(a.Raw)}, nil
	}
	return protocol.Result{Value: v}, nil
}

// runBackend is the activity of a Go backend tool (AGENT_PROTOCOL § 4.5),
// run by callTool like any Go tool: the budget.tool timeout per attempt
// and retryCount retries on a timeout or a runtime failure, never on
// invalid arguments; progress reports stream as tool.progress. Applied
// edits become document.edit events before the result. The result text is
// the value (its JSON when it parses); an error result, a Go error or a
// timeout fails the call (activity_failed, activity_timeout).
func (p *protoRun) runBackend(ctx context.Context, name string, impl tool.Tool, call *protocol.Call) (protocol.Result, error) {
	args := json.RawMessage(encodeObject(call.Args))
	b := p.agent.Budget.Tool
	run, err := callTool(ctx, call.ToolID, name, func(ctx context.Context) (tool.Result, error) { return impl.Call(ctx, args) },
		b.Timeout(), b.RetryCount, func(pr tool.Progress) {
			p.em.emit(Event{Type: ToolProgress, ToolID: call.ToolID, Progress: &pr})
		}, p.log)
	if err != nil {
		return protocol.Result{}, err
	}
	res := run.res
	if len(res.Edits) > 0 {
		evs := make([]Event, len(res.Edits))
		for i := range res.Edits {
			evs[i] = Event{Type: DocumentEdit, ToolID: call.ToolID, Edit: &res.Edits[i]}
		}
		p.em.emit(evs...)
	}
	switch {
	case run.timedOut:
		return protocol.Result{}, fmt.Errorf("timed out after %d ms: %w", b.TimeoutMs, context.DeadlineExceeded)
	case run.err != nil:
		return protocol.Result{}, run.err
	case res.IsError:
		code := res.Code
		if code == "" {
			code = ToolCodeFailed
		}
		return protocol.Result{}, fmt.Errorf("%s (%s)", res.Text, code)
	case res.Text == "":
		return protocol.Result{}, nil
	}
	if json.Valid([]byte(res.Text)) {
		if v, err := agentctx.Decode([]byte(res.Text)); err == nil {
			return protocol.Result{Value: v}, nil
		}
	}
	return protocol.Result{Value: res.Text}, nil
}

// provider is the runtime's Provider: the model of a key with the settings
// of its agent's stage.
func (p *protoRun) provider(key string) (llm.Provider, error) {
	p.modelsMu.Lock()
	defer p.modelsMu.Unlock()
	if mp := p.models[key]; mp != nil {
		return mp, nil
	}
	return nil, fmt.Errorf("model %q was not resolved for this run", key)
}

// modelFor resolves the model of a stage once per run. The first agent
// that uses a model key fixes its settings (temperature, topP, maxTokens,
// reasoning) for the whole run tree.
func (p *protoRun) modelFor(cfg agentdef.ModelConfig) (*modelProvider, error) {
	p.modelsMu.Lock()
	defer p.modelsMu.Unlock()
	if mp := p.models[cfg.ModelKey]; mp != nil {
		return mp, nil
	}
	prov, m, err := p.e.Models.Provider(cfg.ModelKey)
	if err != nil {
		return nil, failf(CodeModelError, "model %q: %v", cfg.ModelKey, err)
	}
	mp := &modelProvider{e: p.e, p: prov, model: m, cfg: cfg, timeout: p.agent.Budget.Model.Timeout(), log: p.log}
	p.models[cfg.ModelKey] = mp
	return mp, nil
}

// modelProvider sends the runtime's requests to the model of a key: it sets
// the provider's model id and the stage settings the runtime leaves unset;
// each call goes through streamModel (budget.model.timeoutMs and the retry
// rule of § 6.3).
type modelProvider struct {
	e       *Runner
	p       llm.Provider
	model   models.Model
	cfg     agentdef.ModelConfig
	timeout time.Duration
	log     *slog.Logger
}

// Stream implements llm.Provider.
func (m *modelProvider) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	r := *req
	r.Model = m.model.ModelID
	if r.Temperature == nil {
		r.Temperature = m.cfg.Temperature
	}
	if r.TopP == nil {
		r.TopP = m.cfg.TopP
	}
	if r.MaxOutputTokens == 0 && m.cfg.MaxTokens != nil {
		r.MaxOutputTokens = *m.cfg.MaxTokens
	}
	if r.Reasoning == nil && m.cfg.Reasoning.Enabled {
		r.Reasoning = &llm.ReasoningConfig{Effort: strings.ToLower(string(m.cfg.Reasoning.Effort))}
	}
	return m.e.streamModel(ctx, m.p, &r, m.timeout, m.log)
}
