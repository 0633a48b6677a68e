package agentctx

// View is the read side of a context for one instance ("" = global): one fold
// per kind, the global fold deep-merged with the instance's fold, the instance
// winning (§1.3). Other instances never contribute.
type View struct {
	Instance string
	kinds    []string
	folds    map[string]Fold
}

// View builds the view for instance ("" = global only).
func (c Context) View(instance string) View {
	v := View{Instance: instance, folds: map[string]Fold{}}
	for _, m := range c {
		if !m.Type.DataLike() || (m.Instance != "" && m.Instance != instance) {
			continue
		}
		if _, ok := v.folds[m.Kind]; ok {
			continue
		}
		v.kinds = append(v.kinds, m.Kind)
		v.folds[m.Kind] = c.viewFold(m.Kind, instance)
	}
	return v
}

func (c Context) viewFold(kind, instance string) Fold {
	g := c.Fold(kind, "")
	if instance == "" {
		return g
	}
	x := c.Fold(kind, instance)
	out := x
	out.Warnings = append(append([]Warning(nil), g.Warnings...), x.Warnings...)
	switch {
	case !x.Exists:
		out.Value, out.Exists = g.Value, g.Exists
	case g.Exists:
		out.Value = Merge(Clone(g.Value), x.Value)
	}
	if out.Schema == nil {
		out.Schema = g.Schema
	}
	if out.Description == "" {
		out.Description = g.Description
	}
	return out
}

// Kinds returns the kinds visible in the view, by first appearance.
func (v View) Kinds() []string { return v.kinds }

// Kind returns the fold of one kind and whether the kind has messages in the
// view. The returned value is shared with the view: do not modify it.
func (v View) Kind(kind string) (Fold, bool) {
	f, ok := v.folds[kind]
	return f, ok
}

// Read reads a path in the view. A written path exists whatever its value
// (false, 0, "", null); a numeric segment indexes an array, -1 being the last
// element. The value is shared with the view: Clone it before modifying.
func Read(v View, p Path) (any, bool) {
	f, ok := v.folds[p.Kind]
	if !ok || !f.Exists {
		return nil, false
	}
	return readValue(f.Value, p.Segments)
}

// ReadString parses s as a path and reads it (see Read).
func ReadString(v View, s string) (any, bool, error) {
	p, err := ParsePath(s)
	if err != nil {
		return nil, false, err
	}
	val, ok := Read(v, p)
	return val, ok, nil
}
