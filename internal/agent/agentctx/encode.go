package agentctx

// Object returns the message in its stored JSON form, primary names only,
// hidden fields included (renderers must drop them; see HiddenKeys). Values
// are shared with the message, not copied. Data-like values use the field
// named after the type, except writes, which use `data` (§1.5).
func (m Message) Object() *Object {
	o := &Object{}
	switch {
	case m.Type.DataLike():
		m.dataLikeObject(o)
	case m.Type == TypeSystem:
		o.Set("type", string(m.Type))
		o.Set("message", m.Text)
	case m.Type == TypeText:
		o.Set("type", string(m.Type))
		o.Set("text", m.Text)
	case m.Type == TypeTool:
		toolObject(o, m.Tools)
	case m.Type == TypeAdvisor && m.Advisor != nil:
		advisorObject(o, m.Advisor)
	case m.Type == TypeAdvice && m.Advice != nil:
		adviceObject(o, m.Advice)
	case m.Type == TypeError && m.Error != nil:
		errorObject(o, m.Error)
	default:
		o.Set("type", string(m.Type))
	}
	return o
}

// MarshalJSON encodes the stored form (see Object).
func (m Message) MarshalJSON() ([]byte, error) { return m.Object().MarshalJSON() }

// HiddenKeys are the write bookkeeping fields: never rendered nor passed on.
var HiddenKeys = []string{"_call", "_date", "_outputMethod", "_path"}

func (m Message) dataLikeObject(o *Object) {
	o.Set("type", string(m.Type))
	if m.Type == TypeData {
		o.Set("kind", m.Kind)
	}
	if m.Instance != "" {
		o.Set("_instance", m.Instance)
	}
	if m.IsWrite() {
		o.Set("_path", m.Path)
	}
	if m.HasValue {
		field := string(m.Type)
		if m.IsWrite() {
			field = string(TypeData)
		}
		o.Set(field, m.Value)
	}
	if m.Schema != nil {
		o.Set("schema", m.Schema)
	}
	if m.Description != "" {
		o.Set("description", m.Description)
	}
	if !m.IsWrite() {
		return
	}
	o.Set("_outputMethod", string(m.OutputMethod))
	if m.Call != nil {
		o.Set("_call", NewObject("toolId", m.Call.ToolID, "tool", m.Call.Tool, "turn", m.Call.Turn, "index", m.Call.Index))
	}
	if m.Date != "" {
		o.Set("_date", m.Date)
	}
}

func toolObject(o *Object, tools []ToolDef) {
	o.Set("type", string(TypeTool))
	if len(tools) == 1 && tools[0].Ref != "" {
		o.Set("ref", tools[0].Ref)
		return
	}
	defs := &Object{}
	for _, t := range tools {
		defs.Set(t.Name, t.Schema)
	}
	o.Set("tool", defs)
}

func advisorObject(o *Object, p *AdvisorPatch) {
	o.Set("type", string(TypeAdvisor))
	o.Set("id", p.ID)
	if p.On != nil {
		o.Set("on", *p.On)
	}
	if p.Role != nil {
		o.Set("role", *p.Role)
	}
	if p.HasSchema {
		o.Set("schema", p.Schema)
	}
	if p.HasScopes {
		o.Set("scopes", stringsToAny(p.Scopes))
	}
	if p.IsInstanced != nil {
		o.Set("isInstanced", *p.IsInstanced)
	}
	if p.Weight != nil {
		o.Set("weight", *p.Weight)
	}
}

func adviceObject(o *Object, a *Advice) {
	o.Set("type", string(TypeAdvice))
	o.Set("id", a.ID)
	if a.Instance != "" {
		o.Set("instance", a.Instance)
	}
	o.Set("turn", a.Turn)
	o.Set("opinion", a.Opinion)
	o.Set("weights", a.Weights)
	if a.RawCalls != "" {
		o.Set("rawCalls", a.RawCalls)
	}
	if len(a.Warnings) > 0 {
		o.Set("warnings", stringsToAny(a.Warnings))
	}
}

func errorObject(o *Object, e *ErrorInfo) {
	d := NewObject("turn", e.Turn)
	if e.Call != nil {
		d.Set("call", e.Call)
	}
	d.Set("code", e.Code)
	d.Set("message", e.Message)
	if e.Details != nil {
		d.Set("details", e.Details)
	}
	o.Set("type", string(TypeError))
	o.Set("data", d)
}

func stringsToAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
