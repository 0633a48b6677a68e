package protocol

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sync"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
)

// Scope kinds with a meaning of their own (§4.2 step 2).
const (
	// ScopeAdvisor grants the folded advisor declarations.
	ScopeAdvisor = "advisor"
	// scopeSystem is never scopeable.
	scopeSystem = "system"
)

var scopeKindRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_]\w*$`) })

// CheckScope validates one scope entry: a kind or a `†kind.a.b` path, not
// internal, not `system` (§4.2 step 2).
//
// A kind must match `[A-Za-z_]\w*`; a path is parsed with agentctx.ParsePath
// (its errors are wrapped, so errors.Is against agentctx.ErrPathInvalid and
// agentctx.ErrExpressionUnsupported works). `advisor` is accepted as a kind
// only: advisor declarations are not addressable by path. The caller
// chooses the protocol code (a load error for a provisioned entry, an
// enum-invalid one for a requested entry).
func CheckScope(s string) error {
	if s == "" {
		return errors.New("empty scope entry")
	}
	kind := s
	isPath := len(s) >= len(agentctx.PathPrefix) && s[:len(agentctx.PathPrefix)] == agentctx.PathPrefix
	if isPath {
		p, err := agentctx.ParsePath(s)
		if err != nil {
			return fmt.Errorf("scope %q is not a valid path: %w", s, err)
		}
		kind = p.Kind
	} else if !scopeKindRE().MatchString(s) {
		return fmt.Errorf("scope %q is neither a kind name ([A-Za-z_]\\w*) nor a path (†kind.a.b)", s)
	}
	switch {
	case agentctx.IsInternal(kind):
		return fmt.Errorf("scope %q names the internal kind %q, which is never scopeable", s, kind)
	case kind == scopeSystem:
		return fmt.Errorf("scope %q: system messages are never scopeable", s)
	case isPath && kind == ScopeAdvisor:
		return fmt.Errorf("scope %q: advisors can only be scoped as a whole (%q)", s, ScopeAdvisor)
	}
	return nil
}

// scopeSelection is the parsed form of a granted list.
type scopeSelection struct {
	whole map[string]bool
	paths map[string][]agentctx.Path // per kind, in granted order, de-duplicated
}

func selectScopes(granted []string) scopeSelection {
	sel := scopeSelection{whole: map[string]bool{}, paths: map[string][]agentctx.Path{}}
	seen := map[string]bool{}
	for _, g := range granted {
		if seen[g] || CheckScope(g) != nil {
			continue
		}
		seen[g] = true
		if !scopeKindRE().MatchString(g) {
			p, _ := agentctx.ParsePath(g) // validated by CheckScope
			if len(p.Segments) > 0 {
				sel.paths[p.Kind] = append(sel.paths[p.Kind], p)
				continue
			}
			g = p.Kind // `†state` is the whole kind
		}
		sel.whole[g] = true
	}
	for kind, ps := range sel.paths {
		sel.paths[kind] = pruneCovered(ps)
	}
	return sel
}

// pruneCovered drops paths lying inside another granted path of the same
// kind, so the merged result does not depend on the granted order.
func pruneCovered(ps []agentctx.Path) []agentctx.Path {
	var out []agentctx.Path
	for i, p := range ps {
		covered := false
		for j, q := range ps {
			if i != j && len(q.Segments) < len(p.Segments) && slices.Equal(q.Segments, p.Segments[:len(q.Segments)]) {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, p)
		}
	}
	return out
}

// Scope computes the scoped view of §4.2 for a call bound to instance.
//
// granted lists kind and path entries (invalid entries are skipped and
// duplicates ignored, defensively). Per kind the view is c.View(instance):
// the global fold ⊕ the instance's fold, other instances never read. A kind
// entry gives the whole folded value; path entries give only their
// subtrees re-nested under their segments (`†state.found` → {found:[…]};
// numeric segments become object keys as written); kind and path entries on
// one kind → the kind wins; several paths on one kind merge into one
// message; a missing kind or path contributes nothing. Output: one message
// per kind (type input, state or data by kind name), value cloned, schema
// and description kept, no instance and no write fields, in the order of
// the kinds' first appearance among the messages the view can see.
//
// Choices: `data` is the kind "data" itself (generic data messages without
// a kind of their own, and the unpathed results log); it does not widen to
// every data kind, so each reference kind must be granted by name. A kind
// entry whose fold has a schema or description but no value yields a
// message without value. `advisor` yields the folded advisor declarations,
// one advisor message each, at the position of the first advisor message.
// `question` and `plan` are ordinary kinds: they contribute whatever
// data-like messages of that kind exist (v1 writes to `†question.…`).
func Scope(c agentctx.Context, instance string, granted []string) []agentctx.Message {
	sel := selectScopes(granted)
	if len(sel.whole) == 0 && len(sel.paths) == 0 {
		return []agentctx.Message{}
	}
	view := c.View(instance)
	out := []agentctx.Message{}
	for _, kind := range scopeOrder(c, instance) {
		if kind == ScopeAdvisor && !isDataKind(c, instance, kind) {
			if sel.whole[ScopeAdvisor] {
				out = append(out, advisorMessages(c)...)
			}
			continue
		}
		f, ok := view.Kind(kind)
		if !ok || agentctx.IsInternal(kind) || kind == scopeSystem {
			continue
		}
		m := agentctx.Message{Type: typeOfKind(kind), Kind: kind, Schema: agentctx.Clone(f.Schema), Description: f.Description}
		switch {
		case sel.whole[kind]:
			if !f.Exists && f.Schema == nil && f.Description == "" {
				continue
			}
			if f.Exists {
				m.Value, m.HasValue = agentctx.Clone(f.Value), true
			}
		case len(sel.paths[kind]) > 0:
			var acc any
			for _, p := range sel.paths[kind] {
				v, ok := agentctx.Read(view, p)
				if !ok {
					continue
				}
				acc = agentctx.Merge(acc, renest(p.Segments, agentctx.Clone(v)))
			}
			if acc == nil {
				continue
			}
			m.Value, m.HasValue = acc, true
		default:
			continue
		}
		out = append(out, m)
	}
	return out
}

// scopeOrder lists the kinds visible to instance by first appearance, with
// ScopeAdvisor at the position of the first advisor message.
func scopeOrder(c agentctx.Context, instance string) []string {
	var order []string
	seen := map[string]bool{}
	add := func(k string) {
		if !seen[k] {
			seen[k] = true
			order = append(order, k)
		}
	}
	for _, m := range c {
		switch {
		case m.Type.DataLike() && (m.Instance == "" || m.Instance == instance):
			add(m.Kind)
		case m.Type == agentctx.TypeAdvisor:
			add(ScopeAdvisor)
		}
	}
	return order
}

// isDataKind reports whether kind has data-like messages visible to
// instance (only a defensive guard: agentctx never loads an "advisor" data
// kind).
func isDataKind(c agentctx.Context, instance, kind string) bool {
	for _, m := range c {
		if m.Type.DataLike() && m.Kind == kind && (m.Instance == "" || m.Instance == instance) {
			return true
		}
	}
	return false
}

// typeOfKind gives the message type of a scoped kind.
func typeOfKind(kind string) agentctx.Type {
	switch kind {
	case string(agentctx.TypeInput):
		return agentctx.TypeInput
	case string(agentctx.TypeState):
		return agentctx.TypeState
	}
	return agentctx.TypeData
}

// renest wraps v under segs: [a b] → {a:{b:v}}.
func renest(segs []string, v any) any {
	for i := len(segs) - 1; i >= 0; i-- {
		v = agentctx.NewObject(segs[i], v)
	}
	return v
}

// advisorMessages returns the folded advisor declarations as advisor
// messages, in order of first declaration.
func advisorMessages(c agentctx.Context) []agentctx.Message {
	advisors, _ := c.Advisors() // conflicts were reported when the context was loaded
	out := make([]agentctx.Message, 0, len(advisors))
	for _, a := range advisors {
		p := &agentctx.AdvisorPatch{ID: a.ID}
		if a.On != "" {
			on := a.On
			p.On = &on
		}
		if a.Role != "" {
			role := a.Role
			p.Role = &role
		}
		if a.Schema != nil {
			p.Schema, p.HasSchema = agentctx.Clone(a.Schema), true
		}
		if a.Scopes != nil {
			p.Scopes, p.HasScopes = slices.Clone(a.Scopes), true
		}
		inst, weight := a.IsInstanced, a.Weight
		p.IsInstanced, p.Weight = &inst, &weight
		out = append(out, agentctx.Message{Type: agentctx.TypeAdvisor, Advisor: p})
	}
	return out
}

// scoped is the Scoped implementation handed to activities.
type scoped struct {
	msgs  []agentctx.Message
	kinds map[string]json.RawMessage
}

// NewScoped wraps a scoped view for an activity (§4.5).
//
// The messages are deep-copied and kept verbatim (Scope has already cleaned
// them). Messages returns fresh copies in order on every call, so an
// activity cannot alter the run's context; Kind returns the compact JSON of
// the value of the first data-like message of that kind, and false when no
// such message carries a value.
func NewScoped(msgs []agentctx.Message) Scoped {
	s := &scoped{kinds: map[string]json.RawMessage{}}
	for _, m := range msgs {
		m = cloneMessage(m)
		s.msgs = append(s.msgs, m)
		if _, done := s.kinds[m.Kind]; done || !m.Type.DataLike() || !m.HasValue {
			continue
		}
		if b, err := agentctx.Encode(m.Value); err == nil {
			s.kinds[m.Kind] = b
		}
	}
	return s
}

// Messages implements Scoped.
func (s *scoped) Messages() []agentctx.Message {
	out := make([]agentctx.Message, len(s.msgs))
	for i, m := range s.msgs {
		out[i] = cloneMessage(m)
	}
	return out
}

// Kind implements Scoped.
func (s *scoped) Kind(name string) (json.RawMessage, bool) {
	b, ok := s.kinds[name]
	if !ok {
		return nil, false
	}
	return slices.Clone(b), true
}

// cloneMessage deep-copies a message's values and pointers.
func cloneMessage(m agentctx.Message) agentctx.Message {
	m.Value = agentctx.Clone(m.Value)
	m.Schema = agentctx.Clone(m.Schema)
	if m.Call != nil {
		c := *m.Call
		m.Call = &c
	}
	m.Tools = slices.Clone(m.Tools)
	for i := range m.Tools {
		m.Tools[i].Schema = agentctx.Clone(m.Tools[i].Schema)
	}
	if m.Advisor != nil {
		p := *m.Advisor
		p.Schema = agentctx.Clone(p.Schema)
		p.Scopes = slices.Clone(p.Scopes)
		p.On, p.Role = clonePtr(p.On), clonePtr(p.Role)
		p.IsInstanced, p.Weight = clonePtr(p.IsInstanced), clonePtr(p.Weight)
		m.Advisor = &p
	}
	if m.Advice != nil {
		a := *m.Advice
		a.Opinion, a.Weights = agentctx.Clone(a.Opinion), agentctx.Clone(a.Weights)
		a.Warnings = slices.Clone(a.Warnings)
		m.Advice = &a
	}
	if m.Error != nil {
		e := *m.Error
		e.Call, e.Details = agentctx.Clone(e.Call), agentctx.Clone(e.Details)
		m.Error = &e
	}
	return m
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// Preview describes what each requested scope would disclose (§4.4).
//
// For each entry, in the given order: Bytes is the length of the compact
// JSON of the value that entry alone would disclose through Scope (the
// folded value or the re-nested subtrees; for `advisor`, the array of
// advisor declarations), Keys its top-level keys in insertion order (the
// advisor ids for `advisor`; empty for a non-object). An invalid or missing
// scope gives 0 bytes and no keys. Keys is never nil.
func Preview(c agentctx.Context, instance string, scopes []string) []ScopePreview {
	out := make([]ScopePreview, 0, len(scopes))
	for _, s := range scopes {
		p := ScopePreview{Scope: s, Keys: []string{}}
		var disclosed any
		var present bool
		for _, m := range Scope(c, instance, []string{s}) {
			switch {
			case m.Type == agentctx.TypeAdvisor:
				arr, _ := disclosed.([]any)
				disclosed, present = append(arr, m.Object()), true
				p.Keys = append(p.Keys, m.Advisor.ID)
			case m.HasValue:
				disclosed, present = m.Value, true
				if o, ok := m.Value.(*agentctx.Object); ok {
					p.Keys = append(p.Keys, o.Keys()...)
				}
			}
		}
		if present {
			if b, err := agentctx.Encode(disclosed); err == nil {
				p.Bytes = len(b)
			}
		}
		out = append(out, p)
	}
	return out
}
