package protocol

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
)

// UnknownToolKey is the weight key that collects votes for names that match
// no composed tool, exactly or case-insensitively (§3.1). Such votes are kept
// for observation and never tallied. A real tool named "unknown" collides with
// it: its votes are kept but not tallied either.
const UnknownToolKey = "unknown"

// Weight bounds (§3.1).
const (
	minWeight = 0
	maxWeight = 100
)

// ParseWeights parses an opinion's `calls` value tolerantly (§3.1) against
// the composed tool names. It never fails.
//
// v is the decoded value of `calls`: normally a string holding a JSON
// object, but an object (*agentctx.Object or map[string]any) is accepted
// with advisor_weights_not_string. Strings are trimmed and unwrapped from
// code fences (``` or ```json) and single backticks, then parsed as JSON;
// almost-JSON (single quotes, unquoted keys, trailing commas) and a JSON
// string holding an encoded object use a lenient parser and warn
// advisor_weights_lenient. Values: numbers and numeric strings ("10", " 10 ",
// "85%") convert; values outside 0..100 are clamped (advisor_weight_clamped);
// anything else (text, bool, null, object, array, NaN or Inf words) drops
// the key (advisor_weight_dropped). Keys: an exact tool name is used as is; a
// case-insensitive (and space-trimmed) match is mapped onto that tool; other
// keys are kept under UnknownToolKey, which holds the highest of their values
// at the position of the first such key. Both the mapped and the unknown
// keys warn advisor_weight_unknown_tool, one warning per key. Two keys
// landing on the same tool keep the first position and the last value. Anything else ("not json", an array, a bare
// number, an empty string) gives no weights and advisor_weights_unparsable;
// raw is then the original string (or the compact JSON of a non-string
// value) so the caller can keep it as `rawCalls`.
//
// Weights keep the order written and are never nil. Warning messages name
// the cause only; the caller adds the advisor id.
func ParseWeights(v any, tools []string) (weights []Weight, raw string, warnings []Warning) {
	weights = []Weight{}
	var obj *agentctx.Object
	switch t := v.(type) {
	case *agentctx.Object:
		if t == nil {
			return weights, "", []Warning{weightsUnparsable("calls is null")}
		}
		obj = t
		warnings = append(warnings, Warning{Code: WarnWeightsNotString,
			Message: "calls is a JSON object instead of a JSON string; used as is"})
	case map[string]any:
		obj = objectFromMap(t)
		warnings = append(warnings, Warning{Code: WarnWeightsNotString,
			Message: "calls is a JSON object instead of a JSON string; used as is"})
	case string:
		var lenient bool
		var cause string
		obj, lenient, cause = parseWeightsText(t)
		if obj == nil {
			return weights, t, []Warning{weightsUnparsable(cause)}
		}
		if lenient {
			warnings = append(warnings, Warning{Code: WarnWeightsLenient,
				Message: "calls is not strict JSON; parsed leniently"})
		}
	case nil:
		return weights, "", []Warning{weightsUnparsable("calls is null")}
	default:
		raw := ""
		if b, err := agentctx.Encode(v); err == nil {
			raw = string(b)
		}
		return weights, raw, []Warning{weightsUnparsable(fmt.Sprintf("calls is a %s, not a JSON object string", strings.Replace(jsonType(v), "integer", "number", 1)))}
	}
	weights, more := weightsFromObject(obj, tools)
	return weights, "", append(warnings, more...)
}

func weightsUnparsable(cause string) Warning {
	return Warning{Code: WarnWeightsUnparsable, Message: cause + "; no weights recorded"}
}

// objectFromMap orders a plain map by key (its order is lost anyway).
func objectFromMap(m map[string]any) *agentctx.Object {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	o := &agentctx.Object{}
	for _, k := range keys {
		o.Set(k, m[k])
	}
	return o
}

// parseWeightsText turns a `calls` string into an object. lenient reports
// that the strict JSON parse failed and the lenient one succeeded; a nil
// object comes with the cause.
func parseWeightsText(s string) (obj *agentctx.Object, lenient bool, cause string) {
	text := unwrapFences(s)
	if text == "" {
		return nil, false, "calls is empty"
	}
	if v, err := agentctx.Decode([]byte(text)); err == nil {
		switch t := v.(type) {
		case *agentctx.Object:
			return t, false, ""
		case string:
			// A JSON string holding the encoded object (double encoding).
			inner := unwrapFences(t)
			if iv, err := agentctx.Decode([]byte(inner)); err == nil {
				if o, ok := iv.(*agentctx.Object); ok {
					return o, true, ""
				}
			}
			if o, err := parseLenient(inner); err == nil {
				return o, true, ""
			}
		}
		return nil, false, fmt.Sprintf("calls holds a JSON %s, not an object", strings.Replace(jsonType(v), "integer", "number", 1))
	}
	o, err := parseLenient(text)
	if err != nil {
		return nil, false, "calls is not a JSON object (" + err.Error() + ")"
	}
	return o, true, ""
}

// unwrapFences trims s and removes one surrounding Markdown code fence
// (```, ```json, ```JSON …) or pair of single backticks.
func unwrapFences(s string) string {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "```") {
		t = t[3:]
		// Drop the info string (json, js, javascript …) when followed by a
		// line break or a space.
		i := 0
		for i < len(t) && isInfoByte(t[i]) {
			i++
		}
		if i > 0 && i < len(t) && (t[i] == '\n' || t[i] == '\r' || t[i] == ' ' || t[i] == '\t') {
			t = t[i:]
		} else if i == len(t) {
			t = ""
		}
		t = strings.TrimSpace(t)
		t = strings.TrimSpace(strings.TrimSuffix(t, "```"))
		return t
	}
	if len(t) >= 2 && t[0] == '`' && t[len(t)-1] == '`' {
		return strings.TrimSpace(t[1 : len(t)-1])
	}
	return t
}

func isInfoByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '+'
}

// weightsFromObject applies the value and key rules of §3.1.
func weightsFromObject(obj *agentctx.Object, tools []string) ([]Weight, []Warning) {
	var out []Weight
	var warnings []Warning
	pos := map[string]int{}
	for _, key := range obj.Keys() {
		raw, _ := obj.Get(key)
		val, ok := weightNumber(raw)
		if !ok {
			warnings = append(warnings, Warning{Code: WarnWeightDropped,
				Message: fmt.Sprintf("weight for %q is not a number (%s); dropped", key, weightsValueText(raw))})
			continue
		}
		if val < minWeight || val > maxWeight {
			clamped := math.Max(minWeight, math.Min(maxWeight, val))
			warnings = append(warnings, Warning{Code: WarnWeightClamped,
				Message: fmt.Sprintf("weight for %q is %s, outside 0..100; clamped to %s", key, fmtWeight(val), fmtWeight(clamped))})
			val = clamped
		}
		if val == 0 {
			val = 0 // no negative zero
		}
		tool, exact := matchTool(key, tools)
		switch {
		case tool == "":
			tool = UnknownToolKey
			warnings = append(warnings, Warning{Code: WarnWeightUnknownTool,
				Message: fmt.Sprintf("%q is not a tool of this turn; kept under %q", key, UnknownToolKey)})
		case !exact:
			warnings = append(warnings, Warning{Code: WarnWeightUnknownTool,
				Message: fmt.Sprintf("%q is not an exact tool name; matched to %q", key, tool)})
		}
		i, seen := pos[tool]
		switch {
		case !seen:
			pos[tool] = len(out)
			out = append(out, Weight{Tool: tool, Value: val})
		case tool == UnknownToolKey && !exact:
			out[i].Value = math.Max(out[i].Value, val)
		default:
			out[i].Value = val
		}
	}
	if out == nil {
		out = []Weight{}
	}
	return out, warnings
}

// matchTool maps a weight key onto a tool name: exact first, then
// case-insensitively after trimming spaces. "" means no match.
func matchTool(key string, tools []string) (tool string, exact bool) {
	for _, t := range tools {
		if t == key {
			return t, true
		}
	}
	k := strings.TrimSpace(key)
	for _, t := range tools {
		if strings.EqualFold(t, k) {
			return t, false
		}
	}
	return "", false
}

// weightNumber converts a weight value: JSON numbers and numeric strings
// (optionally with a trailing %). Non-finite words (NaN, Inf) are not
// numbers; numbers too large for float64 become ±Inf and are clamped later.
func weightNumber(v any) (float64, bool) {
	switch t := v.(type) {
	case json.Number:
		return parseWeightNumber(string(t))
	case string:
		s := strings.TrimSpace(t)
		s = strings.TrimSpace(strings.TrimSuffix(s, "%"))
		return parseWeightNumber(s)
	case float64:
		return t, !math.IsNaN(t)
	case float32:
		return float64(t), !math.IsNaN(float64(t))
	case int:
		return float64(t), true
	case int64:
		return float64(t), true
	default:
		return 0, false
	}
}

func parseWeightNumber(s string) (float64, bool) {
	if s == "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return f, true // ±Inf or an underflow to 0; clamped by the caller
	case err != nil, math.IsNaN(f), math.IsInf(f, 0):
		return 0, false
	}
	return f, true
}

// fmtWeight renders a number without trailing zeros (12, 12.5, 100).
func fmtWeight(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// weightsValueText renders a value for a warning, cut to a readable length.
func weightsValueText(v any) string {
	b, err := agentctx.Encode(v)
	if err != nil {
		return strings.Replace(jsonType(v), "integer", "number", 1)
	}
	const limit = 40
	if r := []rune(string(b)); len(r) > limit {
		return string(r[:limit]) + "…"
	}
	return string(b)
}

// maxLenientDepth bounds nesting in the lenient parser (weights are flat).
const maxLenientDepth = 32

// lenientParser reads almost-JSON: single- or double-quoted strings,
// unquoted keys and bare words, trailing commas. Values are *agentctx.Object,
// []any, float64, string, bool or nil.
type lenientParser struct {
	s     string
	i     int
	depth int
}

// parseLenient parses s as an almost-JSON object.
func parseLenient(s string) (*agentctx.Object, error) {
	p := &lenientParser{s: s}
	p.skipSpace()
	if p.i >= len(p.s) || p.s[p.i] != '{' {
		return nil, errors.New("does not start with '{'")
	}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.i < len(p.s) {
		return nil, fmt.Errorf("unexpected %q at offset %d", p.s[p.i], p.i)
	}
	return v.(*agentctx.Object), nil
}

func (p *lenientParser) skipSpace() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *lenientParser) errorf(format string, args ...any) error {
	return fmt.Errorf(format+" at offset %d", append(args, p.i)...)
}

func (p *lenientParser) value() (any, error) {
	p.skipSpace()
	if p.i >= len(p.s) {
		return nil, p.errorf("unexpected end")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"' || c == '\'':
		return p.quoted()
	case c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9':
		return p.number()
	case isBareByte(c):
		w := p.bare()
		switch w {
		case "true", "True":
			return true, nil
		case "false", "False":
			return false, nil
		case "null", "None", "undefined":
			return nil, nil
		}
		return w, nil
	default:
		return nil, p.errorf("unexpected %q", c)
	}
}

func (p *lenientParser) enter() error {
	p.depth++
	if p.depth > maxLenientDepth {
		return p.errorf("nesting too deep")
	}
	return nil
}

func (p *lenientParser) object() (any, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	p.i++ // '{'
	o := &agentctx.Object{}
	for {
		p.skipSpace()
		if p.i >= len(p.s) {
			return nil, p.errorf("unterminated object")
		}
		if p.s[p.i] == '}' {
			p.i++
			return o, nil
		}
		var key string
		switch c := p.s[p.i]; {
		case c == '"' || c == '\'':
			k, err := p.quoted()
			if err != nil {
				return nil, err
			}
			key = k
		case isBareByte(c):
			key = p.bare()
		default:
			return nil, p.errorf("expected a key, found %q", c)
		}
		p.skipSpace()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, p.errorf("expected ':' after key %q", key)
		}
		p.i++
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		o.Set(key, v)
		p.skipSpace()
		if p.i >= len(p.s) {
			return nil, p.errorf("unterminated object")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case '}':
		default:
			return nil, p.errorf("expected ',' or '}', found %q", p.s[p.i])
		}
	}
}

func (p *lenientParser) array() (any, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	p.i++ // '['
	arr := []any{}
	for {
		p.skipSpace()
		if p.i >= len(p.s) {
			return nil, p.errorf("unterminated array")
		}
		if p.s[p.i] == ']' {
			p.i++
			return arr, nil
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
		p.skipSpace()
		if p.i >= len(p.s) {
			return nil, p.errorf("unterminated array")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case ']':
		default:
			return nil, p.errorf("expected ',' or ']', found %q", p.s[p.i])
		}
	}
}

// quoted reads a single- or double-quoted string with JSON-style escapes.
func (p *lenientParser) quoted() (string, error) {
	q := p.s[p.i]
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return b.String(), nil
		case c == '\\' && p.i+1 < len(p.s):
			p.i++
			e := p.s[p.i]
			p.i++
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'u':
				if p.i+4 <= len(p.s) {
					if r, err := strconv.ParseUint(p.s[p.i:p.i+4], 16, 32); err == nil {
						b.WriteRune(rune(r))
						p.i += 4
						continue
					}
				}
				b.WriteByte('u')
			default:
				b.WriteByte(e) // \" \' \\ \/ and unknown escapes keep the character
			}
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return "", p.errorf("unterminated string")
}

func (p *lenientParser) number() (any, error) {
	start := p.i
	for p.i < len(p.s) && isNumberByte(p.s[p.i]) {
		p.i++
	}
	tok := p.s[start:p.i]
	f, err := strconv.ParseFloat(tok, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil, fmt.Errorf("invalid number %q at offset %d", tok, start)
	}
	return f, nil
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// bare reads an unquoted word: a key or a bare value.
func (p *lenientParser) bare() string {
	start := p.i
	for p.i < len(p.s) && isBareByte(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i]
}

// isBareByte accepts identifier-like bytes, including UTF-8 continuation
// bytes, so unquoted non-ASCII keys survive.
func isBareByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '$' || c == '-' || c >= 0x80
}
