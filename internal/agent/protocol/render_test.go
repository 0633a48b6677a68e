package protocol

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
)

// The -update flag rewrites the golden files under testdata/render. It is
// registered only when no other test file of the package has done so.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files")
	}
}

func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// golden compares got with testdata/render/<name>, rewriting it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "render", name)
	if updating() {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "golden file missing: run go test -run %s -update", t.Name())
	require.Equal(t, string(want), got)
}

// ctx parses context messages, one JSON object each.
func ctx(t *testing.T, msgs ...string) agentctx.Context {
	t.Helper()
	c, err := agentctx.ParseContext([]byte("[" + strings.Join(msgs, ",") + "]"))
	require.NoError(t, err)
	return c
}

// write builds the message of an output-path write.
func write(t *testing.T, path string, method agentctx.Method, instance string, value any, turn, index int) agentctx.Message {
	t.Helper()
	p, err := agentctx.ParseOutputPath(path)
	require.NoError(t, err)
	m, err := agentctx.Write{Path: p, Method: method, Instance: instance, Value: value,
		Call: agentctx.CallRef{ToolID: fmt.Sprintf("run42_call_%d_%d", turn, index), Tool: "t", Turn: turn, Index: index},
		Date: time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)}.Message()
	require.NoError(t, err)
	return m
}

func decode(t *testing.T, s string) any {
	t.Helper()
	v, err := agentctx.Decode([]byte(s))
	require.NoError(t, err)
	return v
}

func obj(t *testing.T, s string) *agentctx.Object {
	t.Helper()
	o, ok := decode(t, s).(*agentctx.Object)
	require.True(t, ok, "not an object: %s", s)
	return o
}

// comp builds a composition by hand (no Compose).
func comp(format string, runStart, turn int, tools []*Tool, advisors []*ActiveAdvisor, instances []string) *Composition {
	return &Composition{
		Agent:     &Agent{Key: "a", ErrorWindow: 20, UnpathedResults: "log", ReasoningField: DefaultReasoningField},
		Turn:      TurnInfo{Turn: turn, MaxTurns: 16, RunStart: runStart},
		Tools:     tools,
		Advisors:  advisors,
		Instances: instances,
		Format:    format,
		WireJSON:  []byte(`{"type":"object"}`),
	}
}

// TestVectorD1_OneBlockPerFold: two `data kind:user` messages fold into one
// block with the value in insertion order and the schema of the first (D1).
func TestVectorD1_OneBlockPerFold(t *testing.T) {
	c := ctx(t,
		`{"type":"system","message":"You manage user records."}`,
		`{"type":"data","kind":"user","data":{"name":"John Doe"},"schema":{"type":"object","properties":{"name":{"type":"string"}}}}`,
		`{"type":"data","kind":"user","data":{"age":30}}`,
		`{"type":"input","input":{"message":"How old is John?"}}`,
	)
	co := comp(FormatJSONSchema, len(c), 1, nil, nil, nil)
	system, user := Render(co, c)
	golden(t, "d1.txt", "=== system\n"+system+"\n=== user\n"+user+"\n")

	all := system + "\n" + user
	require.Equal(t, 1, strings.Count(all, "## ¶user"), "exactly one block for the user kind")
	require.Contains(t, system, "## ¶user\n{\"name\":\"John Doe\",\"age\":30}\nschema: {\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}}")
	require.True(t, strings.HasPrefix(user, "## ¶input\n"+inputLine+"\n{\"message\":\"How old is John?\"}"))
}

// TestVectorO1_RenderHidesWriteFields: after a write the fold shows the new
// value and none of the hidden write fields; the written kind moves from the
// frozen to the derived tier (O1 render part).
func TestVectorO1_RenderHidesWriteFields(t *testing.T) {
	c := ctx(t,
		`{"type":"system","message":"Keep user records current."}`,
		`{"type":"data","data":{"user":{"name":"Alex","status":"active"}}}`,
		`{"type":"input","input":{"message":"Deactivate Alex."}}`,
	)
	co := comp(FormatJSONSchema, len(c), 1, nil, nil, nil)
	system, _ := Render(co, c)
	require.Contains(t, system, "## ¶data\n{\"user\":{\"name\":\"Alex\",\"status\":\"active\"}}", "frozen before the write")

	c = append(c, write(t, "†data.user.status", agentctx.MethodSet, "", "inactive", 1, 0))
	co.Turn.Turn = 2
	system, user := Render(co, c)
	require.NotContains(t, system, "¶data", "a written kind leaves the frozen tier")
	require.Contains(t, user, "## ¶data\n{\"user\":{\"name\":\"Alex\",\"status\":\"inactive\"}}")
	for _, hidden := range []string{"_call", "_date", "_outputMethod", "_path", "run42_call", "2026-01-05", "user.status"} {
		require.NotContains(t, system+user, hidden)
	}
}

// TestRenderTiers checks the order of the tiers and of the blocks inside
// them, on a context holding every kind of content.
func TestRenderTiers(t *testing.T) {
	c := ctx(t,
		`{"type":"system","message":"You edit a book."}`,
		`{"type":"text","text":"House style: British spelling."}`,
		`{"type":"data","kind":"glossary","description":"Terms of the book","data":{"tardis":"a time machine"}}`,
		`{"type":"data","kind":"_grants","data":{"secret":"never rendered"}}`,
		// chat memory of an earlier run
		`{"type":"data","kind":"conversation","_path":"","_outputMethod":"push","data":{"run":1,"answer":"Done."},"_date":"2026-01-04T09:00:00Z"}`,
		`{"type":"data","kind":"notes","_path":"last","_outputMethod":"set","data":"chapter 2"}`,
		`{"type":"error","data":{"turn":1,"call":{"index":0,"_tool":"find"},"code":"activity_failed","message":"find failed."}}`,
		`{"type":"advice","id":"gate","turn":2,"opinion":{"thought":"old run"},"weights":{"find":1}}`,
		`{"type":"state","state":{"chapter":3}}`,
		`{"type":"input","input":{"message":"Fix chapter 3."}}`,
	)
	start := len(c)
	c = append(c,
		write(t, "†state.found", agentctx.MethodPush, "", "p1", 1, 0),
		write(t, "†data.results", agentctx.MethodPush, "", decode(t, `{"turn":1,"tool":"count","result":3}`), 1, 1),
	)
	c = append(c, ctx(t,
		`{"type":"error","data":{"turn":1,"call":{"index":2,"_tool":"replace_text"},"code":"guard_denied","message":"advisor mean 12 < 30 for replace_text"}}`,
		`{"type":"advice","id":"gate","turn":1,"opinion":{"thought":"Keep reading."},"weights":{"find":80,"replace_text":12}}`,
	)...)
	tools := []*Tool{
		{Name: "find", Kind: KindExplicit, Activity: "find"},
		{Name: "count", Kind: KindExplicit, Activity: "count"},
		{Name: "replace_text", Kind: KindExplicit, Activity: "replace_text", OutputPath: "†state.edits", OutputMethod: agentctx.MethodPush},
	}
	advisors := []*ActiveAdvisor{{Advisor: agentctx.Advisor{ID: "gate", On: "request", Role: "Judge the evidence.", Weight: 1}, Activation: Required}}
	co := comp(FormatRespondTool, start, 2, tools, advisors, nil)
	co.Turn.Notes = []string{"turn 2 of 3; the next turn is the last and accepts only `output`"}
	system, user := Render(co, c)
	golden(t, "tiers.txt", "=== system\n"+system+"\n=== user\n"+user+"\n")

	// system: system/text messages, rules, tools, advisors, frozen data.
	order(t, system, "You edit a book.", "House style", "# Solution protocol", "# Tools", "# Advisors", "# Context\n\n## ¶glossary\nTerms of the book\n{")
	require.NotContains(t, system, "¶input")
	require.NotContains(t, system+user, "never rendered", "internal kinds never render")
	// user: input → errors → conversation → results → state → written data → advice → notes.
	order(t, user, "## ¶input", "## errors", "## ¶conversation", "## †data.results", "## ¶state", "## ¶notes",
		"## advisor entries this turn", "## advice of turn 1", "turn 2 of 3")
	require.True(t, strings.HasPrefix(user, "## ¶input\n"))
	require.Contains(t, user, "## ¶state\n{\"chapter\":3,\"found\":[\"p1\"]}")
	require.Contains(t, user, "## †data.results\n{\"turn\":1,\"tool\":\"count\",\"result\":3}")
	require.NotContains(t, user, "## ¶data\n", "a data fold holding only the results log has no block of its own")
	require.Contains(t, user, "gate: {\"thought\":\"Keep reading.\"} weights {\"find\":80,\"replace_text\":12}")
	require.NotContains(t, user, "old run", "advice of an earlier run is not shown")
	require.True(t, strings.HasSuffix(user, co.Turn.Notes[0]), "notes come last, verbatim")
}

// order asserts that the parts occur in s in this order.
func order(t *testing.T, s string, parts ...string) {
	t.Helper()
	at := -1
	for _, p := range parts {
		i := strings.Index(s, p)
		require.GreaterOrEqual(t, i, 0, "missing %q", p)
		require.Greater(t, i, at, "%q out of order", p)
		at = i
	}
}

// TestRenderErrorWindow: only the last ErrorWindow errors are rendered.
func TestRenderErrorWindow(t *testing.T) {
	var msgs []string
	for i := 1; i <= 25; i++ {
		msgs = append(msgs, fmt.Sprintf(`{"type":"error","data":{"turn":%d,"call":{"index":0,"_tool":"t","_instance":"①"},"code":"activity_failed","message":"failure %d\nsecond line"}}`, i, i))
	}
	c := ctx(t, msgs...)
	co := comp(FormatJSONSchema, 0, 26, nil, nil, nil)
	_, user := Render(co, c)
	require.Contains(t, user, "## errors (latest 20 of 25)\nturn 6, call 0 t @①: activity_failed: failure 6 second line\n")
	require.NotContains(t, user, "failure 5 ")
	require.Equal(t, 20, strings.Count(user, "activity_failed"))
	require.True(t, strings.HasSuffix(user, "turn 25, call 0 t @①: activity_failed: failure 25 second line"))

	co.Agent.ErrorWindow = 3
	_, user = Render(co, c)
	require.Equal(t, 3, strings.Count(user, "activity_failed"))
	require.Contains(t, user, "## errors (latest 3 of 25)\nturn 23,")

	// An error without a call.
	c = ctx(t, `{"type":"error","data":{"turn":2,"code":"solution_unparsable","message":"No JSON."}}`)
	_, user = Render(co, c)
	require.Equal(t, "## errors\nturn 2: solution_unparsable: No JSON.", user)
}

// TestRenderInstanceBlocks: instances render as separate blocks after the
// global one, and the rules text carries the instance rule.
func TestRenderInstanceBlocks(t *testing.T) {
	c := ctx(t,
		`{"type":"input","_instance":"①","input":{"comment":"Great post!"}}`,
		`{"type":"input","input":{"task":"Moderate the comments."}}`,
		`{"type":"input","_instance":"②","input":{"comment":"Thanks, helpful."}}`,
		`{"type":"state","_instance":"②","state":{"seen":true}}`,
	)
	co := comp(FormatJSONSchema, len(c), 1, []*Tool{{Name: "moderate", Kind: KindExplicit}}, nil, []string{"①", "②"})
	system, user := Render(co, c)
	require.Contains(t, system, "A call with _instance X reads and writes X only")
	order(t, user,
		"## ¶input\n"+inputLine+"\n{\"task\":\"Moderate the comments.\"}",
		"## ¶input @①\n"+inputLine+"\n{\"comment\":\"Great post!\"}",
		"## ¶input @②\n"+inputLine+"\n{\"comment\":\"Thanks, helpful.\"}",
		"## ¶state @②\n{\"seen\":true}")
	require.Equal(t, 3, strings.Count(user, inputLine))

	co.Instances = nil
	system, _ = Render(co, c[1:2])
	require.NotContains(t, system, "_instance X")
}

// TestRenderAdvisorDeclarations: declarations present at run start are in
// the frozen system message, with role, soft scopes and a weight ≠ 1;
// an advisor declared during the run is in the derived tier.
func TestRenderAdvisorDeclarations(t *testing.T) {
	c := ctx(t,
		`{"type":"advisor","id":"riskAnalyst","on":"request","persona":"Risk lens"}`,
		`{"type":"input","input":{"message":"Ship it?"}}`,
	)
	start := len(c)
	c = append(c, ctx(t, `{"type":"advisor","id":"late","on":"finish","role":"Checks the final answer."}`)...)
	advisors := []*ActiveAdvisor{
		{Advisor: agentctx.Advisor{ID: "riskAnalyst", On: "request", Role: "Risk lens",
			Scopes: []string{"input", "†state.found"}, Weight: 2}, Activation: Required},
		{Advisor: agentctx.Advisor{ID: "styleKeeper", On: "start", IsInstanced: true, Weight: 1}, Activation: Offered},
		{Advisor: agentctx.Advisor{ID: "legal", Role: "Copyright law.", Weight: 1}, Activation: Absent},
		{Advisor: agentctx.Advisor{ID: "late", On: "finish", Role: "Checks the final answer.", Weight: 1},
			Activation: Offered, RequiredOnOutput: true},
	}
	tools := []*Tool{{Name: "deploy", Kind: KindLatent, HasOutput: true}, {Name: ConsultAdvisor, Kind: KindExplicit}}
	co := comp(FormatJSONSchema, start, 1, tools, advisors, []string{"t1"})
	system, user := Render(co, c)
	require.Contains(t, system, "# Advisors\n\n## advisor riskAnalyst\non: request (an entry in every solution)\nrole: Risk lens\n"+
		"prioritise: input, †state.found; you may still use everything\nweight: 2\n\n"+
		"## advisor styleKeeper\non: start (an entry on the first turn of a chat, optional later)\ninstanced: one entry per live instance, with _instance\n\n"+
		"## advisor legal\non demand: not part of the solution; ask it with ConsultAdvisor\nrole: Copyright law.")
	require.NotContains(t, system, "weight: 1")
	require.NotContains(t, system, "advisor late")
	require.Contains(t, system, "- advisors: first,")
	require.Contains(t, system, `"{\"search\":80,\"edit\":10}"`, "the weight-string format is explained")
	require.Contains(t, system, "consulted with the ConsultAdvisor tool")
	require.Contains(t, user, "## advisor late (declared during this run)\non: finish (an entry whenever output is not null)\nrole: Checks the final answer.")
	require.Contains(t, user, "## advisor entries this turn\nrequired: riskAnalyst\nrequired when output is not null: late\noptional: styleKeeper (one entry per instance)")
}

// TestRenderAdvicePreviousTurnOnly: only the advice of the previous turn of
// this run is shown.
func TestRenderAdvicePreviousTurnOnly(t *testing.T) {
	c := ctx(t,
		`{"type":"advice","id":"gate","turn":2,"opinion":{"thought":"earlier run"},"weights":{"a":1}}`,
		`{"type":"input","input":{"q":"x"}}`,
	)
	start := len(c)
	c = append(c, ctx(t,
		`{"type":"advice","id":"gate","turn":1,"opinion":{"thought":"turn one"},"weights":{"a":10}}`,
		`{"type":"advice","id":"gate","instance":"①","turn":2,"opinion":{"thought":"turn two"},"weights":{"a":90,"b":5}}`,
		`{"type":"advice","id":"legal","turn":2,"opinion":{"thought":"consulted"},"weights":{},"rawCalls":"not json"}`,
	)...)
	co := comp(FormatJSONSchema, start, 3, nil, nil, nil)
	_, user := Render(co, c)
	require.Contains(t, user, "## advice of turn 2\ngate @①: {\"thought\":\"turn two\"} weights {\"a\":90,\"b\":5}\n"+
		"legal: {\"thought\":\"consulted\"} weights {} calls (unparsed) \"not json\"")
	require.NotContains(t, user, "turn one")
	require.NotContains(t, user, "earlier run")

	co.Turn.Turn = 1
	_, user = Render(co, c)
	require.NotContains(t, user, "## advice")
}

// TestRenderNotes: the limit notice and the repair note close the derived
// tier verbatim, in order (§3 repair note, LM3 notice).
func TestRenderNotes(t *testing.T) {
	c := ctx(t, `{"type":"input","input":{"q":"x"}}`)
	co := comp(FormatJSONSchema, len(c), 2, nil, nil, nil)
	co.Turn.Notes = []string{
		"turn 2 of 3; the next turn is the last and accepts only `output`",
		"Your previous reply was not a valid solution:\n/calls/0: missing _tool\nReply with one complete solution.",
	}
	system, user := Render(co, c)
	require.True(t, strings.HasSuffix(user, "\n\n"+co.Turn.Notes[0]+"\n\n"+co.Turn.Notes[1]))
	require.NotContains(t, system, "turn 2 of 3")
}

// TestRenderToolFacts: execution kind, provisioned-scope hint, prescribed
// output path and method, unpathed results.
func TestRenderToolFacts(t *testing.T) {
	tools := []*Tool{
		{Name: "sendMessage", Kind: KindLatent, HasOutput: true, HasScopes: true, Provisioned: []string{"input"}},
		{Name: "logEvent", Kind: KindExplicit, HasScopes: true, Requested: []string{"state", "input"}},
		{Name: "track", Kind: KindExplicit, OutputPath: "†state.log", OutputMethod: agentctx.MethodPush},
		{Name: "ask_user", Kind: KindExplicit, FileKind: "frontend", PathChosen: true,
			MethodChoices: []agentctx.Method{agentctx.MethodSet, agentctx.MethodPush}},
		{Name: "summarize", Kind: KindDelegated, Delegate: "SummarizerAgent", Provisioned: []string{"state"}, OutputPath: "†state.summary"},
		{Name: "quick", Kind: KindDelegated, Delegate: Anonymous},
	}
	c := ctx(t, `{"type":"input","input":{"q":"x"}}`)
	co := comp(FormatPrompt, len(c), 1, tools, nil, nil)
	system, _ := Render(co, c)
	require.Contains(t, system, "# Tools\n"+
		"- sendMessage: latent: no code runs; you perform it and write the result in _output; rely on: input\n"+
		"- logEvent: explicit: runs code; _scopes may ask for more context (needs approval); result → †data.results\n"+
		"- track: explicit: runs code; result → †state.log (push)\n"+
		"- ask_user: explicit: answered by the user; result → the _outputPath you choose (_outputMethod: set or push)\n"+
		"- summarize: delegated to agent SummarizerAgent (a sub-run with its own context); it receives: state; result → †state.summary (set)\n"+
		"- quick: delegated to an anonymous sub-run without tools; result → †data.results\n")
	require.Contains(t, system, "Latent tools run no code")
	require.Contains(t, system, "Output paths:")
	require.Contains(t, system, "`_scopes` asks for parts of the context")
	require.Contains(t, system, "a parameter whose whole value is a path †kind.a.b")
	require.True(t, strings.HasSuffix(system, "\n\n"+promptSchemaLead+`{"type":"object"}`), "prompt mode prints the wire schema last")

	co.Agent.UnpathedResults = "drop"
	system, _ = Render(co, c)
	require.Contains(t, system, "- logEvent: explicit: runs code; _scopes may ask for more context (needs approval); result not shown\n")
}

// TestRenderRulesText: the rules text names the solution fields in order,
// the meaning of a null output, the reasoning field and the reference syntax.
func TestRenderRulesText(t *testing.T) {
	co := comp(FormatRespondTool, 0, 1, []*Tool{{Name: "t", Kind: KindExplicit}}, nil, nil)
	co.Agent.ReasoningField = "_why"
	system, user := Render(co, nil)
	require.Contains(t, system, "a JSON object with the fields calls and output, in this order. Return it as the arguments of one call of the respond tool.")
	require.Contains(t, system, "`_why` says why, before any value")
	require.Contains(t, system, "- output: null means continue")
	require.NotContains(t, system, "- advisors:")
	require.NotContains(t, system, "Reply with one JSON object matching", "the schema is printed in prompt mode only")
	require.Equal(t, emptyUser, user, "an empty user message is never sent")

	co.Agent.ReasoningOff = true
	system, _ = Render(co, nil)
	require.NotContains(t, system, "says why")
}

// TestRenderFrozenStable: appending messages during the run (writes, errors,
// advice, new kinds) never changes the system message nor the frozen input
// prefix of the user message.
func TestRenderFrozenStable(t *testing.T) {
	c := ctx(t,
		`{"type":"system","message":"Prompt."}`,
		`{"type":"data","kind":"glossary","data":{"a":"b"}}`,
		`{"type":"input","input":{"q":"x"}}`,
	)
	tools := []*Tool{{Name: "delay", Kind: KindLatent, HasOutput: true, OutputPath: "†state.last"}}
	co := comp(FormatJSONSchema, len(c), 1, tools, nil, nil)
	sys1, user1 := Render(co, c)

	c2 := append(c[:len(c):len(c)],
		write(t, "†state.last", agentctx.MethodSet, "", decode(t, `{"ok":true}`), 1, 0),
		write(t, "†report.text", agentctx.MethodSet, "", "draft", 1, 1))
	c2 = append(c2, ctx(t, `{"type":"error","data":{"turn":1,"code":"empty_solution","message":"Empty."}}`)...)
	co2 := *co
	co2.Turn.Turn = 2
	sys2, user2 := Render(&co2, c2)
	require.Equal(t, sys1, sys2)
	require.Equal(t, user1, user2[:len(user1)])
	require.Contains(t, user2[len(user1):], "## ¶report\n{\"text\":\"draft\"}")

}

// TestRenderErasedKind: a kind whose root was erased does not exist and
// renders no block; one with only a schema renders its schema.
func TestRenderErasedKind(t *testing.T) {
	c := ctx(t,
		`{"type":"input","input":{"q":"x"}}`,
		`{"type":"state","schema":{"type":"object","properties":{"language":{"type":"string"}}}}`,
	)
	start := len(c)
	c = append(c,
		write(t, "†draft.text", agentctx.MethodSet, "", "v1", 1, 0),
		write(t, "†draft", agentctx.MethodErase, "", nil, 1, 1))
	co := comp(FormatJSONSchema, start, 2, nil, nil, nil)
	_, user := Render(co, c)
	require.NotContains(t, user, "¶draft")
	require.Contains(t, user, "## ¶state\nschema: {\"type\":\"object\",\"properties\":{\"language\":{\"type\":\"string\"}}}")
}
