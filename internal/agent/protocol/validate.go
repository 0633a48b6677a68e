package protocol

// The validator of solutions: ordered JSON values (agentctx) against the
// composition's validation schemas, every problem with the JSON pointer of
// the offending value and a sentence the model reads in its repair note,
// the closest branch of an anyOf reported.
//
// Why not github.com/google/jsonschema-go, the module's JSON Schema library
// (used by llm.Structured)? BenchmarkValidateSolution measures both on a
// reply of the compose benchmark's agent: the library alone (schema
// resolved once; per reply a decode into any and Validate, with no call
// variants, no pointers, no null stripping) takes about 8× the JSON
// encoding of the turn's request, against the target of 3× that
// BenchmarkCompose holds for a turn; Parse with this validator, everything
// included, about 2.5×. The library also stops at the first failing
// keyword and names schema locations, not the reply's JSON pointers that the
// repair notes (and vector A1) show the model.

import (
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/mail"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
)

// ValidateValue validates an ordered JSON value against an ordered JSON
// Schema (the usual draft 2020-12 keywords, local references inlined
// beforehand) and returns every problem found, each with the JSON pointer of
// the offending value below pointer. Unknown keywords and formats are
// ignored.
func ValidateValue(v, schema any, pointer string) []Problem {
	var vd validator
	vd.check(v, schema, pointer)
	return vd.problems
}

type validator struct {
	problems []Problem
}

func (vd *validator) add(ptr, format string, args ...any) {
	vd.problems = append(vd.problems, Problem{Pointer: ptr, Message: fmt.Sprintf(format, args...)})
}

func (vd *validator) check(v, s any, ptr string) {
	switch t := s.(type) {
	case nil:
		return
	case bool:
		if !t {
			vd.add(ptr, "no value is allowed here")
		}
		return
	}
	o, ok := s.(*agentctx.Object)
	if !ok {
		return
	}
	if ty, ok := o.Get("type"); ok && !typeMatches(v, ty) {
		vd.add(ptr, "expected %s, got %s", typeString(ty), jsonType(v))
		return
	}
	if e, ok := o.Get("enum"); ok {
		if list, ok := e.([]any); ok && !inList(v, list) {
			vd.add(ptr, "must be one of %s", compact(list))
		}
	}
	if c, ok := o.Get("const"); ok && !jsonEqual(v, c) {
		vd.add(ptr, "must equal %s", compact(c))
	}
	switch val := v.(type) {
	case string:
		vd.checkString(val, o, ptr)
	case *agentctx.Object:
		vd.checkObject(val, o, ptr)
	case []any:
		vd.checkArray(val, o, ptr)
	default:
		if f, ok := number(v); ok {
			vd.checkNumber(f, o, ptr)
		}
	}
	vd.checkCombinators(v, o, ptr)
}

func (vd *validator) checkCombinators(v any, o *agentctx.Object, ptr string) {
	if all, ok := o.Get("allOf"); ok {
		for _, s := range asList(all) {
			vd.check(v, s, ptr)
		}
	}
	if any_, ok := o.Get("anyOf"); ok {
		vd.checkAnyOf(v, asList(any_), ptr, "anyOf")
	}
	if one, ok := o.Get("oneOf"); ok {
		list := asList(one)
		n := 0
		for _, s := range list {
			if len(ValidateValue(v, s, ptr)) == 0 {
				n++
			}
		}
		switch {
		case n == 0:
			vd.checkAnyOf(v, list, ptr, "oneOf")
		case n > 1:
			vd.add(ptr, "matches %d of the oneOf schemas, exactly one is allowed", n)
		}
	}
	if not, ok := o.Get("not"); ok && len(ValidateValue(v, not, ptr)) == 0 {
		vd.add(ptr, "must not match the `not` schema")
	}
	if cond, ok := o.Get("if"); ok {
		branch := "else"
		if len(ValidateValue(v, cond, ptr)) == 0 {
			branch = "then"
		}
		if s, ok := o.Get(branch); ok {
			vd.check(v, s, ptr)
		}
	}
}

// checkAnyOf reports the problems of the closest branch when none matches.
func (vd *validator) checkAnyOf(v any, list []any, ptr, kw string) {
	var best []Problem
	bestScore := 0
	for i, s := range list {
		p := ValidateValue(v, s, ptr)
		if len(p) == 0 {
			return
		}
		score := len(p)
		if o, ok := s.(*agentctx.Object); ok {
			if ty, ok := o.Get("type"); ok && !typeMatches(v, ty) {
				score += 1 << 20 // an alternative of another type is the least close
			}
		}
		if i == 0 || score < bestScore {
			best, bestScore = p, score
		}
	}
	if len(list) == 0 {
		vd.add(ptr, "%s has no alternatives", kw)
		return
	}
	vd.add(ptr, "matches none of the %d allowed alternatives", len(list))
	vd.problems = append(vd.problems, best...)
}

func (vd *validator) checkString(s string, o *agentctx.Object, ptr string) {
	n := utf8.RuneCountInString(s)
	if m, ok := numberKw(o, "minLength"); ok && float64(n) < m {
		vd.add(ptr, "must be at least %v characters long", m)
	}
	if m, ok := numberKw(o, "maxLength"); ok && float64(n) > m {
		vd.add(ptr, "must be at most %v characters long", m)
	}
	if p, ok := o.Get("pattern"); ok {
		if ps, ok := p.(string); ok {
			re, err := compilePattern(ps)
			switch {
			case err != nil:
				vd.add(ptr, "the schema pattern %q is not a valid regular expression", ps)
			case !re.MatchString(s):
				vd.add(ptr, "must match the pattern %q", ps)
			}
		}
	}
	if f, ok := o.Get("format"); ok {
		if fs, ok := f.(string); ok && !formatOK(fs, s) {
			vd.add(ptr, "must be a valid %s", fs)
		}
	}
}

func (vd *validator) checkNumber(f float64, o *agentctx.Object, ptr string) {
	if m, ok := numberKw(o, "minimum"); ok {
		if ex, _ := o.Get("exclusiveMinimum"); ex == true && f <= m {
			vd.add(ptr, "must be greater than %v", m)
		} else if f < m {
			vd.add(ptr, "must be at least %v", m)
		}
	}
	if m, ok := numberKw(o, "maximum"); ok {
		if ex, _ := o.Get("exclusiveMaximum"); ex == true && f >= m {
			vd.add(ptr, "must be less than %v", m)
		} else if f > m {
			vd.add(ptr, "must be at most %v", m)
		}
	}
	if m, ok := numberKw(o, "exclusiveMinimum"); ok && f <= m {
		vd.add(ptr, "must be greater than %v", m)
	}
	if m, ok := numberKw(o, "exclusiveMaximum"); ok && f >= m {
		vd.add(ptr, "must be less than %v", m)
	}
	if m, ok := numberKw(o, "multipleOf"); ok && m > 0 {
		q := f / m
		if math.Abs(q-math.Round(q)) > 1e-9 {
			vd.add(ptr, "must be a multiple of %v", m)
		}
	}
}

func (vd *validator) checkArray(arr []any, o *agentctx.Object, ptr string) {
	if m, ok := numberKw(o, "minItems"); ok && float64(len(arr)) < m {
		vd.add(ptr, "must have at least %v items", m)
	}
	if m, ok := numberKw(o, "maxItems"); ok && float64(len(arr)) > m {
		vd.add(ptr, "must have at most %v items", m)
	}
	if u, _ := o.Get("uniqueItems"); u == true {
		for i := range arr {
			for j := i + 1; j < len(arr); j++ {
				if jsonEqual(arr[i], arr[j]) {
					vd.add(ptr, "items %d and %d are equal", i, j)
				}
			}
		}
	}
	start := 0
	prefix, hasPrefix := o.Get("prefixItems")
	items, hasItems := o.Get("items")
	if tuple, ok := items.([]any); ok { // draft-07 tuple form
		prefix, hasPrefix, hasItems = tuple, true, false
		items, hasItems = o.Get("additionalItems")
	}
	if hasPrefix {
		for i, s := range asList(prefix) {
			if i < len(arr) {
				vd.check(arr[i], s, pointerJoin(ptr, strconv.Itoa(i)))
			}
			start = i + 1
		}
	}
	if hasItems {
		for i := start; i < len(arr); i++ {
			vd.check(arr[i], items, pointerJoin(ptr, strconv.Itoa(i)))
		}
	}
	if c, ok := o.Get("contains"); ok {
		found := false
		for _, e := range arr {
			if len(ValidateValue(e, c, ptr)) == 0 {
				found = true
				break
			}
		}
		if !found {
			vd.add(ptr, "must contain an item matching the `contains` schema")
		}
	}
}

func (vd *validator) checkObject(obj *agentctx.Object, o *agentctx.Object, ptr string) {
	for _, r := range getStrings(o, "required") {
		if _, ok := obj.Get(r); !ok {
			vd.add(pointerJoin(ptr, r), "is required")
		}
	}
	if m, ok := numberKw(o, "minProperties"); ok && float64(obj.Len()) < m {
		vd.add(ptr, "must have at least %v properties", m)
	}
	if m, ok := numberKw(o, "maxProperties"); ok && float64(obj.Len()) > m {
		vd.add(ptr, "must have at most %v properties", m)
	}
	props, _ := getObject(o, "properties")
	patterns, _ := getObject(o, "patternProperties")
	addl, hasAddl := o.Get("additionalProperties")
	names, hasNames := o.Get("propertyNames")
	for _, k := range obj.Keys() {
		v, _ := obj.Get(k)
		p := pointerJoin(ptr, k)
		if hasNames {
			vd.check(k, names, p)
		}
		matched := false
		if props != nil {
			if s, ok := props.Get(k); ok {
				vd.check(v, s, p)
				matched = true
			}
		}
		if patterns != nil {
			for _, pat := range patterns.Keys() {
				re, err := compilePattern(pat)
				if err == nil && re.MatchString(k) {
					s, _ := patterns.Get(pat)
					vd.check(v, s, p)
					matched = true
				}
			}
		}
		if !matched && hasAddl {
			if addl == false {
				vd.add(p, "is not an allowed property")
			} else {
				vd.check(v, addl, p)
			}
		}
	}
}

var patternCache sync.Map // string → *regexp.Regexp or error

func compilePattern(p string) (*regexp.Regexp, error) {
	if v, ok := patternCache.Load(p); ok {
		if re, ok := v.(*regexp.Regexp); ok {
			return re, nil
		}
		return nil, v.(error)
	}
	re, err := regexp.Compile(p)
	if err != nil {
		patternCache.Store(p, err)
		return nil, err
	}
	patternCache.Store(p, re)
	return re, nil
}

var uuidRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
})

// formatOK checks the common formats; unknown formats pass.
func formatOK(format, s string) bool {
	switch format {
	case "date-time":
		_, err := time.Parse(time.RFC3339, s)
		return err == nil
	case "date":
		_, err := time.Parse("2006-01-02", s)
		return err == nil
	case "time":
		_, err := time.Parse("15:04:05Z07:00", s)
		if err != nil {
			_, err = time.Parse("15:04:05", s)
		}
		return err == nil
	case "email":
		a, err := mail.ParseAddress(s)
		return err == nil && a.Address == s
	case "uri":
		u, err := url.Parse(s)
		return err == nil && u.Scheme != ""
	case "uuid":
		return uuidRE().MatchString(s)
	case "ipv4":
		ip := net.ParseIP(s)
		return ip != nil && ip.To4() != nil && !strings.Contains(s, ":")
	case "ipv6":
		ip := net.ParseIP(s)
		return ip != nil && strings.Contains(s, ":")
	}
	return true
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func numberKw(o *agentctx.Object, key string) (float64, bool) {
	v, ok := o.Get(key)
	if !ok {
		return 0, false
	}
	return number(v)
}

// number converts a JSON number in any Go representation to float64.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case int32:
		return float64(n), true
	case uint:
		return float64(n), true
	case uint64:
		return float64(n), true
	}
	return 0, false
}

func isInteger(v any) bool {
	if n, ok := v.(json.Number); ok {
		if _, err := n.Int64(); err == nil {
			return true
		}
	}
	f, ok := number(v)
	return ok && !math.IsInf(f, 0) && f == math.Trunc(f)
}

// jsonType names the JSON type of an ordered value.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case *agentctx.Object, map[string]any:
		return "object"
	}
	if _, ok := number(v); ok {
		if isInteger(v) {
			return "integer"
		}
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

func typeMatches(v, ty any) bool {
	one := func(t string) bool {
		got := jsonType(v)
		switch t {
		case "number":
			return got == "number" || got == "integer"
		default:
			return got == t
		}
	}
	switch t := ty.(type) {
	case string:
		return one(t)
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok && one(s) {
				return true
			}
		}
		return false
	}
	return true
}

func typeString(ty any) string {
	switch t := ty.(type) {
	case string:
		return t
	case []any:
		parts := make([]string, 0, len(t))
		for _, e := range t {
			parts = append(parts, fmt.Sprint(e))
		}
		return strings.Join(parts, " or ")
	}
	return fmt.Sprint(ty)
}

func inList(v any, list []any) bool {
	for _, e := range list {
		if jsonEqual(v, e) {
			return true
		}
	}
	return false
}

// jsonEqual compares two JSON values: numbers numerically, objects by their
// key sets whatever the order.
func jsonEqual(a, b any) bool {
	if fa, ok := number(a); ok {
		fb, ok := number(b)
		return ok && fa == fb
	}
	switch x := a.(type) {
	case *agentctx.Object:
		y, ok := b.(*agentctx.Object)
		if !ok || x.Len() != y.Len() {
			return false
		}
		for _, k := range x.Keys() {
			xv, _ := x.Get(k)
			yv, ok := y.Get(k)
			if !ok || !jsonEqual(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}

func compact(v any) string {
	b, err := agentctx.Encode(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// stripNulls undoes W2 on a value owned by the caller: nulls of properties
// that the validation schema declares but does not require are removed,
// recursively through properties, items and combinators (for anyOf/oneOf,
// the first alternative the stripped value satisfies is used).
func stripNulls(v, s any) any {
	o, ok := s.(*agentctx.Object)
	if !ok {
		return v
	}
	switch val := v.(type) {
	case *agentctx.Object:
		if props, ok := getObject(o, "properties"); ok {
			req := stringSet(o, "required")
			for _, k := range append([]string(nil), val.Keys()...) {
				ps, declared := props.Get(k)
				if !declared {
					continue
				}
				x, _ := val.Get(k)
				if x == nil && !req[k] {
					val.Delete(k)
					continue
				}
				val.Set(k, stripNulls(x, ps))
			}
		}
	case []any:
		start := 0
		if prefix, ok := o.Get("prefixItems"); ok {
			for i, ps := range asList(prefix) {
				if i < len(val) {
					val[i] = stripNulls(val[i], ps)
				}
				start = i + 1
			}
		}
		if items, ok := o.Get("items"); ok {
			if _, tuple := items.([]any); !tuple {
				for i := start; i < len(val); i++ {
					val[i] = stripNulls(val[i], items)
				}
			}
		}
	}
	if all, ok := o.Get("allOf"); ok {
		for _, s := range asList(all) {
			v = stripNulls(v, s)
		}
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		alts, ok := o.Get(kw)
		if !ok {
			continue
		}
		for _, alt := range asList(alts) {
			c := stripNulls(agentctx.Clone(v), alt)
			if len(ValidateValue(c, alt, "")) == 0 {
				v = c
				break
			}
		}
	}
	return v
}
