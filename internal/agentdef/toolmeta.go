package agentdef

import (
	"encoding/json"
	"slices"
	"strings"
)

// Meta-properties of tool parameters (AGENT_PROTOCOL § 1.4) that the loader
// reads; the protocol runtime interprets the others.
const (
	metaOutput   = "_output"
	metaDelegate = "_delegate"
	metaScopes   = "_scopes"
)

// anonymousDelegate is the `_delegate` value of an anonymous sub-run.
const anonymousDelegate = "anonymous"

// isMeta reports whether a property name is a meta-property.
func isMeta(name string) bool { return strings.HasPrefix(name, "_") }

// paramTree parses the parameters; props is their top-level `properties`
// object, nil when there is none (or the parameters do not parse).
func (t ToolDef) paramTree() (tree, props *node) {
	tree, err := parseTree(t.Parameters)
	if err != nil || tree.kind != nObject {
		return nil, nil
	}
	if props = tree.get("properties"); props != nil && props.kind != nObject {
		props = nil
	}
	return tree, props
}

// MetaProperty returns the schema of the meta-property name (`_output`,
// `_delegate`, `_scopes`…) as declared in parameters.properties (strict
// JSON), and whether it is declared.
func (t ToolDef) MetaProperty(name string) (json.RawMessage, bool) {
	if !isMeta(name) {
		return nil, false
	}
	_, props := t.paramTree()
	if v := props.get(name); v != nil {
		return v.bytes(), true
	}
	return nil, false
}

// StrippedParameters returns the parameters without meta-properties: the
// `_`-properties of the top-level properties are removed, and so are their
// names in required (a required list left empty is removed). Everything
// else keeps its order and bytes; parameters without meta-properties are
// returned as they are.
func (t ToolDef) StrippedParameters() json.RawMessage {
	tree, props := t.paramTree()
	if props == nil || !slices.ContainsFunc(props.keys, isMeta) {
		return t.Parameters
	}
	out := &node{kind: nObject}
	for i, k := range tree.keys {
		v := tree.elems[i]
		switch {
		case k == "properties" && v.kind == nObject:
			v = filterObject(v)
		case k == "required" && v.kind == nArray:
			v = filterRequired(v)
			if len(v.elems) == 0 && len(tree.elems[i].elems) > 0 {
				continue
			}
		}
		out.keys, out.elems = append(out.keys, k), append(out.elems, v)
	}
	return out.bytes()
}

// filterObject returns obj without its `_` keys.
func filterObject(obj *node) *node {
	out := &node{kind: nObject}
	for i, k := range obj.keys {
		if !isMeta(k) {
			out.keys, out.elems = append(out.keys, k), append(out.elems, obj.elems[i])
		}
	}
	return out
}

// filterRequired returns a required list without the `_` names.
func filterRequired(list *node) *node {
	out := &node{kind: nArray}
	for _, e := range list.elems {
		if e.kind != nString || !isMeta(e.str) {
			out.elems = append(out.elems, e)
		}
	}
	return out
}

// Scopes returns the `_scopes` allow-list of the tool (AGENT_PROTOCOL § 1.4,
// § 4.2): provisioned scopes (the const form, or the requested form's aite
// extension `provisioned`) and requestable ones (the requested form's
// items.enum), in declared order. A tool that declares `_scopes` gets two
// non-nil slices (maybe empty: `{"const": []}` grants nothing); a tool
// without `_scopes` gets nil, nil.
func (t ToolDef) Scopes() (provisioned, requested []string) {
	_, props := t.paramTree()
	sc := props.get(metaScopes)
	if sc == nil {
		return nil, nil
	}
	if c := sc.get("const"); c != nil {
		return stringsOf(c), []string{}
	}
	return stringsOf(sc.get("provisioned")), stringsOf(sc.get("items").get("enum"))
}

// Delegate returns the `_delegate` const of the tool: the key of the agent
// it runs, or "anonymous"; "" when the tool declares none.
func (t ToolDef) Delegate() string {
	_, props := t.paramTree()
	if c := props.get(metaDelegate).get("const"); c != nil && c.kind == nString {
		return c.str
	}
	return ""
}

// stringsOf returns the strings of an array node (never nil).
func stringsOf(n *node) []string {
	out := []string{}
	if n == nil || n.kind != nArray {
		return out
	}
	for _, e := range n.elems {
		if e.kind == nString {
			out = append(out, e.str)
		}
	}
	return out
}

// checkMeta checks the meta-properties the loader depends on: a .latent
// tool declares `_output`, a .delegate tool `_delegate`; `_delegate` and
// `_scopes` have one of their documented forms.
func checkMeta(t ToolDef) error {
	const base = "parameters.properties."
	_, props := t.paramTree()
	switch {
	case t.Kind == ToolLatent && props.get(metaOutput) == nil:
		return rejectf(base+metaOutput, "missing: a .latent tool must declare _output (the result schema the model fills)")
	case t.Kind == ToolDelegate && props.get(metaDelegate) == nil:
		return rejectf(base+metaDelegate, "missing: a .delegate tool must declare _delegate ({\"const\": \"<agentKey>\"} or {\"const\": \"anonymous\"})")
	}
	if o := props.get(metaOutput); o != nil && o.kind != nObject && o.kind != nBool {
		return rejectf(base+metaOutput, "expected a JSON Schema, found %s", o.kind)
	}
	if d := props.get(metaDelegate); d != nil {
		c := d.get("const")
		if c == nil || c.kind != nString || (c.str != anonymousDelegate && !keyPattern().MatchString(c.str)) {
			return rejectf(base+metaDelegate, "expected {\"const\": \"<agentKey>\"} or {\"const\": \"anonymous\"}")
		}
	}
	if sc := props.get(metaScopes); sc != nil {
		return checkScopesDecl(sc, base+metaScopes)
	}
	return nil
}

// checkScopesDecl checks a `_scopes` declaration: {"const": [...]}
// (provisioned) or {"type": "array", "items": {"enum": [...]}} (requested),
// which may add "provisioned": [...]. Every entry must be a scopeable kind
// or path.
func checkScopesDecl(sc *node, field string) error {
	const forms = `expected {"const": [...]} (provisioned) or {"type": "array", "items": {"enum": [...]}} (requested)`
	if sc.kind != nObject {
		return rejectf(field, "%s", forms)
	}
	c, items := sc.get("const"), sc.get("items")
	switch {
	case c != nil && items != nil:
		return rejectf(field, "both const and items: declare provisioned scopes as const, or requested ones as items.enum")
	case c != nil:
		return checkScopeList(c, joinPath(field, "const"))
	case items == nil:
		return rejectf(field, "%s", forms)
	}
	if typ := sc.get("type"); typ != nil && (typ.kind != nString || typ.str != "array") {
		return rejectf(joinPath(field, "type"), "expected \"array\"")
	}
	enum := items.get("enum")
	if enum == nil {
		return rejectf(joinPath(field, "items.enum"), "missing: the requestable scopes")
	}
	if err := checkScopeList(enum, joinPath(field, "items.enum")); err != nil {
		return err
	}
	if p := sc.get("provisioned"); p != nil {
		return checkScopeList(p, joinPath(field, "provisioned"))
	}
	return nil
}

// checkScopeList checks an array of scope entries.
func checkScopeList(list *node, field string) error {
	if list.kind != nArray {
		return rejectf(field, "expected an array of scopes, found %s", list.kind)
	}
	for i, e := range list.elems {
		if e.kind != nString {
			return rejectf(indexPath(field, i), "expected a scope string, found %s", e.kind)
		}
		if err := checkScope(e.str); err != nil {
			return rejectf(indexPath(field, i), "%v", err)
		}
	}
	return nil
}
