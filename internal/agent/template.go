package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// templatePattern matches a whole argument value {{tool_name.field}},
// optionally shifted by days: {{t.date+2d}} or {{t.date}}-1d.
var templatePattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(
		`^\{\{\s*([A-Za-z0-9_-]+)\.([A-Za-z0-9_.]+?)\s*(?:([+-]\d+)d)?\s*\}\}(?:\s*([+-]\d+)d)?$`)
})

// expandTemplates replaces every string value of the arguments that is a
// whole template with that field of the latest earlier successful result
// of the tool in this run (§ 7.1). Arguments without templates are passed
// on byte for byte. An unresolvable template is an error (the call gets
// invalid_arguments).
func (r *run) expandTemplates(args string) (string, error) {
	if !strings.Contains(args, "{{") {
		return args, nil
	}
	dec := json.NewDecoder(strings.NewReader(args))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return args, nil // not JSON: the tool reports it
	}
	changed := false
	v, err := r.expandValue(v, &changed)
	if err != nil || !changed {
		return args, err
	}
	b, err := marshal(v)
	if err != nil {
		return "", fmt.Errorf("arguments: %v", err)
	}
	return string(b), nil
}

// expandValue walks v and replaces templates.
func (r *run) expandValue(v any, changed *bool) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			nv, err := r.expandValue(e, changed)
			if err != nil {
				return nil, err
			}
			x[k] = nv
		}
	case []any:
		for i, e := range x {
			nv, err := r.expandValue(e, changed)
			if err != nil {
				return nil, err
			}
			x[i] = nv
		}
	case string:
		m := templatePattern().FindStringSubmatch(strings.TrimSpace(x))
		if m == nil {
			return x, nil
		}
		shift := m[3]
		if shift == "" {
			shift = m[4]
		}
		nv, err := r.resolveTemplate(x, lower(m[1]), m[2], shift)
		if err != nil {
			return nil, err
		}
		*changed = true
		return nv, nil
	}
	return v, nil
}

// resolveTemplate returns field path of the latest result of toolName,
// shifted by shift days ("+2", "-1" or "") when it is a date.
func (r *run) resolveTemplate(tmpl, toolName, path, shift string) (any, error) {
	text, ok := r.results[toolName]
	if !ok {
		return nil, fmt.Errorf("argument template %s: no earlier result of tool %s in this run", tmpl, toolName)
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("argument template %s: the result of %s is not JSON", tmpl, toolName)
	}
	for _, seg := range strings.Split(path, ".") {
		next, ok := field(v, seg)
		if !ok {
			return nil, fmt.Errorf("argument template %s: the result of %s has no field %s", tmpl, toolName, path)
		}
		v = next
	}
	if shift == "" {
		return v, nil
	}
	days, _ := strconv.Atoi(shift) // the pattern allows digits only
	if s, ok := v.(string); ok {
		return shiftDate(s, days), nil
	}
	return v, nil
}

// field returns the member seg of an object, or the element seg of an
// array.
func field(v any, seg string) (any, bool) {
	switch x := v.(type) {
	case map[string]any:
		e, ok := x[seg]
		return e, ok
	case []any:
		i, err := strconv.Atoi(seg)
		if err != nil || i < 0 || i >= len(x) {
			return nil, false
		}
		return x[i], true
	}
	return nil, false
}

// shiftDate adds days to a YYYY-MM-DD or RFC 3339 date; any other text is
// returned unchanged.
func shiftDate(s string, days int) string {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t.AddDate(0, 0, days).Format(time.DateOnly)
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.AddDate(0, 0, days).Format(time.RFC3339Nano)
	}
	return s
}
