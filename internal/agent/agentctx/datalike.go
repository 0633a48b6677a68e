package agentctx

import (
	"encoding/json"
	"strings"
)

// reservedKeys are never part of a data-like message's value (§1.3).
var reservedKeys = map[string]bool{
	"type": true, "kind": true, "schema": true, "description": true, "_instance": true,
	"_call": true, "_date": true, "_outputMethod": true, "_path": true,
}

func parseDataLike(obj *Object, t Type, kind string) (Message, error) {
	m := Message{Type: t, Kind: string(t)}
	if t == TypeData && kind != "" {
		m.Kind = kind
	} else if kind != "" && kind != string(t) {
		return m, errorf(CodeMessageInvalid, "%s message cannot have kind %q", t, kind)
	}
	if !kindRE().MatchString(m.Kind) {
		return m, errorf(CodeMessageInvalid, "invalid kind %q", m.Kind)
	}
	if err := parseMeta(obj, &m); err != nil {
		return m, err
	}
	if err := parseHidden(obj, &m); err != nil {
		return m, err
	}
	return m, parseValue(obj, &m)
}

func parseMeta(obj *Object, m *Message) error {
	var err error
	if m.Instance, _, err = optString(obj, "_instance"); err != nil {
		return err
	}
	if m.Description, _, err = optString(obj, "description"); err != nil {
		return err
	}
	m.Schema, _ = obj.Get("schema")
	return nil
}

func parseHidden(obj *Object, m *Message) error {
	method, hasMethod, err := optString(obj, "_outputMethod")
	if err != nil {
		return err
	}
	path, hasPath, err := optString(obj, "_path")
	if err != nil {
		return err
	}
	if !hasMethod && !hasPath {
		return nil
	}
	if m.Type == TypeInput {
		return errorf(CodePathNotWritable, "input is read-only")
	}
	if m.OutputMethod, err = ParseMethod(method); err != nil {
		return err
	}
	if m.Path, err = checkDotted(path); err != nil {
		return err
	}
	if m.Date, _, err = optString(obj, "_date"); err != nil {
		return err
	}
	if raw, ok := obj.Get("_call"); ok && raw != nil {
		b, err := Encode(raw)
		if err == nil {
			m.Call = &CallRef{}
			err = json.Unmarshal(b, m.Call)
		}
		if err != nil {
			return errorf(CodeMessageInvalid, "field \"_call\": %v", err)
		}
	}
	return nil
}

func checkDotted(p string) (string, error) {
	if p == "" {
		return "", nil
	}
	for _, s := range strings.Split(p, ".") {
		if !segmentRE().MatchString(s) {
			return "", errorf(CodeMessageInvalid, "invalid _path %q", p)
		}
	}
	return p, nil
}

// parseValue applies the two value forms: a field named after the type, or
// every non-reserved key inline. Writes also accept `data` as the value field
// for any type (§1.5 shows `data:<value>` on writes).
func parseValue(obj *Object, m *Message) error {
	fields := []string{string(m.Type)}
	if m.IsWrite() && m.Type != TypeData {
		fields = append(fields, string(TypeData))
	}
	var named []string
	inline := &Object{}
	for _, k := range obj.Keys() {
		v, _ := obj.Get(k)
		switch {
		case contains(fields, k):
			named = append(named, k)
		case !reservedKeys[k]:
			inline.Set(k, v)
		}
	}
	switch {
	case len(named) > 1:
		return errorf(CodeMessageInvalid, "write carries both %q and %q", named[0], named[1])
	case len(named) == 1 && inline.Len() > 0:
		return errorf(CodeMessageInvalid, "%s message mixes the %q field with inline keys (%s)",
			m.Type, named[0], strings.Join(inline.Keys(), ", "))
	case len(named) == 1:
		m.Value, _ = obj.Get(named[0])
		m.HasValue = true
	case inline.Len() > 0:
		m.Value, m.HasValue = inline, true
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func parseAdvisor(obj *Object) (Message, error) {
	p := &AdvisorPatch{}
	var err error
	var ok bool
	if p.ID, ok, err = optString(obj, "id"); err != nil {
		return Message{}, err
	} else if !ok || p.ID == "" {
		return Message{}, errorf(CodeMessageInvalid, "advisor message needs an `id`")
	}
	if on, ok, err := optString(obj, "on"); err != nil {
		return Message{}, err
	} else if ok {
		p.On = &on
	}
	if p.Role, err = aliasString(obj, "role", "persona"); err != nil {
		return Message{}, err
	}
	if p.Schema, p.HasSchema, err = aliasValue(obj, "schema", "answer"); err != nil {
		return Message{}, err
	}
	if p.Scopes, p.HasScopes, err = optStrings(obj, "scopes"); err != nil {
		return Message{}, err
	}
	if p.IsInstanced, err = optBool(obj, "isInstanced"); err != nil {
		return Message{}, err
	}
	if w, ok, err := optNumber(obj, "weight"); err != nil {
		return Message{}, err
	} else if ok {
		p.Weight = &w
	}
	return Message{Type: TypeAdvisor, Advisor: p}, nil
}

func aliasString(obj *Object, primary, alias string) (*string, error) {
	v, ok, err := aliasValue(obj, primary, alias)
	if err != nil || !ok || v == nil {
		return nil, err
	}
	s, isStr := v.(string)
	if !isStr {
		return nil, errorf(CodeMessageInvalid, "field %q must be a string", primary)
	}
	return &s, nil
}

// aliasValue reads a field under its primary name or its alias; both present
// is a load error (§1.2).
func aliasValue(obj *Object, primary, alias string) (any, bool, error) {
	p, hasP := obj.Get(primary)
	a, hasA := obj.Get(alias)
	switch {
	case hasP && hasA:
		return nil, false, errorf(CodeMessageInvalid, "advisor has both %q and its alias %q", primary, alias)
	case hasA:
		return a, true, nil
	default:
		return p, hasP, nil
	}
}

// Method is an output method (§1.6).
type Method string

// Output methods. Assign and Concat are reserved and rejected in v1.
const (
	MethodSet    Method = "set"
	MethodMerge  Method = "merge"
	MethodPush   Method = "push"
	MethodErase  Method = "erase"
	MethodAssign Method = "assign"
	MethodConcat Method = "concat"
)

// ParseMethod validates a method name; "" means the default, set. Reserved
// and unknown methods give method_unsupported.
func ParseMethod(s string) (Method, error) {
	switch m := Method(s); m {
	case "":
		return MethodSet, nil
	case MethodSet, MethodMerge, MethodPush, MethodErase:
		return m, nil
	case MethodAssign, MethodConcat:
		return "", errorf(CodeMethodUnsupported, "method %q is reserved in v1", s)
	default:
		return "", errorf(CodeMethodUnsupported, "unknown method %q", s)
	}
}
