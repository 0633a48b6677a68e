package protocol

import (
	"fmt"
	"strings"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
)

// Rendering (§2.5). The context of one turn becomes two provider messages:
//
//	system: frozen tier except input — system/text messages, the protocol
//	        rules text, per-tool facts, advisor declarations present at run
//	        start, frozen data folds (and, in prompt mode, the wire schema);
//	user:   frozen input blocks → append-only tier (error log, conversation
//	        log, †data.results log) → derived tier (state, written data,
//	        advice of the previous turn, notes).
//
// Frozen text depends only on definitions (agent, tools, advisors, instances,
// the messages present at run start), never on the turn, so it is byte
// identical across the turns of a run (X3).

// tier is how often a rendered block may change (§2.5).
type tier int

const (
	tierFrozen tier = iota
	tierAppend
	tierDerived
)

// Fixed names of the rendering.
const (
	inputLine        = "¶input is the task specification"
	kindInput        = "input"
	kindState        = "state"
	kindData         = "data"
	kindConversation = "conversation"
	resultsKey       = "results"
	defaultWindow    = 20
	emptyUser        = "(no input)"
	promptSchemaLead = "Reply with one JSON object matching this schema: "
)

// Render renders the context for one turn into the provider's system and
// user messages (§2.5).
func Render(comp *Composition, c agentctx.Context) (system, user string) {
	if comp == nil {
		comp = &Composition{}
	}
	r := newRenderer(comp, c)
	return r.system(), r.user()
}

// renderer holds what one Render call has computed about the context.
type renderer struct {
	comp  *Composition
	agent *Agent
	c     agentctx.Context
	start int // comp.Turn.RunStart clamped to the context

	blocks []foldBlock // data-like identities, in render order
}

// foldBlock is one identity (kind, instance) to render, with its tier. For the
// `data` kind the `results` array is split off into the results log.
type foldBlock struct {
	kind, instance string
	tier           tier
	main           bool // the fold itself renders as a block
	results        []any
	hasResults     bool
}

func newRenderer(comp *Composition, c agentctx.Context) *renderer {
	r := &renderer{comp: comp, agent: comp.Agent, c: c, start: comp.Turn.RunStart}
	if r.agent == nil {
		r.agent = &Agent{}
	}
	r.start = min(max(r.start, 0), len(c))
	r.collectBlocks()
	return r
}

// collectBlocks lists the identities of data-like messages: kinds by first
// appearance, internal kinds skipped; per kind the global identity first,
// then instances by first appearance within the kind.
func (r *renderer) collectBlocks() {
	for _, kind := range r.c.Kinds() {
		if agentctx.IsInternal(kind) {
			continue
		}
		var instances []string
		seen := map[string]bool{}
		for _, m := range r.c {
			if m.Type.DataLike() && m.Kind == kind && !seen[m.Instance] {
				seen[m.Instance] = true
				instances = append(instances, m.Instance)
			}
		}
		if seen[""] {
			r.blocks = append(r.blocks, r.identity(kind, ""))
		}
		for _, inst := range instances {
			if inst != "" {
				r.blocks = append(r.blocks, r.identity(kind, inst))
			}
		}
	}
}

// identity classifies one (kind, instance): a fold renders in the most
// changeable tier any of its messages belongs to.
func (r *renderer) identity(kind, instance string) foldBlock {
	b := foldBlock{kind: kind, instance: instance}
	switch kind {
	case kindState:
		b.tier = tierDerived
	case kindConversation:
		b.tier = tierAppend
	}
	for i, m := range r.c {
		if !m.Type.DataLike() || m.Kind != kind || m.Instance != instance {
			continue
		}
		if kind == kindData && resultsOnly(m) {
			continue // the results log is append-only whatever its origin
		}
		b.main = true
		if kind == kindState || kind == kindConversation {
			continue
		}
		if i >= r.start || m.IsWrite() {
			b.tier = tierDerived
		}
	}
	if kind == kindData {
		f := r.c.Fold(kind, instance)
		if obj, ok := f.Value.(*agentctx.Object); ok && f.Exists {
			if arr, ok := obj.Get(resultsKey); ok {
				if list, ok := arr.([]any); ok {
					b.results, b.hasResults = list, true
					if obj.Len() > 1 {
						b.main = true
					}
				}
			}
		}
	}
	return b
}

// resultsOnly reports whether a `data` message only touches †data.results.
func resultsOnly(m agentctx.Message) bool {
	if m.IsWrite() {
		return m.Path == resultsKey || strings.HasPrefix(m.Path, resultsKey+".")
	}
	obj, ok := m.Value.(*agentctx.Object)
	if !ok || m.Schema != nil || m.Description != "" {
		return false
	}
	keys := obj.Keys()
	return len(keys) == 1 && keys[0] == resultsKey
}

// renderFold renders one block: header, the input line, the description, the
// compact JSON of the folded value and the schema line.
func (r *renderer) renderFold(b foldBlock) string {
	f := r.c.Fold(b.kind, b.instance)
	value, exists := f.Value, f.Exists
	if b.hasResults {
		if obj, ok := agentctx.Clone(value).(*agentctx.Object); ok {
			obj.Delete(resultsKey)
			value = obj
		}
	}
	if !exists && f.Schema == nil && f.Description == "" {
		return "" // nothing to show: e.g. a kind whose root was erased
	}
	var sb strings.Builder
	sb.WriteString(header("¶"+b.kind, b.instance))
	if b.kind == kindInput {
		line(&sb, inputLine)
	}
	if f.Description != "" {
		line(&sb, f.Description)
	}
	if exists {
		line(&sb, encode(value))
	}
	if f.Schema != nil {
		line(&sb, "schema: "+encode(f.Schema))
	}
	return sb.String()
}

// appendBlock appends a non-empty block.
func appendBlock(parts []string, block string) []string {
	if block == "" {
		return parts
	}
	return append(parts, block)
}

// renderResults renders the †data.results log of one identity, one entry a
// line, so that it only grows at its end.
func renderResults(b foldBlock) string {
	var sb strings.Builder
	sb.WriteString(header(agentctx.PathPrefix+kindData+"."+resultsKey, b.instance))
	for _, e := range b.results {
		line(&sb, encode(e))
	}
	return sb.String()
}

func header(name, instance string) string {
	if instance != "" {
		return "## " + name + " @" + instance
	}
	return "## " + name
}

// line appends "\n" + s.
func line(sb *strings.Builder, s string) {
	sb.WriteByte('\n')
	sb.WriteString(s)
}

// encode is the compact JSON of an ordered value (insertion order, no HTML
// escaping); a value that cannot be encoded renders with %v.
func encode(v any) string {
	b, err := agentctx.Encode(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}

// system renders the system message: the frozen tier except input.
func (r *renderer) system() string {
	var parts []string
	for _, m := range r.c[:r.start] {
		if (m.Type == agentctx.TypeSystem || m.Type == agentctx.TypeText) && m.Text != "" {
			parts = append(parts, m.Text)
		}
	}
	parts = append(parts, r.rules())
	if s := r.toolFacts(); s != "" {
		parts = append(parts, s)
	}
	if s := r.advisorDecls(tierFrozen); s != "" {
		parts = append(parts, s)
	}
	var folds []string
	for _, b := range r.blocks {
		if b.main && b.tier == tierFrozen && b.kind != kindInput {
			folds = appendBlock(folds, r.renderFold(b))
		}
	}
	if len(folds) > 0 {
		parts = append(parts, "# Context\n\n"+strings.Join(folds, "\n\n"))
	}
	if formatOf(r.comp) == FormatPrompt && len(r.comp.WireJSON) > 0 {
		parts = append(parts, promptSchemaLead+string(r.comp.WireJSON))
	}
	return strings.Join(parts, "\n\n")
}

// user renders the user message: frozen input, append-only, derived.
func (r *renderer) user() string {
	var parts []string
	for _, b := range r.blocks {
		if b.main && b.tier == tierFrozen && b.kind == kindInput {
			parts = appendBlock(parts, r.renderFold(b))
		}
	}
	parts = append(parts, r.appendOnly()...)
	parts = append(parts, r.derived()...)
	if len(parts) == 0 {
		return emptyUser
	}
	return strings.Join(parts, "\n\n")
}

// appendOnly renders the error log, the conversation log and the results log.
func (r *renderer) appendOnly() []string {
	var parts []string
	if s := r.errorLog(); s != "" {
		parts = append(parts, s)
	}
	for _, b := range r.blocks {
		if b.main && b.tier == tierAppend {
			parts = appendBlock(parts, r.renderFold(b))
		}
	}
	for _, b := range r.blocks {
		if b.hasResults {
			parts = append(parts, renderResults(b))
		}
	}
	return parts
}

// errorLog renders the last ErrorWindow error messages, one line each.
func (r *renderer) errorLog() string {
	var errs []*agentctx.ErrorInfo
	for _, m := range r.c {
		if m.Type == agentctx.TypeError && m.Error != nil {
			errs = append(errs, m.Error)
		}
	}
	if len(errs) == 0 {
		return ""
	}
	window := r.agent.ErrorWindow
	if window <= 0 {
		window = defaultWindow
	}
	var sb strings.Builder
	sb.WriteString("## errors")
	if len(errs) > window {
		fmt.Fprintf(&sb, " (latest %d of %d)", window, len(errs))
		errs = errs[len(errs)-window:]
	}
	for _, e := range errs {
		line(&sb, errorLine(e))
	}
	return sb.String()
}

// errorLine renders one error: "turn 2, call 1 replace_text @t1:
// guard_denied: message".
func errorLine(e *agentctx.ErrorInfo) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "turn %d", e.Turn)
	if e.Call != nil {
		if idx, ok := field(e.Call, "index"); ok {
			fmt.Fprintf(&sb, ", call %v", idx)
		}
		if tool, ok := field(e.Call, "_tool"); ok {
			fmt.Fprintf(&sb, " %v", tool)
		}
		if inst, ok := field(e.Call, "_instance"); ok && inst != nil && inst != "" {
			fmt.Fprintf(&sb, " @%v", inst)
		}
	}
	sb.WriteString(": ")
	sb.WriteString(e.Code)
	if e.Message != "" {
		sb.WriteString(": ")
		sb.WriteString(oneLine(e.Message))
	}
	return sb.String()
}

// field reads a key of an ordered or plain JSON object.
func field(v any, key string) (any, bool) {
	switch o := v.(type) {
	case *agentctx.Object:
		return o.Get(key)
	case map[string]any:
		x, ok := o[key]
		return x, ok
	}
	return nil, false
}

// oneLine folds line breaks so that one entry stays one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\r", " ")), " ")
}

// derived renders the derived tier: input or data changed during the run,
// state folds, written data, system/text messages appended during the run,
// advisors declared during the run, the advisors asked for this turn, the
// advice of the previous turn and the notes.
func (r *renderer) derived() []string {
	var parts []string
	for _, want := range []func(string) bool{
		func(k string) bool { return k == kindInput },
		func(k string) bool { return k == kindState },
		func(k string) bool { return k != kindInput && k != kindState },
	} {
		for _, b := range r.blocks {
			if b.main && b.tier == tierDerived && want(b.kind) {
				parts = appendBlock(parts, r.renderFold(b))
			}
		}
	}
	for _, m := range r.c[r.start:] {
		if (m.Type == agentctx.TypeSystem || m.Type == agentctx.TypeText) && m.Text != "" {
			parts = append(parts, m.Text)
		}
	}
	if s := r.advisorDecls(tierDerived); s != "" {
		parts = append(parts, s)
	}
	if s := r.activations(); s != "" {
		parts = append(parts, s)
	}
	if s := r.advice(); s != "" {
		parts = append(parts, s)
	}
	for _, n := range r.comp.Turn.Notes {
		if n != "" {
			parts = append(parts, n)
		}
	}
	return parts
}

// advice renders the advice messages of the previous turn appended during
// this run, one line each: id, instance, opinion JSON and weights.
func (r *renderer) advice() string {
	prev := r.comp.Turn.Turn - 1
	if prev < 1 {
		return ""
	}
	var lines []string
	for _, m := range r.c[r.start:] {
		if m.Type != agentctx.TypeAdvice || m.Advice == nil || m.Advice.Turn != prev {
			continue
		}
		a := m.Advice
		var sb strings.Builder
		sb.WriteString(a.ID)
		if a.Instance != "" {
			sb.WriteString(" @" + a.Instance)
		}
		sb.WriteString(": ")
		if a.Opinion != nil {
			sb.WriteString(encode(a.Opinion))
		} else {
			sb.WriteString("{}")
		}
		if a.Weights != nil {
			sb.WriteString(" weights " + encode(a.Weights))
		}
		if a.RawCalls != "" {
			sb.WriteString(" calls (unparsed) " + encode(a.RawCalls))
		}
		lines = append(lines, sb.String())
	}
	if len(lines) == 0 {
		return ""
	}
	return fmt.Sprintf("## advice of turn %d\n", prev) + strings.Join(lines, "\n")
}

// activations tells which advisor entries this turn asks for; the strict
// schema cannot require a specific array element (W5).
func (r *renderer) activations() string {
	var required, onOutput, optional []string
	for _, a := range r.comp.Advisors {
		name := a.ID
		if a.IsInstanced {
			name += " (one entry per instance)"
		}
		switch {
		case a.Activation == Required:
			required = append(required, name)
		case a.RequiredOnOutput:
			onOutput = append(onOutput, name)
		case a.Activation == Offered:
			optional = append(optional, name)
		}
	}
	if len(required)+len(onOutput)+len(optional) == 0 {
		return ""
	}
	var sb strings.Builder
	sb.WriteString("## advisor entries this turn")
	if len(required) > 0 {
		line(&sb, "required: "+strings.Join(required, ", "))
	}
	if len(onOutput) > 0 {
		line(&sb, "required when output is not null: "+strings.Join(onOutput, ", "))
	}
	if len(optional) > 0 {
		line(&sb, "optional: "+strings.Join(optional, ", "))
	}
	return sb.String()
}

// advisorTier is the tier of an advisor's declaration: frozen when declared
// by the agent or by a message before the run start and not patched since.
func (r *renderer) advisorTier(id string) tier {
	for _, m := range r.c[r.start:] {
		if m.Type == agentctx.TypeAdvisor && m.Advisor != nil && m.Advisor.ID == id {
			return tierDerived
		}
	}
	return tierFrozen
}

// advisorDecls renders the declarations of the advisors of one tier.
func (r *renderer) advisorDecls(t tier) string {
	var decls []string
	for _, a := range r.comp.Advisors {
		if r.advisorTier(a.ID) == t {
			decls = append(decls, advisorDecl(a, t == tierDerived))
		}
	}
	if len(decls) == 0 {
		return ""
	}
	if t == tierDerived {
		return strings.Join(decls, "\n\n")
	}
	return "# Advisors\n\n" + strings.Join(decls, "\n\n")
}

// advisorDecl renders one declaration: id, on, role, soft scopes, weight.
func advisorDecl(a *ActiveAdvisor, late bool) string {
	var sb strings.Builder
	sb.WriteString("## advisor " + a.ID)
	if late {
		sb.WriteString(" (declared during this run)")
	}
	switch a.On {
	case "request":
		line(&sb, "on: request (an entry in every solution)")
	case "start":
		line(&sb, "on: start (an entry on the first turn of a chat, optional later)")
	case "finish":
		line(&sb, "on: finish (an entry whenever output is not null)")
	case "":
		line(&sb, "on demand: not part of the solution; ask it with "+ConsultAdvisor)
	default:
		line(&sb, "on: "+a.On)
	}
	if a.IsInstanced {
		line(&sb, "instanced: one entry per live instance, with _instance")
	}
	if a.Role != "" {
		line(&sb, "role: "+a.Role)
	}
	if len(a.Scopes) > 0 {
		line(&sb, "prioritise: "+strings.Join(a.Scopes, ", ")+"; you may still use everything")
	}
	if a.Weight != 1 {
		line(&sb, "weight: "+trimFloat(a.Weight))
	}
	return sb.String()
}

func trimFloat(f float64) string { return fmt.Sprintf("%g", f) }

// toolFacts renders what the schema cannot carry, one line per tool:
// execution kind, provisioned-scope hint, prescribed output path and method.
func (r *renderer) toolFacts() string {
	if len(r.comp.Tools) == 0 {
		return ""
	}
	var sb strings.Builder
	sb.WriteString("# Tools")
	for _, t := range r.comp.Tools {
		line(&sb, "- "+r.toolFact(t))
	}
	return sb.String()
}

func (r *renderer) toolFact(t *Tool) string {
	if t.Name == ConsultAdvisor {
		return ConsultAdvisor + ": built-in; asks an on-demand advisor your question; its opinion is the result and is shown next turn"
	}
	facts := []string{}
	switch t.Kind {
	case KindLatent:
		facts = append(facts, "latent: no code runs; you perform it and write the result in _output")
		if len(t.Provisioned) > 0 {
			facts = append(facts, "rely on: "+strings.Join(t.Provisioned, ", "))
		}
	case KindDelegated:
		if t.Delegate == Anonymous || t.Delegate == "" {
			facts = append(facts, "delegated to an anonymous sub-run without tools")
		} else {
			facts = append(facts, "delegated to agent "+t.Delegate+" (a sub-run with its own context)")
		}
		if len(t.Provisioned) > 0 {
			facts = append(facts, "it receives: "+strings.Join(t.Provisioned, ", "))
		}
	default:
		kind := "explicit: runs code"
		if t.FileKind == "frontend" {
			kind = "explicit: answered by the user"
		}
		facts = append(facts, kind)
		if len(t.Provisioned) > 0 {
			facts = append(facts, "it receives: "+strings.Join(t.Provisioned, ", "))
		}
	}
	if len(t.Requested) > 0 {
		facts = append(facts, "_scopes may ask for more context (needs approval)")
	}
	switch {
	case t.OutputPath != "":
		facts = append(facts, "result → "+withDagger(t.OutputPath)+" ("+methodText(t)+")")
	case t.PathChosen:
		facts = append(facts, "result → the _outputPath you choose ("+methodText(t)+")")
	case t.Kind != KindLatent && r.agent.UnpathedResults != "drop":
		facts = append(facts, "result → "+agentctx.PathPrefix+kindData+"."+resultsKey)
	case t.Kind != KindLatent:
		facts = append(facts, "result not shown")
	}
	return t.Name + ": " + strings.Join(facts, "; ")
}

// methodText names the write method of a tool's result.
func methodText(t *Tool) string {
	if len(t.MethodChoices) > 0 {
		names := make([]string, len(t.MethodChoices))
		for i, m := range t.MethodChoices {
			names[i] = string(m)
		}
		return "_outputMethod: " + strings.Join(names, " or ")
	}
	if t.OutputMethod == "" {
		return string(agentctx.MethodSet)
	}
	return string(t.OutputMethod)
}

func withDagger(p string) string {
	if strings.HasPrefix(p, agentctx.PathPrefix) {
		return p
	}
	return agentctx.PathPrefix + p
}

// rules is the protocol rules text: what the solution is and how its parts
// work. It depends on definitions only (tools, advisors, instances, format).
func (r *renderer) rules() string {
	comp := r.comp
	var hasLatent, hasPaths, hasScopes, inSchema, onDemand bool
	for _, t := range comp.Tools {
		hasLatent = hasLatent || t.Kind == KindLatent
		hasPaths = hasPaths || t.OutputPath != "" || t.PathChosen
		hasScopes = hasScopes || len(t.Requested) > 0
	}
	for _, a := range comp.Advisors {
		if a.On == "" {
			onDemand = true
		} else {
			inSchema = true
		}
	}
	reasoning := r.agent.ReasoningField
	if reasoning == "" {
		reasoning = DefaultReasoningField
	}

	var sb strings.Builder
	sb.WriteString("# Solution protocol\n")
	sb.WriteString("Each turn, reply with one solution: a JSON object with the fields ")
	if inSchema {
		sb.WriteString("advisors, calls and output, in this order.")
	} else {
		sb.WriteString("calls and output, in this order.")
	}
	switch formatOf(comp) {
	case FormatRespondTool:
		sb.WriteString(" Return it as the arguments of one call of the respond tool.")
	case FormatPrompt:
		sb.WriteString(" Reply with that JSON object only.")
	}
	if inSchema {
		line(&sb, "- advisors: first, one entry per advisor asked for (see Advisors), each written from that advisor's role "+
			"before you choose calls. Its `calls` field is a string holding a JSON object that maps tool names to "+
			`independent confidences 0..100 that the tool should be called now, for example "{\"search\":80,\"edit\":10}"; `+
			"the numbers need not sum to 100 and tools the advisor has no view on are left out.")
	}
	call := "- calls: the tool calls to run this turn; `_tool` names the tool"
	if !r.agent.ReasoningOff {
		call += "; `" + reasoning + "` says why, before any value"
	}
	line(&sb, call+". The calls of one turn run together, possibly in parallel.")
	line(&sb, "- output: null means continue: the calls run and you get another turn that shows their effects. "+
		"A non-null output is the final answer and ends the run; calls sent with it still run, but you will not see their results.")
	if len(comp.Tools) > 0 {
		line(&sb, "References: a parameter whose whole value is a path "+agentctx.PathPrefix+"kind.a.b (kind first, then object keys; "+
			"a number indexes an array, -1 is its last element) is replaced by the value at that path before the call runs "+
			"(objects stay objects). A call waits until every path it references exists, so it may use what another call "+
			"of the same turn writes.")
	}
	if hasPaths {
		line(&sb, "Output paths: a result is written at its path ("+agentctx.PathPrefix+"kind.a.b; input is read-only) with a method: "+
			"set replaces, merge deep-merges objects, push appends to an array, erase deletes the path.")
	}
	if hasLatent {
		line(&sb, "Latent tools run no code: you perform them yourself and write the result in `_output`.")
	}
	if hasScopes {
		line(&sb, "`_scopes` asks for parts of the context to be passed to a call; a person may approve, narrow or deny the request, so ask only for what the call needs.")
	}
	if onDemand {
		line(&sb, "On-demand advisors are consulted with the "+ConsultAdvisor+" tool; their opinion is shown on the next turn.")
	}
	if len(comp.Instances) > 0 {
		line(&sb, "Instances: blocks marked @<id> belong to isolated instances. A call with _instance X reads and writes X only; "+
			"a call without _instance reads and writes the global context.")
	}
	line(&sb, "Context: each block `## ¶kind` (`## ¶kind @instance`) shows the current value of that kind as compact JSON, "+
		"followed by its schema if any. Errors of earlier calls, the results of calls without an output path and the "+
		"advisor opinions of the previous turn follow the context.")
	return sb.String()
}

// formatOf is the composition's response format; an unresolved or unknown
// one falls back to prompt, the mode every model supports.
func formatOf(comp *Composition) string {
	switch comp.Format {
	case FormatJSONSchema, FormatRespondTool, FormatPrompt:
		return comp.Format
	}
	return FormatPrompt
}
