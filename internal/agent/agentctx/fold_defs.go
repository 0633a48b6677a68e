package agentctx

// Tools folds tool messages by name: the last definition wins, at the
// position of the first (§1.3).
func (c Context) Tools() []ToolDef {
	var out []ToolDef
	pos := map[string]int{}
	for _, m := range c {
		if m.Type != TypeTool {
			continue
		}
		for _, t := range m.Tools {
			if i, ok := pos[t.Name]; ok {
				out[i] = t
				continue
			}
			pos[t.Name] = len(out)
			out = append(out, t)
		}
	}
	return out
}

// Advisor is a folded advisor declaration. On is "" when unset (on demand).
type Advisor struct {
	ID          string
	On          string
	Role        string
	Schema      any
	Scopes      []string
	IsInstanced bool
	Weight      float64 // 1 unless declared
}

// Advisors folds advisor messages by id, field by field, newest value per
// field winning, in order of first declaration. `on` may go from unset to a
// value once; a later different value is reported as advisor_on_conflict and
// only that field of the patch is ignored (the other fields still apply).
// Re-sending the same `on` value is not a conflict.
func (c Context) Advisors() ([]Advisor, []error) {
	var out []Advisor
	var errs []error
	pos := map[string]int{}
	for _, m := range c {
		if m.Type != TypeAdvisor {
			continue
		}
		p := m.Advisor
		i, ok := pos[p.ID]
		if !ok {
			i = len(out)
			pos[p.ID] = i
			out = append(out, Advisor{ID: p.ID, Weight: 1})
		}
		if err := out[i].patch(p); err != nil {
			errs = append(errs, err)
		}
	}
	return out, errs
}

func (a *Advisor) patch(p *AdvisorPatch) error {
	var err error
	if p.On != nil {
		switch {
		case a.On == "":
			a.On = *p.On
		case a.On != *p.On:
			err = errorf(CodeAdvisorOnConflict, "advisor %q: on is %q, cannot become %q", a.ID, a.On, *p.On)
		}
	}
	if p.Role != nil {
		a.Role = *p.Role
	}
	if p.HasSchema {
		a.Schema = p.Schema
	}
	if p.HasScopes {
		a.Scopes = p.Scopes
	}
	if p.IsInstanced != nil {
		a.IsInstanced = *p.IsInstanced
	}
	if p.Weight != nil {
		a.Weight = *p.Weight
	}
	return err
}

// LatestAdvice returns the latest advice per (id, instance), in order of the
// first advice of each identity.
func (c Context) LatestAdvice() []Advice {
	type key struct{ id, instance string }
	var out []Advice
	pos := map[key]int{}
	for _, m := range c {
		if m.Type != TypeAdvice {
			continue
		}
		k := key{m.Advice.ID, m.Advice.Instance}
		if i, ok := pos[k]; ok {
			out[i] = *m.Advice
			continue
		}
		pos[k] = len(out)
		out = append(out, *m.Advice)
	}
	return out
}
