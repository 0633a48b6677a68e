package protocol

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
)

func x1Agent(t *testing.T) *Agent {
	return paAgent(t, &Agent{
		OutputSchema: paObj(t, `{"type":"object","properties":{"summary":{"type":"string"}},"required":["summary"]}`),
		Tools: []ToolDecl{paTool(t, "greetUser", "backend", `{"type":"object","properties":{
			"_scopes":{"type":"array","items":{"enum":["state"]},"provisioned":["input"]},
			"userName":{"type":"string"},"note":{"type":"string"}},"required":["userName"]}`)},
	})
}

// X1: the wire form is strict (all required, `note` nullable,
// additionalProperties:false everywhere, const → enum, no `provisioned`);
// the validation form keeps the originals; a null `note` is stripped before
// validation and the call is valid.
func TestVectorX1_StrictWireAndValidation(t *testing.T) {
	comp := paCompose(t, x1Agent(t), nil, TurnInfo{}, paReg())
	wire := string(comp.WireJSON)
	paCheckStrict(t, comp.Wire, "wire")
	require.NotContains(t, wire, "provisioned")
	require.NotContains(t, wire, `"const"`)
	tool := comp.Tool("greetUser")
	require.Equal(t, `{"type":"string","enum":["greetUser"]}`, paJSON(t, paAt(t, tool.Wire, "properties._tool")))
	require.Equal(t, `{"type":["string","null"]}`, paJSON(t, paAt(t, tool.Wire, "properties.note")))
	require.Equal(t, `{"type":"string"}`, paJSON(t, paAt(t, tool.Wire, "properties.userName")))
	require.Equal(t, []any{"_tool", "_reasoningForCall", "_scopes", "userName", "note"}, paAt(t, tool.Wire, "required"))

	// Validation keeps the original keywords and optionality.
	val := paJSON(t, comp.Validation)
	require.Contains(t, val, `"provisioned":["input"]`)
	require.Equal(t, `{"type":"string","const":"greetUser"}`, paJSON(t, paAt(t, tool.Variant, "properties._tool")))
	require.Equal(t, `{"type":"string"}`, paJSON(t, paAt(t, tool.Variant, "properties.note")))
	require.Equal(t, []any{"_tool", "_reasoningForCall", "userName"}, paAt(t, tool.Variant, "required"))
	_, hasAddl := comp.Validation.Get("additionalProperties")
	require.False(t, hasAddl)

	pr := Parse(comp, []byte(`{"calls":[{"_tool":"greetUser","_reasoningForCall":"r","_scopes":null,"userName":"Ann","note":null}],"output":null}`))
	require.Empty(t, pr.Repair)
	require.Empty(t, pr.CallErrors)
	require.Len(t, pr.Solution.Calls, 1)
	require.Equal(t, `{"userName":"Ann"}`, paJSON(t, pr.Solution.Calls[0].Args))
	require.Nil(t, pr.Solution.Calls[0].Scopes)
	require.Equal(t, `{"calls":[{"_tool":"greetUser","_reasoningForCall":"r","userName":"Ann"}],"output":null}`, paJSON(t, pr.Solution.Normalised))
}

// W1–W4 on the individual rules.
func TestStrictRules(t *testing.T) {
	in := paObj(t, `{"type":"object","title":"T","properties":{
		"format":{"type":"string","format":"date","default":"x"},
		"pick":{"oneOf":[{"const":1},{"type":"string","minLength":1}]},
		"kind":{"type":"string","enum":["a","b"]},
		"free":{"enum":["x"]},
		"either":{"anyOf":[{"type":"integer","minimum":0},{"type":"string","pattern":"^†"}]},
		"nothing":{"description":"no type"},
		"nested":{"type":"array","minItems":1,"items":{"type":"object","properties":{"k":{"type":"integer"}},"additionalProperties":{"type":"string"}}},
		"already":{"type":["string","null"]},
		"map":{"type":"object","additionalProperties":{"type":"integer"}}},
		"required":["format","nested"],"examples":[{}],"$schema":"x"}`)
	before := paJSON(t, in)
	got := Strict(in, nil)
	require.Equal(t, before, paJSON(t, in), "Strict must not modify its input")
	want := `{"type":"object","title":"T","additionalProperties":false,` +
		`"required":["format","pick","kind","free","either","nothing","nested","already","map"],"properties":{` +
		`"format":{"type":"string"},` +
		`"pick":{"anyOf":[{"enum":[1]},{"type":"string"},{"type":"null"}]},` +
		`"kind":{"type":["string","null"],"enum":["a","b",null]},` +
		`"free":{"enum":["x",null]},` +
		`"either":{"anyOf":[{"type":"integer"},{"type":"string"},{"type":"null"}]},` +
		`"nothing":{"anyOf":[{"description":"no type"},{"type":"null"}]},` +
		`"nested":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["k"],"properties":{"k":{"type":["integer","null"]}}}},` +
		`"already":{"type":["string","null"]},` +
		`"map":{"type":["object","null"],"additionalProperties":false,"required":[],"properties":{}}}}`
	require.Equal(t, want, paJSON(t, got))
	paCheckStrict(t, got, "strict")
}

// The validator reports JSON pointers for every failing keyword.
func TestValidateValuePointers(t *testing.T) {
	schema := paObj(t, `{"type":"object","properties":{
		"n":{"type":"integer","minimum":1},
		"s":{"type":"string","pattern":"^a","maxLength":3},
		"when":{"type":"string","format":"date-time"},
		"list":{"type":"array","items":{"type":"object","properties":{"a/b":{"enum":["x"]}},"required":["a/b"]}},
		"alt":{"anyOf":[{"type":"string"},{"type":"object","properties":{"v":{"type":"number"}},"required":["v"]}]},
		"closed":{"type":"object","properties":{"k":{"type":"boolean"}},"additionalProperties":false}},
		"required":["n","missing"]}`)
	value := paObj(t, `{"n":1.5,"s":"bcde","when":"yesterday","list":[{"a/b":"y"},{}],"alt":{"v":"no"},"closed":{"k":true,"extra":1}}`)
	var got []string
	for _, p := range ValidateValue(value, schema, "/output") {
		got = append(got, p.String())
	}
	require.Equal(t, []string{
		"/output/missing: is required",
		"/output/n: expected integer, got number",
		"/output/s: must be at most 3 characters long",
		`/output/s: must match the pattern "^a"`,
		"/output/when: must be a valid date-time",
		`/output/list/0/a~1b: must be one of ["x"]`,
		"/output/list/1/a~1b: is required",
		"/output/alt: matches none of the 2 allowed alternatives",
		"/output/alt/v: expected number, got string",
		"/output/closed/extra: is not an allowed property",
	}, got)
	require.Empty(t, ValidateValue(paObj(t, `{"n":2,"missing":null}`), schema, ""))
	require.Equal(t, "(root): expected object, got array", ValidateValue([]any{}, schema, "")[0].String())
	// Numbers compare numerically in enums; integers may be written 2.0.
	require.Empty(t, ValidateValue(paObj(t, `{"a":2.0}`), paObj(t, `{"properties":{"a":{"type":"integer","enum":[1,2]}}}`), ""))
}

// Local $refs are inlined; recursive ones are refused.
func TestInlineRefs(t *testing.T) {
	s, err := orderedSchema(paObj(t, `{"type":"object","$defs":{"name":{"type":"string","minLength":1}},
		"properties":{"first":{"$ref":"#/$defs/name","description":"First."},"list":{"type":"array","items":{"$ref":"#/$defs/name"}}}}`), "params")
	require.NoError(t, err)
	require.Equal(t, `{"type":"object","properties":{"first":{"type":"string","minLength":1,"description":"First."},"list":{"type":"array","items":{"type":"string","minLength":1}}}}`, paJSON(t, s))
	_, err = orderedSchema(paObj(t, `{"$defs":{"node":{"type":"object","properties":{"next":{"$ref":"#/$defs/node"}}}},"$ref":"#/$defs/node"}`), "params")
	require.ErrorContains(t, err, "recursive")
	_, err = orderedSchema(paObj(t, `{"properties":{"x":{"$ref":"https://example.com/s.json"}}}`), "params")
	require.ErrorContains(t, err, "only local")
	_, err = orderedSchema("string", "params")
	require.Error(t, err)
	// Plain Go maps are accepted and ordered.
	s, err = orderedSchema(map[string]any{"type": "object", "properties": map[string]any{"b": map[string]any{"type": "integer"}}}, "out")
	require.NoError(t, err)
	require.Equal(t, `{"properties":{"b":{"type":"integer"}},"type":"object"}`, paJSON(t, s))
}

// stripNulls removes nulls of optional properties only, recursively.
func TestStripNulls(t *testing.T) {
	schema := paObj(t, `{"type":"object","properties":{
		"opt":{"type":"string"},"req":{"type":["string","null"]},
		"inner":{"type":"object","properties":{"x":{"type":"integer"}}},
		"list":{"type":"array","items":{"type":"object","properties":{"y":{"type":"string"}}}},
		"alt":{"anyOf":[{"type":"object","properties":{"p":{"type":"string"},"q":{"type":"integer"}},"required":["q"]}]}},
		"required":["req"]}`)
	v := paObj(t, `{"opt":null,"req":null,"inner":{"x":null},"list":[{"y":null},{"y":"k"}],"alt":{"p":null,"q":1},"undeclared":null}`)
	got := stripNulls(v, schema)
	require.Equal(t, `{"req":null,"inner":{},"list":[{},{"y":"k"}],"alt":{"q":1},"undeclared":null}`, paJSON(t, got))
}

func TestPointerJoinAndNullable(t *testing.T) {
	require.Equal(t, "/calls/0/a~1b~0c", pointerJoin(pointerJoin("/calls", "0"), "a/b~c"))
	require.True(t, strings.HasPrefix(Problem{Message: "m"}.String(), "(root): "))
	require.Equal(t, true, nullable(true))
	require.Equal(t, `{"anyOf":[false,{"type":"null"}]}`, paJSON(t, nullable(false)))
	require.Equal(t, `{"type":["string","null"]}`, paJSON(t, nullable(agentctx.NewObject("type", []any{"string", "null"}))))
}
