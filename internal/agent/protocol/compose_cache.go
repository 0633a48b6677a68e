package protocol

import (
	"fmt"
	"strings"
	"sync"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
)

// composeCache keeps the parts of a composition that only change when
// definitions, instances or the final-turn narrowing change (§2.2 W6), so a
// turn recomposes only what changed. It belongs to one normalised Agent and
// is safe for concurrent use. Keys use the identity of the ordered schema
// objects: messages and declarations are never modified after they are
// built, so the same object always means the same schema. All methods
// work on a nil cache, without caching.
type composeCache struct {
	mu        sync.Mutex
	decls     map[declKey]*declEntry
	ctxTools  map[*agentctx.Object]ctxToolEntry
	variants  map[variantKey][2]*agentctx.Object
	consults  map[string][2]*agentctx.Object
	advisors  map[advisorKey]*advisorEntry
	solutions map[string]*solutionEntry
}

// cacheLimit bounds each map: a definition that keeps changing (tools or
// advisors written during runs) cannot grow the cache without end.
const cacheLimit = 512

func newComposeCache() *composeCache {
	return &composeCache{
		decls: map[declKey]*declEntry{}, ctxTools: map[*agentctx.Object]ctxToolEntry{},
		variants: map[variantKey][2]*agentctx.Object{}, consults: map[string][2]*agentctx.Object{},
		advisors: map[advisorKey]*advisorEntry{}, solutions: map[string]*solutionEntry{},
	}
}

// cached returns m[k], building and storing it (outside the lock) when
// absent; a failed build is not stored. A full map is emptied first.
func cached[K comparable, V any](mu *sync.Mutex, m map[K]V, k K, build func() (V, error)) (V, error) {
	mu.Lock()
	v, ok := m[k]
	mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := build()
	if err != nil {
		return v, err
	}
	mu.Lock()
	if len(m) >= cacheLimit {
		clear(m)
	}
	m[k] = v
	mu.Unlock()
	return v, nil
}

type declKey struct {
	name, description, fileKind string
	params                      *agentctx.Object
}

type declEntry struct {
	*declared
	err error
}

// decl parses a declaration once (parseDecl); the result is a template the
// caller copies before settling its execution kind.
func (cc *composeCache) decl(d ToolDecl) (*declared, error) {
	if cc == nil {
		return parseDecl(d)
	}
	e, _ := cached(&cc.mu, cc.decls, declKey{d.Name, d.Description, d.FileKind, d.Parameters}, func() (*declEntry, error) {
		dc, err := parseDecl(d)
		return &declEntry{declared: dc, err: err}, nil
	})
	return e.declared, e.err
}

type ctxToolEntry struct {
	decl ToolDecl
	err  error
}

// contextTool converts the definition of a `tool` context message into a
// declaration.
func (cc *composeCache) contextTool(def agentctx.ToolDef) (ToolDecl, error) {
	key, cacheable := def.Schema.(*agentctx.Object)
	if cc == nil || !cacheable {
		return contextToolDecl(def)
	}
	e, _ := cached(&cc.mu, cc.ctxTools, key, func() (ctxToolEntry, error) {
		d, err := contextToolDecl(def)
		return ctxToolEntry{d, err}, nil
	})
	e.decl.Name = def.Name
	return e.decl, e.err
}

func contextToolDecl(def agentctx.ToolDef) (ToolDecl, error) {
	d := ToolDecl{Name: def.Name}
	s, err := ordered(def.Schema)
	if err != nil {
		return d, fmt.Errorf("tool %q: %w", def.Name, err)
	}
	o, ok := s.(*agentctx.Object)
	if !ok {
		return d, fmt.Errorf("tool %q: the definition must be a JSON Schema object", def.Name)
	}
	if desc, ok := o.Get("description"); ok {
		d.Description, _ = desc.(string)
	}
	d.Parameters = o
	return d, nil
}

type variantKey struct {
	tmpl                 *declared
	kind                 ExecKind
	reasoning, instances string
}

// variant returns a tool's call variant and its wire form. tmpl is the
// declaration template (nil for the built-in ConsultAdvisor).
func (cc *composeCache) variant(tmpl *declared, t *Tool, reasoning string, instances []string, instKey string, dropped []string) (*agentctx.Object, *agentctx.Object) {
	build := func() ([2]*agentctx.Object, error) {
		v := buildVariant(t, reasoning, instances)
		return [2]*agentctx.Object{v, Strict(v, dropped).(*agentctx.Object)}, nil
	}
	var r [2]*agentctx.Object
	switch {
	case cc == nil:
		r, _ = build()
	case tmpl == nil: // ConsultAdvisor: keyed by its ids
		ids, _ := t.Params.Get("id")
		r, _ = cached(&cc.mu, cc.consults, fmt.Sprint(ids)+"\x01"+reasoning+"\x01"+instKey, build)
	default:
		r, _ = cached(&cc.mu, cc.variants, variantKey{tmpl, t.Kind, reasoning, instKey}, build)
	}
	return r[0], r[1]
}

type advisorKey struct {
	id, on    string
	schema    *agentctx.Object
	instanced bool
	instances string
}

type advisorEntry struct {
	answer        any
	variant, wire *agentctx.Object
}

// advisor checks a folded advisor and builds its entry variant.
func (cc *composeCache) advisor(ad agentctx.Advisor, instances []string, dropped []string) (*advisorEntry, error) {
	build := func() (*advisorEntry, error) {
		answer, err := checkAdvisor(ad)
		if err != nil {
			return nil, err
		}
		v := entryVariant(ad.ID, answer, ad.IsInstanced, instances)
		return &advisorEntry{answer: answer, variant: v, wire: Strict(v, dropped).(*agentctx.Object)}, nil
	}
	schema, isObj := ad.Schema.(*agentctx.Object)
	if cc == nil || (ad.Schema != nil && !isObj) {
		return build()
	}
	return cached(&cc.mu, cc.advisors, advisorKey{ad.ID, ad.On, schema, ad.IsInstanced, strings.Join(instances, "\x00")}, build)
}

type solutionEntry struct {
	validation, wire *agentctx.Object
	json             []byte
}

// solution sets the composition's validation and wire solution schemas and
// the wire bytes, reusing them while the parts (variants by identity), the
// final-turn narrowing and the output schema are unchanged (W6).
func (cc *composeCache) solution(a *Agent, comp *Composition, dropped []string) error {
	build := func() (*solutionEntry, error) {
		v, err := solutionSchema(a, comp)
		if err != nil {
			return nil, err
		}
		w := Strict(v, dropped).(*agentctx.Object)
		b, err := agentctx.Encode(w)
		if err != nil {
			return nil, fmt.Errorf("protocol: encode the wire schema: %w", err)
		}
		return &solutionEntry{validation: v, wire: w, json: b}, nil
	}
	if cc == nil {
		e, err := build()
		if err != nil {
			return err
		}
		comp.Validation, comp.Wire, comp.WireJSON = e.validation, e.wire, e.json
		return nil
	}
	var k strings.Builder
	fmt.Fprintf(&k, "%t|%p|", comp.Turn.Final, a.OutputSchema)
	for _, ad := range comp.Advisors {
		if ad.Activation != Absent {
			fmt.Fprintf(&k, "a%p,", ad.Variant)
		}
	}
	for _, t := range comp.Tools {
		fmt.Fprintf(&k, "t%p,", t.Variant)
	}
	e, err := cached(&cc.mu, cc.solutions, k.String(), build)
	if err != nil {
		return err
	}
	comp.Validation, comp.Wire, comp.WireJSON = e.validation, e.wire, e.json
	return nil
}
