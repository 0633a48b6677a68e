package protocol

import (
	"errors"
	"testing"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func hcContext(t *testing.T, js string) agentctx.Context {
	t.Helper()
	c, err := agentctx.ParseContext([]byte(js))
	require.NoError(t, err)
	return c
}

func hcJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := agentctx.Encode(v)
	require.NoError(t, err)
	return string(b)
}

// hcSummary renders scoped messages as "type/kind=value" lines.
func hcSummary(t *testing.T, msgs []agentctx.Message) []string {
	t.Helper()
	out := []string{}
	for _, m := range msgs {
		if m.Type == agentctx.TypeAdvisor {
			out = append(out, "advisor="+hcJSON(t, m.Object()))
			continue
		}
		out = append(out, string(m.Type)+"/"+m.Kind+"="+hcJSON(t, m.Value))
	}
	return out
}

// hcAssertClean checks §4.2 step 5: no instance, no write fields.
func hcAssertClean(t *testing.T, msgs []agentctx.Message) {
	t.Helper()
	for _, m := range msgs {
		assert.Empty(t, m.Instance)
		assert.Empty(t, m.Path)
		assert.Empty(t, m.OutputMethod)
		assert.Nil(t, m.Call)
		assert.Empty(t, m.Date)
		js := hcJSON(t, m.Object())
		for _, k := range append([]string{"_instance"}, agentctx.HiddenKeys...) {
			assert.NotContains(t, js, `"`+k+`"`)
		}
	}
}

// S2 (scope part): granted ["state"] → exactly [state{userId:"u_42"}]; no
// input, no hidden fields; Kind("state") gives userId u_42.
func TestVectorS2_ScopeState(t *testing.T) {
	c := hcContext(t, `[{"type":"state","state":{"userId":"u_42"}},{"type":"input","input":{"note":"x"}}]`)
	msgs := Scope(c, "", []string{"state"})
	require.Len(t, msgs, 1)
	assert.Equal(t, agentctx.Message{Type: agentctx.TypeState, Kind: "state",
		Value: agentctx.NewObject("userId", "u_42"), HasValue: true}, msgs[0])
	hcAssertClean(t, msgs)

	sc := NewScoped(msgs)
	raw, ok := sc.Kind("state")
	require.True(t, ok)
	assert.JSONEq(t, `{"userId":"u_42"}`, string(raw))
	_, ok = sc.Kind("input")
	assert.False(t, ok)
	assert.Equal(t, []string{`state/state={"userId":"u_42"}`}, hcSummary(t, sc.Messages()))
}

// S3/S4 (scope part): provisioned ["state"] passes the state; no scopes
// (absent or const []) pass nothing.
func TestVectorS3S4_ScopeGrantedOrNothing(t *testing.T) {
	c := hcContext(t, `[{"type":"state","state":{"articleText":"A long and complex article..."}}]`)
	assert.Equal(t, []string{`state/state={"articleText":"A long and complex article..."}`},
		hcSummary(t, Scope(c, "", []string{"state"})))
	for _, g := range [][]string{nil, {}} {
		got := Scope(c, "", g)
		assert.NotNil(t, got)
		assert.Empty(t, got)
	}
}

// S5 / X10 (scope part): an instanced call sees the global fold plus its own
// instance only; nothing of the other instance, no `_instance`.
func TestVectorS5X10_ScopeNoLeak(t *testing.T) {
	c := hcContext(t, `[
		{"type":"state","_instance":"②","text":"Bonjour","secret":"only ②"},
		{"type":"state","_instance":"①","text":"Hello"},
		{"type":"data","kind":"glossary","_instance":"②","data":{"mot":"②"}}]`)
	one := Scope(c, "①", []string{"state", "glossary"})
	assert.Equal(t, []string{`state/state={"text":"Hello"}`}, hcSummary(t, one))
	hcAssertClean(t, one)
	two := Scope(c, "②", []string{"state", "glossary"})
	assert.Equal(t, []string{`state/state={"text":"Bonjour","secret":"only ②"}`, `data/glossary={"mot":"②"}`}, hcSummary(t, two))
	hcAssertClean(t, two)
	for _, m := range one {
		js := hcJSON(t, m.Object())
		assert.NotContains(t, js, "Bonjour")
		assert.NotContains(t, js, "②")
	}
	// A global call reads globals only.
	assert.Empty(t, Scope(c, "", []string{"state", "glossary"}))
}

func TestScope_InstanceViewMergesGlobal(t *testing.T) {
	c := hcContext(t, `[
		{"type":"input","input":{"message":"global","lang":"en"}},
		{"type":"input","_instance":"t1","input":{"message":"targeted"}},
		{"type":"input","_instance":"t2","input":{"message":"other","leak":true}}]`)
	assert.Equal(t, []string{`input/input={"message":"targeted","lang":"en"}`}, hcSummary(t, Scope(c, "t1", []string{"input"})))
	assert.Equal(t, []string{`input/input={"message":"global","lang":"en"}`}, hcSummary(t, Scope(c, "", []string{"input"})))
}

// X5 (scope part): the narrowed grant ["input","glossary"] never carries
// characters, although they are present.
func TestVectorX5_ScopeNarrowedGrant(t *testing.T) {
	c := hcContext(t, `[
		{"type":"input","input":{"message":"find the professor"}},
		{"type":"data","kind":"characters","data":{"prof_orlov":"Ilya Orlov, astronomer","prof_orlova":"Vera Orlova, botanist"}},
		{"type":"data","kind":"glossary","data":{"nebula":"a cloud"}}]`)
	msgs := Scope(c, "", []string{"input", "glossary"})
	assert.Equal(t, []string{`input/input={"message":"find the professor"}`, `data/glossary={"nebula":"a cloud"}`}, hcSummary(t, msgs))
	for _, m := range msgs {
		assert.NotEqual(t, "characters", m.Kind)
		assert.NotContains(t, hcJSON(t, m.Object()), "Orlov")
	}
}

const hcStateCtx = `[
	{"type":"data","kind":"glossary","data":{"g":1}},
	{"type":"state","state":{"search":{"query":"professor","hits":3},"found":["p1","p2"],"targets":["t"],"other":1},
	 "schema":{"type":"object"},"description":"cursor state"},
	{"type":"input","input":{"message":"m"}}]`

func TestScope_PathReNesting(t *testing.T) {
	c := hcContext(t, hcStateCtx)
	msgs := Scope(c, "", []string{"†state.found"})
	assert.Equal(t, []string{`state/state={"found":["p1","p2"]}`}, hcSummary(t, msgs))
	// Schema and description are kept.
	assert.Equal(t, `{"type":"object"}`, hcJSON(t, msgs[0].Schema))
	assert.Equal(t, "cursor state", msgs[0].Description)

	assert.Equal(t, []string{`state/state={"search":{"query":"professor"}}`},
		hcSummary(t, Scope(c, "", []string{"†state.search.query"})))
	assert.Equal(t, []string{`state/state={"found":{"-1":"p2"}}`},
		hcSummary(t, Scope(c, "", []string{"†state.found.-1"})), "numeric segments become keys as written")
	assert.Equal(t, []string{`state/state={"search":{"query":"professor","hits":3},"found":["p1","p2"],"targets":["t"],"other":1}`},
		hcSummary(t, Scope(c, "", []string{"†state"})), "a path without segments is the whole kind")
}

func TestScope_KindWinsOverPaths(t *testing.T) {
	c := hcContext(t, hcStateCtx)
	whole := `state/state={"search":{"query":"professor","hits":3},"found":["p1","p2"],"targets":["t"],"other":1}`
	assert.Equal(t, []string{whole}, hcSummary(t, Scope(c, "", []string{"†state.found", "state"})))
	assert.Equal(t, []string{whole}, hcSummary(t, Scope(c, "", []string{"state", "†state.search"})))
}

func TestScope_SeveralPathsMergeIntoOneMessage(t *testing.T) {
	c := hcContext(t, hcStateCtx)
	msgs := Scope(c, "", []string{"†state.targets", "†state.missing", "†state.search.query", "†state.found", "†state.targets"})
	assert.Equal(t, []string{`state/state={"targets":["t"],"search":{"query":"professor"},"found":["p1","p2"]}`}, hcSummary(t, msgs))
	// A path inside another granted path does not depend on the order.
	for _, g := range [][]string{{"†state.search.query", "†state.search"}, {"†state.search", "†state.search.query"}} {
		assert.Equal(t, []string{`state/state={"search":{"query":"professor","hits":3}}`}, hcSummary(t, Scope(c, "", g)))
	}
}

func TestScope_OrderByFirstAppearanceAndMissing(t *testing.T) {
	c := hcContext(t, hcStateCtx)
	msgs := Scope(c, "", []string{"input", "state", "characters", "†nothing.x", "glossary"})
	assert.Equal(t, []string{`data/glossary={"g":1}`, `state/state={"search":{"query":"professor","hits":3},"found":["p1","p2"],"targets":["t"],"other":1}`,
		`input/input={"message":"m"}`}, hcSummary(t, msgs))
	assert.Empty(t, Scope(c, "", []string{"characters", "†state.nope", "†glossary.g.deeper"}))
}

// Written values: writes after the first message are folded in, and the
// write history never leaks.
func TestScope_WrittenValuesAreFolded(t *testing.T) {
	c := hcContext(t, `[
		{"type":"state","state":{"found":[]}},
		{"type":"state","_path":"found","_outputMethod":"push","data":"p1","_call":{"toolId":"c1","tool":"note_evidence","turn":1,"index":0},"_date":"2026-01-05T10:00:00Z"},
		{"type":"state","_path":"pointer","_outputMethod":"set","data":"41:3.2.p4"},
		{"type":"data","kind":"data","_path":"user.status","_outputMethod":"set","data":"inactive"},
		{"type":"state","_path":"gone","_outputMethod":"set","data":1},
		{"type":"state","_path":"gone","_outputMethod":"erase"}]`)
	msgs := Scope(c, "", []string{"state", "†data.user"})
	assert.Equal(t, []string{`state/state={"found":["p1"],"pointer":"41:3.2.p4"}`, `data/data={"user":{"status":"inactive"}}`}, hcSummary(t, msgs))
	hcAssertClean(t, msgs)
	assert.Len(t, msgs, 2, "one message per kind")
}

// `data` names the generic kind "data" only, not every data kind.
func TestScope_DataMeansTheGenericKind(t *testing.T) {
	c := hcContext(t, `[
		{"type":"data","kind":"characters","data":{"a":1}},
		{"type":"data","data":{"user":{"name":"Alex"}}},
		{"type":"data","data":{"results":[1]}}]`)
	assert.Equal(t, []string{`data/data={"user":{"name":"Alex"},"results":[1]}`}, hcSummary(t, Scope(c, "", []string{"data"})))
}

func TestScope_SchemaOnlyKindAndInternal(t *testing.T) {
	c := hcContext(t, `[
		{"type":"state","schema":{"type":"object","properties":{"language":{"type":"string"}}}},
		{"type":"data","kind":"_grants","data":{"x":1}},
		{"type":"system","message":"rules"}]`)
	msgs := Scope(c, "", []string{"state", "_grants", "system", "†_grants.x"})
	require.Len(t, msgs, 1)
	assert.False(t, msgs[0].HasValue)
	assert.Nil(t, msgs[0].Value)
	assert.Contains(t, hcJSON(t, msgs[0].Schema), "language")
	// A path needs a value.
	assert.Empty(t, Scope(c, "", []string{"†state.language"}))
}

func TestScope_Advisor(t *testing.T) {
	c := hcContext(t, `[
		{"type":"input","input":{"m":1}},
		{"type":"advisor","id":"riskAnalyst","on":"request","persona":"Risk lens"},
		{"type":"advisor","id":"riskAnalyst","answer":{"type":"object","properties":{"score":{"type":"number"}},"required":["score"]}},
		{"type":"advisor","id":"legal","scopes":["input"],"weight":2},
		{"type":"state","state":{"s":1}}]`)
	msgs := Scope(c, "", []string{"state", "advisor", "input"})
	assert.Equal(t, []string{
		`input/input={"m":1}`,
		`advisor={"type":"advisor","id":"riskAnalyst","on":"request","role":"Risk lens","schema":{"type":"object","properties":{"score":{"type":"number"}},"required":["score"]},"isInstanced":false,"weight":1}`,
		`advisor={"type":"advisor","id":"legal","scopes":["input"],"isInstanced":false,"weight":2}`,
		`state/state={"s":1}`,
	}, hcSummary(t, msgs))
	assert.Empty(t, Scope(c, "", []string{"question", "plan"}), "later-group kinds without messages contribute nothing")
}

func TestScope_QuestionIsAnOrdinaryKind(t *testing.T) {
	c := hcContext(t, `[{"type":"data","kind":"question","_path":"whichProfessor","_outputMethod":"set","data":{"answer":"prof_orlova"}}]`)
	assert.Equal(t, []string{`data/question={"whichProfessor":{"answer":"prof_orlova"}}`}, hcSummary(t, Scope(c, "", []string{"question"})))
}

func TestScope_DoesNotAliasTheContext(t *testing.T) {
	c := hcContext(t, `[{"type":"state","state":{"a":{"b":1}}}]`)
	msgs := Scope(c, "", []string{"state"})
	msgs[0].Value.(*agentctx.Object).Set("a", "changed")
	assert.Equal(t, []string{`state/state={"a":{"b":1}}`}, hcSummary(t, Scope(c, "", []string{"state"})))
}

func TestCheckScope(t *testing.T) {
	for _, ok := range []string{"state", "input", "glossary", "data", "advisor", "question", "plan", "x1", "†state.found", "†data.user.status", "†state.items.-1", "†characters"} {
		assert.NoError(t, CheckScope(ok), ok)
	}
	bad := map[string]string{
		"":                 "empty",
		"_grants":          "internal",
		"†_grants.x":       "internal",
		"system":           "system",
		"†system.x":        "system",
		"1abc":             "neither",
		"state.found":      "neither",
		"st ate":           "neither",
		"†state..x":        "not a valid path",
		"†advisor.legal":   "as a whole",
		"†state.a || †b.c": "not a valid path",
		"†":                "not a valid path",
		"†state.a b":       "not a valid path",
	}
	for s, want := range bad {
		err := CheckScope(s)
		require.Error(t, err, s)
		assert.Contains(t, err.Error(), want, s)
	}
	assert.True(t, errors.Is(CheckScope("†state.a || †b.c"), agentctx.ErrExpressionUnsupported))
	assert.True(t, errors.Is(CheckScope("†state..x"), agentctx.ErrPathInvalid))
}

func TestNewScoped_CopiesAndKinds(t *testing.T) {
	c := hcContext(t, `[{"type":"state","state":{"userId":"u_42","tags":["a"]}},{"type":"data","kind":"glossary","data":{"x":"<b>"}}]`)
	msgs := Scope(c, "", []string{"state", "glossary"})
	sc := NewScoped(msgs)

	// The input slice and returned copies can be changed without effect.
	msgs[0].Value.(*agentctx.Object).Set("userId", "mutated")
	got := sc.Messages()
	got[0].Value.(*agentctx.Object).Set("tags", nil)
	got[1].Kind = "changed"
	assert.Equal(t, []string{`state/state={"userId":"u_42","tags":["a"]}`, `data/glossary={"x":"<b>"}`}, hcSummary(t, sc.Messages()))

	raw, ok := sc.Kind("glossary")
	require.True(t, ok)
	assert.Equal(t, `{"x":"<b>"}`, string(raw), "compact JSON, no HTML escaping")
	raw[0] = 'X'
	raw, _ = sc.Kind("glossary")
	assert.Equal(t, `{"x":"<b>"}`, string(raw))
	_, ok = sc.Kind("characters")
	assert.False(t, ok)

	empty := NewScoped(nil)
	assert.Empty(t, empty.Messages())
}

// §6.2: the preview of `characters` shows its size and keys.
func TestPreview(t *testing.T) {
	chars := `{"prof_orlov":"Ilya Orlov, astronomer","prof_orlova":"Vera Orlova, botanist"}`
	c := hcContext(t, `[
		{"type":"input","input":{"message":"m"}},
		{"type":"data","kind":"characters","data":`+chars+`},
		{"type":"state","_instance":"t1","state":{"found":["p"],"hidden":1}},
		{"type":"advisor","id":"editGate","on":"request"}]`)
	got := Preview(c, "t1", []string{"characters", "glossary", "†state.found", "advisor", "_grants"})
	require.Len(t, got, 5)
	assert.Equal(t, ScopePreview{Scope: "characters", Bytes: len(chars), Keys: []string{"prof_orlov", "prof_orlova"}}, got[0])
	assert.Equal(t, ScopePreview{Scope: "glossary", Bytes: 0, Keys: []string{}}, got[1])
	assert.Equal(t, ScopePreview{Scope: "†state.found", Bytes: len(`{"found":["p"]}`), Keys: []string{"found"}}, got[2])
	assert.Equal(t, "advisor", got[3].Scope)
	assert.Equal(t, []string{"editGate"}, got[3].Keys)
	assert.Greater(t, got[3].Bytes, len(`"editGate"`))
	assert.Equal(t, ScopePreview{Scope: "_grants", Bytes: 0, Keys: []string{}}, got[4])
	// Another instance's state is never previewed.
	assert.Equal(t, 0, Preview(c, "", []string{"state"})[0].Bytes)
}
