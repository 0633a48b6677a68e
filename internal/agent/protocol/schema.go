package protocol

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
)

// DefaultDroppedKeywords are the schema keywords removed from the wire
// schema when the model registry gives no list (§2.2 W4). The validator
// still enforces them. aite's own `provisioned` keyword is always removed.
var DefaultDroppedKeywords = []string{
	"pattern", "format", "minItems", "maxItems", "minLength", "maxLength",
	"minimum", "maximum", "default", "provisioned", "examples", "$schema",
}

// Problem is one validation failure: a JSON pointer (RFC 6901) into the
// validated value and its cause.
type Problem struct {
	Pointer string `json:"pointer"`
	Message string `json:"message"`
}

// String renders the problem as "<pointer>: <message>" ("(root)" for the
// empty pointer).
func (p Problem) String() string {
	ptr := p.Pointer
	if ptr == "" {
		ptr = "(root)"
	}
	return ptr + ": " + p.Message
}

// pointerJoin appends one reference token to a JSON pointer, escaping `~`
// and `/` (RFC 6901).
func pointerJoin(base, token string) string {
	token = strings.ReplaceAll(token, "~", "~0")
	token = strings.ReplaceAll(token, "/", "~1")
	return base + "/" + token
}

// Keywords whose value is one subschema, an array of subschemas, or an
// object mapping names to subschemas. Every other keyword holds plain data
// (enum, const, default, examples…) and is never walked as a schema.
var (
	subschemaKeys      = map[string]bool{"items": true, "additionalItems": true, "not": true, "contains": true, "propertyNames": true, "if": true, "then": true, "else": true, "unevaluatedItems": true, "unevaluatedProperties": true, "additionalProperties": true}
	subschemaListKeys  = map[string]bool{"anyOf": true, "allOf": true, "oneOf": true, "prefixItems": true}
	subschemaMapKeys   = map[string]bool{"properties": true, "patternProperties": true, "$defs": true, "definitions": true, "dependentSchemas": true}
	alwaysDroppedWire  = "provisioned"
	nullSchemaTypeName = "null"
)

// Strict derives the strict wire form of a schema (§2.2 W1–W4): every object
// schema gets additionalProperties:false and lists all its properties in
// required, formerly optional properties become nullable, const becomes a
// one-value enum, oneOf becomes anyOf, and the dropped keywords (nil =
// DefaultDroppedKeywords; `provisioned` always) are removed. Key order is
// kept, with additionalProperties, required and properties emitted where
// properties stood. The input is not modified.
func Strict(schema any, dropped []string) any {
	if dropped == nil {
		dropped = DefaultDroppedKeywords
	}
	drop := map[string]bool{alwaysDroppedWire: true}
	for _, k := range dropped {
		drop[k] = true
	}
	return strictNode(schema, drop)
}

func strictNode(s any, drop map[string]bool) any {
	o, ok := s.(*agentctx.Object)
	if !ok {
		return agentctx.Clone(s)
	}
	isObj := isObjectSchema(o)
	props, _ := getObject(o, "properties")
	req := stringSet(o, "required")
	_, hasAnyOf := o.Get("anyOf")
	_, hasConst := o.Get("const")
	out := &agentctx.Object{}
	placed := false
	emitObject := func() {
		out.Set("additionalProperties", false)
		names := []any{}
		np := &agentctx.Object{}
		if props != nil {
			for _, k := range props.Keys() {
				ps, _ := props.Get(k)
				t := strictNode(ps, drop)
				if !req[k] {
					t = nullable(t)
				}
				np.Set(k, t)
				names = append(names, k)
			}
		}
		out.Set("required", names)
		out.Set("properties", np)
		placed = true
	}
	var extraAllOf []any
	for _, k := range o.Keys() {
		v, _ := o.Get(k)
		switch {
		case drop[k]:
		case isObj && (k == "required" || k == "additionalProperties"):
		case k == "properties":
			emitObject()
		case k == "const":
			out.Set("enum", []any{agentctx.Clone(v)})
		case k == "enum" && hasConst:
		case k == "oneOf" && hasAnyOf:
			extraAllOf = append(extraAllOf, agentctx.NewObject("anyOf", strictList(v, drop)))
		case k == "oneOf":
			out.Set("anyOf", strictList(v, drop))
		case subschemaListKeys[k]:
			out.Set(k, strictList(v, drop))
		case subschemaMapKeys[k]:
			out.Set(k, strictMap(v, drop))
		case subschemaKeys[k]:
			if arr, ok := v.([]any); ok { // draft-07 tuple items
				out.Set(k, strictList(arr, drop))
			} else {
				out.Set(k, strictNode(v, drop))
			}
		default:
			out.Set(k, agentctx.Clone(v))
		}
	}
	if isObj && !placed {
		emitObject()
	}
	if len(extraAllOf) > 0 {
		all, _ := out.Get("allOf")
		list, _ := all.([]any)
		out.Set("allOf", append(list, extraAllOf...))
	}
	return out
}

func strictList(v any, drop map[string]bool) any {
	arr, ok := v.([]any)
	if !ok {
		return agentctx.Clone(v)
	}
	out := make([]any, len(arr))
	for i, e := range arr {
		out[i] = strictNode(e, drop)
	}
	return out
}

func strictMap(v any, drop map[string]bool) any {
	m, ok := v.(*agentctx.Object)
	if !ok {
		return agentctx.Clone(v)
	}
	out := &agentctx.Object{}
	for _, k := range m.Keys() {
		e, _ := m.Get(k)
		out.Set(k, strictNode(e, drop))
	}
	return out
}

// nullable makes a (transformed) schema accept null (W2): `type:[T,"null"]`
// (with null added to an enum), null added to an enum or an anyOf, or the
// schema wrapped as anyOf:[s, {type:null}].
func nullable(s any) any {
	o, ok := s.(*agentctx.Object)
	if !ok {
		if b, isBool := s.(bool); isBool && b {
			return true
		}
		return agentctx.NewObject("anyOf", []any{s, agentctx.NewObject("type", nullSchemaTypeName)})
	}
	if t, ok := o.Get("type"); ok {
		switch tt := t.(type) {
		case string:
			if tt != nullSchemaTypeName {
				o.Set("type", []any{tt, nullSchemaTypeName})
			}
		case []any:
			if !containsValue(tt, nullSchemaTypeName) {
				o.Set("type", append(append([]any{}, tt...), nullSchemaTypeName))
			}
		}
		addNullToEnum(o)
		return o
	}
	if _, ok := o.Get("enum"); ok {
		addNullToEnum(o)
		return o
	}
	if a, ok := o.Get("anyOf"); ok {
		if list, ok := a.([]any); ok {
			for _, b := range list {
				if bo, ok := b.(*agentctx.Object); ok {
					if t, _ := bo.Get("type"); t == nullSchemaTypeName {
						return o
					}
				}
			}
			o.Set("anyOf", append(append([]any{}, list...), agentctx.NewObject("type", nullSchemaTypeName)))
			return o
		}
	}
	return agentctx.NewObject("anyOf", []any{o, agentctx.NewObject("type", nullSchemaTypeName)})
}

func addNullToEnum(o *agentctx.Object) {
	e, ok := o.Get("enum")
	if !ok {
		return
	}
	list, ok := e.([]any)
	if !ok {
		return
	}
	for _, v := range list {
		if v == nil {
			return
		}
	}
	o.Set("enum", append(append([]any{}, list...), nil))
}

func containsValue(list []any, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func isObjectSchema(o *agentctx.Object) bool {
	if _, ok := o.Get("properties"); ok {
		return true
	}
	t, _ := o.Get("type")
	switch tt := t.(type) {
	case string:
		return tt == "object"
	case []any:
		return containsValue(tt, "object")
	}
	return false
}

// get returns the value under key, nil when o is nil or the key is absent.
func get(o *agentctx.Object, key string) any {
	if o == nil {
		return nil
	}
	v, _ := o.Get(key)
	return v
}

func getObject(o *agentctx.Object, key string) (*agentctx.Object, bool) {
	if o == nil {
		return nil, false
	}
	v, ok := o.Get(key)
	if !ok {
		return nil, false
	}
	m, ok := v.(*agentctx.Object)
	return m, ok
}

func getStrings(o *agentctx.Object, key string) []string {
	if o == nil {
		return nil
	}
	v, _ := o.Get(key)
	arr, _ := v.([]any)
	var out []string
	for _, e := range arr {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func stringSet(o *agentctx.Object, key string) map[string]bool {
	set := map[string]bool{}
	for _, s := range getStrings(o, key) {
		set[s] = true
	}
	return set
}

func stringsToAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// ordered converts any JSON-encodable value (maps, structs, raw JSON, Go
// numbers) into ordered form (see agentctx.Decode). Maps come out with
// sorted keys, ordered objects keep their order.
func ordered(v any) (any, error) {
	switch t := v.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return agentctx.Decode(t)
	case []byte:
		return agentctx.Decode(t)
	case *agentctx.Object, []any, string, bool, json.Number:
		return agentctx.Clone(t), nil // already ordered
	}
	b, err := agentctx.Encode(v)
	if err != nil {
		return nil, err
	}
	return agentctx.Decode(b)
}

// orderedSchema converts a declared schema to ordered form, inlines its
// local `$ref`s and checks that it is an object or boolean schema.
func orderedSchema(v any, what string) (any, error) {
	o, err := ordered(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	switch o.(type) {
	case nil:
		return nil, nil
	case *agentctx.Object, bool:
	default:
		return nil, fmt.Errorf("%s: a schema must be a JSON object or a boolean", what)
	}
	s, err := inlineRefs(o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return s, nil
}

// inlineRefs replaces every local `$ref` ("#/…") by a copy of its target and
// removes `$defs`/`definitions`, so that parts of the schema can be moved into
// the solution schema. Recursive and non-local references are errors.
func inlineRefs(root any) (any, error) {
	return inlineNode(root, root, nil)
}

func inlineNode(s, root any, stack []string) (any, error) {
	o, ok := s.(*agentctx.Object)
	if !ok {
		return agentctx.Clone(s), nil
	}
	if r, ok := o.Get("$ref"); ok {
		ref, isStr := r.(string)
		if !isStr || !strings.HasPrefix(ref, "#") {
			return nil, fmt.Errorf("unsupported $ref %v (only local references are allowed)", r)
		}
		for _, seen := range stack {
			if seen == ref {
				return nil, fmt.Errorf("recursive $ref %q is not supported", ref)
			}
		}
		target, err := resolvePointer(root, strings.TrimPrefix(ref, "#"))
		if err != nil {
			return nil, fmt.Errorf("$ref %q: %w", ref, err)
		}
		in, err := inlineNode(target, root, append(stack, ref))
		if err != nil {
			return nil, err
		}
		to, isObj := in.(*agentctx.Object)
		if !isObj {
			return in, nil
		}
		for _, k := range o.Keys() { // sibling keywords apply too
			if k == "$ref" {
				continue
			}
			v, _ := o.Get(k)
			nv, err := inlineNode(v, root, stack)
			if err != nil {
				return nil, err
			}
			to.Set(k, nv)
		}
		return to, nil
	}
	out := &agentctx.Object{}
	for _, k := range o.Keys() {
		v, _ := o.Get(k)
		switch {
		case k == "$defs" || k == "definitions":
		case subschemaMapKeys[k]:
			m, ok := v.(*agentctx.Object)
			if !ok {
				out.Set(k, agentctx.Clone(v))
				continue
			}
			nm := &agentctx.Object{}
			for _, name := range m.Keys() {
				e, _ := m.Get(name)
				ne, err := inlineNode(e, root, stack)
				if err != nil {
					return nil, err
				}
				nm.Set(name, ne)
			}
			out.Set(k, nm)
		case subschemaListKeys[k] || subschemaKeys[k]:
			if arr, ok := v.([]any); ok {
				na := make([]any, len(arr))
				for i, e := range arr {
					ne, err := inlineNode(e, root, stack)
					if err != nil {
						return nil, err
					}
					na[i] = ne
				}
				out.Set(k, na)
				continue
			}
			ne, err := inlineNode(v, root, stack)
			if err != nil {
				return nil, err
			}
			out.Set(k, ne)
		default:
			out.Set(k, agentctx.Clone(v))
		}
	}
	return out, nil
}

func resolvePointer(root any, ptr string) (any, error) {
	if ptr == "" {
		return root, nil
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, fmt.Errorf("not a JSON pointer")
	}
	cur := root
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch t := cur.(type) {
		case *agentctx.Object:
			v, ok := t.Get(tok)
			if !ok {
				return nil, fmt.Errorf("no %q", tok)
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(t) {
				return nil, fmt.Errorf("no index %q", tok)
			}
			cur = t[i]
		default:
			return nil, fmt.Errorf("no %q", tok)
		}
	}
	return cur, nil
}
