package protocol

import (
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var hcA1Tools = []string{"deploy", "rollback", "delay"}

func hcCodes(ws []Warning) []Code {
	out := []Code{}
	for _, w := range ws {
		out = append(out, w.Code)
	}
	return out
}

// A1: the advisor's calls string parses to exactly the written weights, in
// order, without warnings.
func TestVectorA1_Weights(t *testing.T) {
	ws, raw, warns := ParseWeights(`{"deploy":10,"rollback":5,"delay":95}`, hcA1Tools)
	assert.Equal(t, []Weight{{"deploy", 10}, {"rollback", 5}, {"delay", 95}}, ws)
	assert.Empty(t, raw)
	assert.Empty(t, warns)
}

// A7 (a): "not json" → no weights, rawCalls kept, advisor_weights_unparsable.
func TestVectorA7a_WeightsUnparsable(t *testing.T) {
	ws, raw, warns := ParseWeights("not json", hcA1Tools)
	assert.NotNil(t, ws)
	assert.Empty(t, ws)
	assert.Equal(t, "not json", raw)
	assert.Equal(t, []Code{WarnWeightsUnparsable}, hcCodes(warns))
	assert.NotEmpty(t, warns[0].Message)
}

// A7 (b): almost-JSON → {deploy:10, delay:95}, advisor_weights_lenient.
func TestVectorA7b_WeightsLenient(t *testing.T) {
	ws, raw, warns := ParseWeights("{deploy: '10', delay: 95,}", hcA1Tools)
	assert.Equal(t, []Weight{{"deploy", 10}, {"delay", 95}}, ws)
	assert.Empty(t, raw)
	assert.Equal(t, []Code{WarnWeightsLenient}, hcCodes(warns))
}

// A7 (c): out of range → {deploy:100}, advisor_weight_clamped.
func TestVectorA7c_WeightsClamped(t *testing.T) {
	ws, _, warns := ParseWeights(`{"deploy":140}`, hcA1Tools)
	assert.Equal(t, []Weight{{"deploy", 100}}, ws)
	assert.Equal(t, []Code{WarnWeightClamped}, hcCodes(warns))
	assert.Contains(t, warns[0].Message, "140")
}

func TestParseWeights_Cases(t *testing.T) {
	tools := []string{"deploy", "rollback", "delay", "replace_text"}
	tests := []struct {
		name  string
		in    any
		want  []Weight
		raw   string
		codes []Code
	}{
		{"padded", "  \n{\"deploy\":10}\t ", []Weight{{"deploy", 10}}, "", []Code{}},
		{"fenced json", "```json\n{\"deploy\":10, \"delay\":20}\n```", []Weight{{"deploy", 10}, {"delay", 20}}, "", []Code{}},
		{"fenced plain", "```\n{\"deploy\":10}\n```", []Weight{{"deploy", 10}}, "", []Code{}},
		{"fenced one line", "```{\"deploy\":10}```", []Weight{{"deploy", 10}}, "", []Code{}},
		{"backticks", "`{\"deploy\":10}`", []Weight{{"deploy", 10}}, "", []Code{}},
		{"fenced lenient", "```json\n{deploy: 10,}\n```", []Weight{{"deploy", 10}}, "", []Code{WarnWeightsLenient}},
		{"numeric strings", `{"deploy":"10","delay":" 7.5 ","rollback":"85%"}`,
			[]Weight{{"deploy", 10}, {"delay", 7.5}, {"rollback", 85}}, "", []Code{}},
		{"negative clamped", `{"deploy":-3}`, []Weight{{"deploy", 0}}, "", []Code{WarnWeightClamped}},
		{"huge clamped", `{"deploy":1e999}`, []Weight{{"deploy", 100}}, "", []Code{WarnWeightClamped}},
		{"non-numeric dropped", `{"deploy":"high","delay":true,"rollback":null,"replace_text":{"a":1}}`,
			[]Weight{}, "", []Code{WarnWeightDropped, WarnWeightDropped, WarnWeightDropped, WarnWeightDropped}},
		{"nan word dropped", `{"deploy":"NaN","delay":"Inf","rollback":5}`, []Weight{{"rollback", 5}}, "",
			[]Code{WarnWeightDropped, WarnWeightDropped}},
		{"case-insensitive", `{"Deploy":10," DELAY ":20}`, []Weight{{"deploy", 10}, {"delay", 20}}, "",
			[]Code{WarnWeightUnknownTool, WarnWeightUnknownTool}},
		{"unknown keys keep max under unknown", `{"publish":40,"deploy":10,"launch":70,"fly":5}`,
			[]Weight{{UnknownToolKey, 70}, {"deploy", 10}}, "",
			[]Code{WarnWeightUnknownTool, WarnWeightUnknownTool, WarnWeightUnknownTool}},
		{"same tool twice keeps first position, last value", `{"deploy":10,"delay":1,"DEPLOY":30}`,
			[]Weight{{"deploy", 30}, {"delay", 1}}, "", []Code{WarnWeightUnknownTool}},
		{"empty object", `{}`, []Weight{}, "", []Code{}},
		{"array", `[{"deploy":10}]`, []Weight{}, `[{"deploy":10}]`, []Code{WarnWeightsUnparsable}},
		{"bare number", `42`, []Weight{}, `42`, []Code{WarnWeightsUnparsable}},
		{"empty string", "  ", []Weight{}, "  ", []Code{WarnWeightsUnparsable}},
		{"truncated", `{"deploy":10`, []Weight{}, `{"deploy":10`, []Code{WarnWeightsUnparsable}},
		{"double encoded", `"{\"deploy\":10}"`, []Weight{{"deploy", 10}}, "", []Code{WarnWeightsLenient}},
		{"object value", agentctx.NewObject("delay", json.Number("95"), "deploy", "10"),
			[]Weight{{"delay", 95}, {"deploy", 10}}, "", []Code{WarnWeightsNotString}},
		{"plain map sorted by key", map[string]any{"delay": 95.0, "deploy": 10},
			[]Weight{{"delay", 95}, {"deploy", 10}}, "", []Code{WarnWeightsNotString}},
		{"nil", nil, []Weight{}, "", []Code{WarnWeightsUnparsable}},
		{"number value", json.Number("12"), []Weight{}, "12", []Code{WarnWeightsUnparsable}},
		{"array value", []any{"x"}, []Weight{}, `["x"]`, []Code{WarnWeightsUnparsable}},
		{"python-ish", `{'deploy': 10, "delay": 20.5, rollback: +5}`,
			[]Weight{{"deploy", 10}, {"delay", 20.5}, {"rollback", 5}}, "", []Code{WarnWeightsLenient}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws, raw, warns := ParseWeights(tc.in, tools)
			assert.Equal(t, tc.want, ws)
			assert.Equal(t, tc.raw, raw)
			assert.Equal(t, tc.codes, hcCodes(warns))
			for _, w := range warns {
				assert.NotEmpty(t, w.Message, "warning %s has a message", w.Code)
			}
		})
	}
}

func TestParseWeights_NoNegativeZero(t *testing.T) {
	ws, _, _ := ParseWeights(`{"deploy":-0}`, hcA1Tools)
	require.Len(t, ws, 1)
	assert.False(t, math.Signbit(ws[0].Value))
}

func TestParseWeights_LenientErrors(t *testing.T) {
	for _, s := range []string{"{deploy 10}", "{deploy: 10 delay: 5}", "{'deploy: 10}", "{deploy: [1,}", "{a:1}}", "{:1}", "{a:-}"} {
		ws, raw, warns := ParseWeights(s, hcA1Tools)
		assert.Empty(t, ws, s)
		assert.Equal(t, s, raw, s)
		assert.Equal(t, []Code{WarnWeightsUnparsable}, hcCodes(warns), s)
	}
}

func TestParseWeights_DeepNestingIsBounded(t *testing.T) {
	s := "{a:"
	for range 10000 {
		s += "["
	}
	ws, _, warns := ParseWeights(s, hcA1Tools)
	assert.Empty(t, ws)
	assert.Equal(t, []Code{WarnWeightsUnparsable}, hcCodes(warns))
}

// FuzzParseWeights checks that ParseWeights never panics and always returns
// bounded weights for known tools or UnknownToolKey, each tool once.
func FuzzParseWeights(f *testing.F) {
	for _, s := range []string{
		"not json", "{deploy: '10', delay: 95,}", `{"deploy":140}`, `{"deploy":10,"rollback":5,"delay":95}`,
		"```json\n{\"x\":1}\n```", `"{\"deploy\":1}"`, `{'a':'1e999'}`, `{a:[{b:{c:NaN}}]}`, "`", "```", `{"\u00e9":"5%"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ws, raw, warns := ParseWeights(s, hcA1Tools)
		if ws == nil {
			t.Fatal("nil weights")
		}
		seen := map[string]bool{}
		for _, w := range ws {
			if !(w.Value >= 0 && w.Value <= 100) {
				t.Fatalf("weight %v out of range", w)
			}
			if w.Tool != UnknownToolKey && !slices.Contains(hcA1Tools, w.Tool) {
				t.Fatalf("weight for unexpected tool %q", w.Tool)
			}
			if seen[w.Tool] {
				t.Fatalf("tool %q twice", w.Tool)
			}
			seen[w.Tool] = true
		}
		if raw != "" && raw != s {
			t.Fatalf("raw %q is not the input", raw)
		}
		for _, w := range warns {
			if w.Code == WarnWeightsUnparsable && (len(ws) != 0 || raw != s) {
				t.Fatalf("unparsable with weights %v raw %q", ws, raw)
			}
		}
	})
}
