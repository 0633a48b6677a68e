package agentctx

import "strings"

// Context is the ordered list of messages of one run (§1.1). Helpers fold it;
// none of them modifies the messages.
type Context []Message

// Fold is the value of one identity (kind, instance) after replaying its
// messages (§1.6).
type Fold struct {
	Kind        string
	Instance    string
	Value       any
	Exists      bool // false when no message gave a value or the root was erased
	Schema      any  // newest schema among the messages, nil if none
	Description string
	Warnings    []Warning
}

// Instances returns the distinct `_instance` values of data-like messages in
// order of first appearance (§2.1 step 3).
func (c Context) Instances() []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range c {
		if m.Type.DataLike() && m.Instance != "" && !seen[m.Instance] {
			seen[m.Instance] = true
			out = append(out, m.Instance)
		}
	}
	return out
}

// Kinds returns the kinds of data-like messages in order of first appearance,
// over all instances, internal kinds included.
func (c Context) Kinds() []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range c {
		if m.Type.DataLike() && !seen[m.Kind] {
			seen[m.Kind] = true
			out = append(out, m.Kind)
		}
	}
	return out
}

// IsInternal reports whether a kind is internal (leading `_`): never rendered,
// never scopeable.
func IsInternal(kind string) bool { return strings.HasPrefix(kind, "_") }

// Fold replays the messages of exactly (kind, instance), oldest to newest:
// messages without `_outputMethod` deep-merge at the root, writes apply their
// method at their `_path`. Other instances are never read; use View for the
// global ⊕ instance view.
func (c Context) Fold(kind, instance string) Fold {
	f := Fold{Kind: kind, Instance: instance}
	for i, m := range c {
		if !m.Type.DataLike() || m.Kind != kind || m.Instance != instance {
			continue
		}
		if m.Schema != nil {
			f.Schema = m.Schema
		}
		if m.Description != "" {
			f.Description = m.Description
		}
		f.apply(i, m)
	}
	return f
}

func (f *Fold) apply(index int, m Message) {
	if !m.IsWrite() {
		if m.HasValue {
			f.Value, f.Exists = Merge(f.Value, m.Value), true
		}
		return
	}
	var segs []string
	if m.Path != "" {
		segs = strings.Split(m.Path, ".")
	}
	v, exists, warn := update(f.Value, f.Exists, segs, m.OutputMethod, m.Value)
	if warn != "" {
		f.Warnings = append(f.Warnings, Warning{Code: warn, Kind: f.Kind, Instance: f.Instance, Path: m.Path, Index: index})
		return
	}
	f.Value, f.Exists = v, exists
}

// update applies one write below node and returns the new node. A non-empty
// warning means the write is skipped and node must be kept as it was. The
// caller owns node (it is a fold's private copy) so it is modified in place.
func update(node any, present bool, segs []string, method Method, value any) (any, bool, Code) {
	if len(segs) == 0 {
		return leaf(node, present, method, value)
	}
	switch t := node.(type) {
	case *Object:
		child, ok := t.Get(segs[0])
		nc, np, w := update(child, ok, segs[1:], method, value)
		if w != "" {
			return node, present, w
		}
		if np {
			t.Set(segs[0], nc)
		} else {
			t.Delete(segs[0])
		}
		return t, true, ""
	case []any:
		i, ok := arrayIndex(segs[0], len(t))
		if !ok {
			if method == MethodErase {
				return node, present, ""
			}
			return node, present, WarnPathNotTraversable
		}
		nc, np, w := update(t[i], true, segs[1:], method, value)
		if w != "" {
			return node, present, w
		}
		if np {
			t[i] = nc
			return t, true, ""
		}
		return append(t[:i:i], t[i+1:]...), true, ""
	default:
		if method == MethodErase {
			return node, present, "" // nothing to erase below a leaf
		}
		// Absent or scalar: intermediate objects are created (set, merge, push).
		return update(&Object{}, true, segs, method, value)
	}
}

func leaf(old any, present bool, method Method, value any) (any, bool, Code) {
	switch method {
	case MethodMerge:
		if !present {
			return Clone(value), true, ""
		}
		return Merge(old, value), true, ""
	case MethodPush:
		if !present {
			return []any{Clone(value)}, true, ""
		}
		arr, ok := old.([]any)
		if !ok {
			return old, present, WarnPushOnNonArray
		}
		return append(arr, Clone(value)), true, ""
	case MethodErase:
		return nil, false, ""
	default: // set
		return Clone(value), true, ""
	}
}
