package agentctx

import "time"

// Write describes one output-path write (§1.5, §1.6). Its Message method
// builds the append-only message that records it.
type Write struct {
	Path     Path
	Instance string // "" = global
	Method   Method // "" = set
	Value    any    // copied into the message
	Call     CallRef
	Date     time.Time // injected by the caller; zero = no `_date`
}

// Message validates the write and returns its message: type `state` for the
// state kind, else type `data` with the kind. `input` is read-only
// (path_not_writable); assign, concat and unknown methods give
// method_unsupported.
func (w Write) Message() (Message, error) {
	if w.Path.Kind == string(TypeInput) {
		return Message{}, errorf(CodePathNotWritable, "%s: input is read-only", w.Path)
	}
	if !kindRE().MatchString(w.Path.Kind) {
		return Message{}, errorf(CodePathNotWritable, "invalid kind %q", w.Path.Kind)
	}
	for _, s := range w.Path.Segments {
		if !segmentRE().MatchString(s) {
			return Message{}, errorf(CodePathNotWritable, "invalid segment %q", s)
		}
	}
	method, err := ParseMethod(string(w.Method))
	if err != nil {
		return Message{}, err
	}
	t := TypeData
	if w.Path.Kind == string(TypeState) {
		t = TypeState
	}
	call := w.Call
	m := Message{
		Type: t, Kind: w.Path.Kind, Instance: w.Instance,
		Value: Clone(w.Value), HasValue: method != MethodErase,
		Path: w.Path.Dotted(), OutputMethod: method, Call: &call,
	}
	if !w.Date.IsZero() {
		m.Date = w.Date.UTC().Format(time.RFC3339Nano)
	}
	return m, nil
}

// Resolve returns a copy of args in which every top-level parameter whose
// entire string value is a path is replaced by the value read from the view
// (typed: objects stay objects). Strings nested inside objects or arrays are
// not references. Paths that do not exist are left as strings and listed in
// unresolved, in parameter order; the call is ready when the list is empty.
// A parameter holding an expression (`||`, `&&`, `<|>`, `*>`) gives
// expression_unsupported.
func Resolve(args *Object, v View) (resolved *Object, unresolved []string, err error) {
	resolved = &Object{}
	if args == nil {
		return resolved, nil, nil
	}
	for _, k := range args.Keys() {
		val, _ := args.Get(k)
		s, isStr := val.(string)
		if !isStr {
			resolved.Set(k, Clone(val))
			continue
		}
		if isExpression(s) {
			return nil, nil, errorf(CodeExpressionUnsupported, "parameter %q: expressions are not supported in v1", k)
		}
		if !IsReference(s) {
			resolved.Set(k, s)
			continue
		}
		p, _ := ParsePath(s)
		got, ok := Read(v, p)
		if !ok {
			unresolved = append(unresolved, s)
			resolved.Set(k, s)
			continue
		}
		resolved.Set(k, Clone(got))
	}
	return resolved, unresolved, nil
}
