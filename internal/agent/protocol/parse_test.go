package protocol

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
)

func paParse(t *testing.T, comp *Composition, reply string) *ParseResult {
	t.Helper()
	pr := Parse(comp, []byte(reply))
	require.NotNil(t, pr)
	return pr
}

func paCodes(errs []CallError) []Code {
	var out []Code
	for _, e := range errs {
		out = append(out, e.Code)
	}
	return out
}

func paWarnCodes(ws []Warning) []Code {
	var out []Code
	for _, w := range ws {
		out = append(out, w.Code)
	}
	return out
}

// A parser test bench: T1's agent plus tools exercising every meta rule.
func benchComp(t *testing.T, c agentctx.Context, ti TurnInfo) *Composition {
	a := paAgent(t, &Agent{
		OutputSchema: paObj(t, `{"type":"object","properties":{"summary":{"type":"string"}},"required":["summary"]}`),
		Tools: []ToolDecl{
			paTool(t, "greetUser", "backend", `{"type":"object","properties":{"userName":{"type":"string"},"times":{"type":"integer"}},"required":["userName"]}`),
			paTool(t, "logEvent", "backend", `{"type":"object","properties":{"_scopes":{"type":"array","items":{"enum":["state","input"]},"provisioned":["glossary"]},"eventName":{"type":"string"}},"required":["eventName"]}`),
			paTool(t, "fixed", "backend", `{"type":"object","properties":{"_outputPath":{"const":"†state.out"},"_outputMethod":{"const":"push"},"_scopes":{"const":["state"]}}}`),
			paTool(t, "ask", "frontend", `{"type":"object","properties":{"_outputPath":{"type":"string","pattern":"^†question\\."},"_outputMethod":{"enum":["set","push"]}}}`),
			paTool(t, "draft", "latent", `{"type":"object","properties":{"_output":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}}`),
			paTool(t, "guess", "", `{"type":"object","properties":{"x":{"type":"string"}}}`),
		},
	})
	if ti.Turn == 0 {
		ti.Turn = 1
	}
	return paCompose(t, a, c, ti, paReg())
}

// Garbage is unparsable; a non-array `calls` is an invalid envelope.
func TestParseEnvelopeFailures(t *testing.T) {
	comp := benchComp(t, nil, TurnInfo{})
	cases := []struct {
		reply string
		code  Code
		first string
	}{
		{`not json at all`, CodeSolutionUnparsable, "(root): the reply is not one JSON value"},
		{`   `, CodeSolutionUnparsable, "(root): the reply holds no JSON"},
		{`{"calls":[]} trailing`, CodeSolutionUnparsable, "(root)"},
		{`[1,2]`, CodeSolutionInvalid, "(root): the solution must be a JSON object, got array"},
		{`{"calls":{"_tool":"greetUser"},"output":null}`, CodeSolutionInvalid, "/calls: must be an array, got object"},
		{`{"output":null}`, CodeSolutionInvalid, "/calls: is required"},
		{`{"calls":[]}`, CodeSolutionInvalid, "/output: is required"},
		{`{"calls":[],"output":{"summary":3}}`, CodeSolutionInvalid, "/output/summary: expected string, got integer"},
		{`{"calls":[],"output":{}}`, CodeSolutionInvalid, "/output/summary: is required"},
	}
	for _, tc := range cases {
		pr := paParse(t, comp, tc.reply)
		require.Equal(t, tc.code, pr.RepairCode, tc.reply)
		require.NotEmpty(t, pr.Repair, tc.reply)
		require.Contains(t, pr.Repair[0], tc.first, tc.reply)
		require.Nil(t, pr.Solution, tc.reply)
	}
}

// One invalid call among valid ones is rejected on its own (§3 step 4).
func TestParseOneInvalidCall(t *testing.T) {
	comp := benchComp(t, nil, TurnInfo{})
	pr := paParse(t, comp, `{"calls":[
		{"_tool":"greetUser","_reasoningForCall":"first","userName":"Ann"},
		{"_tool":"greetUser","_reasoningForCall":"second","userName":42,"times":"x"},
		{"_tool":"greetUser","userName":"Bob","times":null}],"output":null}`)
	require.Empty(t, pr.Repair)
	require.Len(t, pr.Solution.Calls, 2)
	require.Equal(t, []int{0, 2}, []int{pr.Solution.Calls[0].Index, pr.Solution.Calls[1].Index})
	require.Equal(t, "first", pr.Solution.Calls[0].Reasoning)
	require.Equal(t, `{"userName":"Bob"}`, paJSON(t, pr.Solution.Calls[1].Args))
	require.Len(t, pr.CallErrors, 1)
	e := pr.CallErrors[0]
	require.Equal(t, CodeCallInvalid, e.Code)
	require.Equal(t, 1, e.Index)
	require.Equal(t, "greetUser", e.Tool)
	require.Contains(t, e.Message, "/calls/1/userName")
	require.Equal(t, []Problem{
		{Pointer: "/calls/1/userName", Message: "expected string, got integer"},
		{Pointer: "/calls/1/times", Message: "expected integer, got string"},
	}, e.Details)
	require.Len(t, pr.Solution.Normalised.(*agentctx.Object).Keys(), 2)
	calls, _ := pr.Solution.Normalised.(*agentctx.Object).Get("calls")
	require.Len(t, calls, 3, "the normalised solution keeps every call")
}

// Semantic checks per call (§3 step 5), each code on its own call.
func TestParseCallCodes(t *testing.T) {
	comp := benchComp(t, nil, TurnInfo{})
	cases := []struct {
		call string
		code Code
	}{
		{`"not an object"`, CodeCallInvalid},
		{`{"userName":"x"}`, CodeUnknownTool},
		{`{"_tool":"nope"}`, CodeUnknownTool},
		{`{"_tool":"greetUser","_reasoningForCall":"a","_why":"b","userName":"x"}`, CodeCallInvalid},
		{`{"_tool":"greetUser","_reasoningForCall":7,"userName":"x"}`, CodeCallInvalid},
		{`{"_tool":"greetUser","_instance":"t1","userName":"x"}`, CodeInstanceUnknown},
		{`{"_tool":"greetUser","_scopes":["state"],"userName":"x"}`, CodeScopeNotAllowed},
		{`{"_tool":"logEvent","_scopes":"state","eventName":"x"}`, CodeCallInvalid},
		{`{"_tool":"fixed","_outputPath":"†state.other"}`, CodeMetaConstMismatch},
		{`{"_tool":"fixed","_outputMethod":"set"}`, CodeMetaConstMismatch},
		{`{"_tool":"fixed","_scopes":["input"]}`, CodeScopeNotAllowed},
		{`{"_tool":"greetUser","_activity":"other","userName":"x"}`, CodeMetaConstMismatch},
		{`{"_tool":"ask","_outputPath":"†input.x"}`, CodePathNotWritable},
		{`{"_tool":"ask","_outputPath":"†state.x"}`, CodePathNotWritable},
		{`{"_tool":"ask","_outputPath":"†question.a || †question.b"}`, CodeExpressionUnsupported},
		{`{"_tool":"ask","_outputMethod":"assign"}`, CodeMethodUnsupported},
		{`{"_tool":"ask","_outputMethod":"merge"}`, CodeMethodUnsupported},
		{`{"_tool":"greetUser","userName":"†input.a && †state.b"}`, CodeExpressionUnsupported},
		{`{"_tool":"draft"}`, CodeLatentWithoutOutput},
		{`{"_tool":"greetUser","_instance":null,"userName":"x","_outputPath":null}`, ""},
		{`{"_tool":"draft","_output":null}`, CodeLatentWithoutOutput},
		{`{"_tool":"draft","_output":{"text":1}}`, CodeCallInvalid},
		{`{"_tool":"guess","x":"y"}`, CodeLatentWithoutOutput},
	}
	for _, tc := range cases {
		pr := paParse(t, comp, `{"calls":[`+tc.call+`],"output":null}`)
		require.Empty(t, pr.Repair, tc.call)
		if tc.code == "" {
			require.Empty(t, pr.CallErrors, tc.call)
			require.Len(t, pr.Solution.Calls, 1, tc.call)
			continue
		}
		require.Empty(t, pr.Solution.Calls, tc.call)
		require.Equal(t, []Code{tc.code}, paCodes(pr.CallErrors), tc.call)
		require.NotEmpty(t, pr.CallErrors[0].Message, tc.call)
	}
}

// Consts are injected, echoes equal to them accepted, model-chosen paths and
// methods taken, references accepted in place of any type, `_why` read as
// the reasoning.
func TestParseInjectionAndAliases(t *testing.T) {
	comp := benchComp(t, nil, TurnInfo{})
	pr := paParse(t, comp, `{"calls":[
		{"_tool":"fixed","_outputPath":"†state.out","_outputMethod":"push","_scopes":["state"]},
		{"_tool":"ask","_why":"need it","_outputPath":"†question.which","_outputMethod":"push"},
		{"_tool":"greetUser","userName":"†state.name","times":"†state.count"},
		{"_tool":"draft","_output":{"text":"Hi"},"_outputPath":null},
		{"_tool":"logEvent","_scopes":["input","glossary","input"],"eventName":"login","extra":1}],"output":null}`)
	require.Empty(t, pr.CallErrors)
	c := pr.Solution.Calls
	require.Len(t, c, 5)
	require.Equal(t, "†state.out", c[0].OutputPath)
	require.Equal(t, agentctx.MethodPush, c[0].OutputMethod)
	require.Nil(t, c[0].Scopes, "echoed provisioned scopes are not requests")
	require.Equal(t, "need it", c[1].Reasoning)
	require.Equal(t, "†question.which", c[1].OutputPath)
	require.Equal(t, agentctx.MethodPush, c[1].OutputMethod)
	require.Equal(t, `{"userName":"†state.name","times":"†state.count"}`, paJSON(t, c[2].Args))
	require.True(t, c[3].HasOutput)
	require.Equal(t, `{"text":"Hi"}`, paJSON(t, c[3].Output))
	require.Equal(t, "", c[3].OutputPath)
	calls0, _ := pr.Solution.Normalised.(*agentctx.Object).Get("calls")
	require.Equal(t, `{"_tool":"draft","_output":{"text":"Hi"}}`, paJSON(t, calls0.([]any)[3]))
	require.Equal(t, []string{"input"}, c[4].Scopes)
	require.Equal(t, `{"eventName":"login","extra":1}`, paJSON(t, c[4].Args))
	calls, _ := pr.Solution.Normalised.(*agentctx.Object).Get("calls")
	require.Equal(t, `{"_tool":"ask","_reasoningForCall":"need it","_outputPath":"†question.which","_outputMethod":"push"}`, paJSON(t, calls.([]any)[1]))

	// A dispatch-time check of resolved values (no references allowed).
	probs := comp.Tool("greetUser").CheckArgs(paObj(t, `{"userName":"Ann","times":"†state.count"}`), "/args", false)
	require.Equal(t, []Problem{{Pointer: "/args/times", Message: "expected integer, got string"}}, probs)
}

// An agent emitting `_why` accepts both names from the model.
func TestParseConfiguredWhy(t *testing.T) {
	a := paAgent(t, &Agent{ReasoningField: "_why", Tools: []ToolDecl{paTool(t, "ping", "backend", `{"type":"object"}`)}})
	comp := paCompose(t, a, nil, TurnInfo{}, paReg())
	pr := paParse(t, comp, `{"calls":[{"_tool":"ping","_why":"a"},{"_tool":"ping","_reasoningForCall":"b"}],"output":null}`)
	require.Empty(t, pr.CallErrors)
	require.Equal(t, "a", pr.Solution.Calls[0].Reasoning)
	require.Equal(t, "b", pr.Solution.Calls[1].Reasoning)
}

// Empty calls with a null output ask for a repair (empty_solution); output
// alone ends the run.
func TestParseEmptySolutionAndOutput(t *testing.T) {
	comp := benchComp(t, nil, TurnInfo{})
	pr := paParse(t, comp, `{"calls":[],"output":null}`)
	require.Equal(t, CodeEmptySolution, pr.RepairCode)
	require.NotNil(t, pr.Solution)

	pr = paParse(t, comp, `{"calls":[],"output":{"summary":"Done."}}`)
	require.Empty(t, pr.Repair)
	require.True(t, pr.Solution.HasOutput)
	require.Equal(t, `{"summary":"Done."}`, paJSON(t, pr.Solution.Output))
}

// I2 (b): a call aimed at a dead instance is instance_unknown; a live one
// is kept with its instance.
func TestVectorI2b_InstanceUnknown(t *testing.T) {
	c := paCtx(t,
		`{"type":"input","message":"Give employee B a high-priority task: prepare the Q3 report."}`,
		`{"type":"state","_instance":"employee_A","tasks":[]}`,
		`{"type":"state","_instance":"employee_B","tasks":[]}`)
	a := paAgent(t, &Agent{Tools: []ToolDecl{paTool(t, "updateTask", "backend", `{"type":"object","properties":{
		"task":{"type":"string"},"priority":{"type":"string"},"_outputPath":{"const":"†state.tasks"},"_outputMethod":{"const":"push"}},"required":["task","priority"]}`)}})
	comp := paCompose(t, a, c, TurnInfo{}, paReg())
	pr := paParse(t, comp, `{"calls":[{"_tool":"updateTask","_instance":"employee_B","task":"Prepare the Q3 report","priority":"high"}],"output":null}`)
	require.Empty(t, pr.CallErrors)
	require.Equal(t, "employee_B", pr.Solution.Calls[0].Instance)
	require.Equal(t, "†state.tasks", pr.Solution.Calls[0].OutputPath)

	pr = paParse(t, comp, `{"calls":[{"_tool":"updateTask","_instance":"employee_C","task":"Prepare the Q3 report","priority":"high"}],"output":null}`)
	require.Empty(t, pr.Solution.Calls)
	require.Equal(t, []Code{CodeInstanceUnknown}, paCodes(pr.CallErrors))
	require.Equal(t, "employee_C", pr.CallErrors[0].Instance)
	require.Contains(t, pr.CallErrors[0].Message, "employee_C")

	pr = paParse(t, comp, `{"calls":[{"_tool":"updateTask","_instance":null,"task":"t","priority":"low"}],"output":null}`)
	require.Empty(t, pr.CallErrors)
	require.Equal(t, "", pr.Solution.Calls[0].Instance, "a null instance is global")
}

// X7: a scope outside the requested enum is scope_not_allowed; the call is
// not kept (so neither the approver nor the activity sees it).
func TestVectorX7_ScopeNotAllowed(t *testing.T) {
	a := paAgent(t, &Agent{Tools: []ToolDecl{paTool(t, "logEvent", "backend",
		`{"type":"object","properties":{"_scopes":{"type":"array","items":{"enum":["state","input"]}},"eventName":{"type":"string"}},"required":["eventName"]}`)}})
	comp := paCompose(t, a, nil, TurnInfo{}, paReg())
	pr := paParse(t, comp, `{"calls":[{"_tool":"logEvent","_scopes":["secrets"],"eventName":"x"}],"output":null}`)
	require.Empty(t, pr.Solution.Calls)
	require.Equal(t, []Code{CodeScopeNotAllowed}, paCodes(pr.CallErrors))
	require.Contains(t, pr.CallErrors[0].Message, `"secrets"`)
}

// S1 (parse part): the latent call keeps its requested scope and output.
func TestVectorS1_ParseLatentCall(t *testing.T) {
	a := paAgent(t, &Agent{Tools: []ToolDecl{paTool(t, "sendMessage", "latent", `{"type":"object","properties":{
		"recipientId":{"type":"string"},"message":{"type":"string"},
		"_scopes":{"type":"array","items":{"enum":["state","input"]}},
		"_output":{"type":"object","properties":{"sent":{"type":"boolean"}},"required":["sent"]}},
		"required":["recipientId","message"]}`)}})
	comp := paCompose(t, a, nil, TurnInfo{}, paReg())
	pr := paParse(t, comp, `{"calls":[{"_tool":"sendMessage","_scopes":["input"],"recipientId":"user_B","message":"Welcome, Bob!","_output":{"sent":true}}],"output":null}`)
	require.Empty(t, pr.CallErrors)
	require.Empty(t, pr.Repair)
	call := pr.Solution.Calls[0]
	require.Equal(t, []string{"input"}, call.Scopes)
	require.True(t, call.HasOutput)
	require.Equal(t, `{"recipientId":"user_B","message":"Welcome, Bob!"}`, paJSON(t, call.Args))
}

// A1 (parse part): the opinion with its weights; the call follows.
func TestVectorA1_ParseOpinion(t *testing.T) {
	comp := paCompose(t, a1Setup(t), nil, TurnInfo{}, paReg())
	pr := paParse(t, comp, `{"advisors":[{"id":"riskAnalyst","thought":"Unit tests pass, integration tests missing; regression risk is high.",
		"calls":"{\"deploy\":10,\"rollback\":5,\"delay\":95}"}],
		"calls":[{"_tool":"delay","_reasoningForCall":"Risk analyst strongly advises waiting.","_output":{"ok":true}}],"output":null}`)
	require.Empty(t, pr.Repair)
	require.Empty(t, pr.CallErrors)
	require.Len(t, pr.Solution.Opinions, 1)
	op := pr.Solution.Opinions[0]
	require.Equal(t, "riskAnalyst", op.ID)
	require.Equal(t, `{"thought":"Unit tests pass, integration tests missing; regression risk is high."}`, paJSON(t, op.Answer))
	require.Equal(t, []Weight{{"deploy", 10}, {"rollback", 5}, {"delay", 95}}, op.Weights)
	require.Equal(t, "delay", pr.Solution.Calls[0].Tool)

	// Turn 2 still requires the entry.
	pr = paParse(t, comp, `{"advisors":[],"calls":[{"_tool":"delay","_output":{"ok":true}}],"output":null}`)
	require.Equal(t, CodeAdvisorMissing, pr.RepairCode)
	require.Contains(t, pr.Repair[0], `"riskAnalyst"`)
	require.NotNil(t, pr.Solution, "a missing advisor keeps the parsed solution")
	require.Len(t, pr.Solution.Calls, 1)
	pr = paParse(t, comp, `{"calls":[{"_tool":"delay","_output":{"ok":true}}],"output":null}`)
	require.Equal(t, CodeAdvisorMissing, pr.RepairCode)

	// An invalid entry is an envelope problem with its pointer.
	pr = paParse(t, comp, `{"advisors":[{"id":"riskAnalyst","thought":5,"calls":"{}"}],"calls":[],"output":null}`)
	require.Equal(t, CodeSolutionInvalid, pr.RepairCode)
	require.Equal(t, "/advisors/0/thought: expected string, got integer", pr.Repair[0])
}

// Unknown advisor ids are dropped and duplicates keep the last entry (§3
// step 6), each with a warning.
func TestParseAdvisorUnknownAndDuplicate(t *testing.T) {
	comp := paCompose(t, a1Setup(t), nil, TurnInfo{}, paReg())
	pr := paParse(t, comp, `{"advisors":[
		{"id":"riskAnalyst","thought":"first","calls":"{}"},
		{"id":"ghost","thought":"?","calls":"{}"},
		{"id":"riskAnalyst","thought":"second","calls":{"delay":50}}],
		"calls":[{"_tool":"delay","_output":{"ok":true}}],"output":null}`)
	require.Empty(t, pr.Repair)
	require.Equal(t, []Code{WarnAdvisorUnknown, WarnAdvisorDuplicate}, paWarnCodes(pr.Warnings))
	require.Len(t, pr.Solution.Opinions, 1)
	require.Equal(t, `{"thought":"second"}`, paJSON(t, pr.Solution.Opinions[0].Answer))
	require.Equal(t, []Weight{{"delay", 50}}, pr.Solution.Opinions[0].Weights)
	require.Contains(t, paWarnCodes(pr.Solution.Opinions[0].Warnings), WarnWeightsNotString)
	advisors, _ := pr.Solution.Normalised.(*agentctx.Object).Get("advisors")
	require.Len(t, advisors, 1)
}

// A6: an instanced required advisor needs one entry per live instance.
func TestVectorA6_MissingInstanceEntry(t *testing.T) {
	a := paAgent(t, &Agent{
		Tools: []ToolDecl{paTool(t, "rewrite", "backend", `{"type":"object","properties":{"instruction":{"type":"string"}}}`)},
		Advisors: []agentctx.Message{paAdvisor(t, `{"type":"advisor","id":"styleKeeper","on":"request","isInstanced":true,
			"schema":{"type":"object","properties":{"thought":{"type":"string"}},"required":["thought"]}}`)},
	})
	c := paCtx(t, `{"type":"state","_instance":"①","text":"a"}`, `{"type":"state","_instance":"②","text":"b"}`)
	comp := paCompose(t, a, c, TurnInfo{}, paReg())
	calls := `"calls":[{"_tool":"rewrite","_instance":"①","instruction":"formal"}],"output":null`

	pr := paParse(t, comp, `{"advisors":[{"id":"styleKeeper","_instance":"①","thought":"ok","calls":"{\"rewrite\":80}"}],`+calls+`}`)
	require.Equal(t, CodeAdvisorMissing, pr.RepairCode)
	require.Equal(t, []string{`/advisors: advisor "styleKeeper" needs an entry for instance "②"`}, pr.Repair)

	pr = paParse(t, comp, `{"advisors":[{"id":"styleKeeper","_instance":"①","thought":"ok","calls":"{\"rewrite\":80}"},
		{"id":"styleKeeper","_instance":"②","thought":"fine","calls":"{\"rewrite\":60}"}],`+calls+`}`)
	require.Empty(t, pr.Repair)
	require.Len(t, pr.Solution.Opinions, 2)
	require.Equal(t, "①", pr.Solution.Opinions[0].Instance)
	require.Equal(t, "②", pr.Solution.Opinions[1].Instance)

	pr = paParse(t, comp, `{"advisors":[{"id":"styleKeeper","_instance":"③","thought":"?","calls":"{}"}],`+calls+`}`)
	require.Equal(t, CodeSolutionInvalid, pr.RepairCode)
	require.Contains(t, pr.Repair[0], "/advisors/0/_instance")
}

// A5 (parse part) and `finish`: a start advisor is required on the first
// turn of a fresh chat only; a finish advisor only with a non-null output.
func TestVectorA5_ParseActivation(t *testing.T) {
	a := paAgent(t, &Agent{
		OutputSchema: paObj(t, `{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"]}`),
		Tools:        []ToolDecl{paTool(t, "ping", "backend", `{"type":"object"}`)},
		Advisors: []agentctx.Message{
			paAdvisor(t, `{"type":"advisor","id":"kickoff","on":"start"}`),
			paAdvisor(t, `{"type":"advisor","id":"closer","on":"finish"}`),
		},
	})
	first := paCompose(t, a, nil, TurnInfo{Turn: 1, FirstOfChat: true}, paReg())
	pr := paParse(t, first, `{"calls":[{"_tool":"ping"}],"output":null}`)
	require.Equal(t, CodeAdvisorMissing, pr.RepairCode)
	require.Equal(t, []string{`/advisors: the entry of advisor "kickoff" is required`}, pr.Repair)
	pr = paParse(t, first, `{"advisors":[{"id":"kickoff","calls":"{\"ping\":90}"}],"calls":[{"_tool":"ping"}],"output":null}`)
	require.Empty(t, pr.Repair)

	later := paCompose(t, a, nil, TurnInfo{Turn: 2}, paReg())
	pr = paParse(t, later, `{"calls":[{"_tool":"ping"}],"output":null}`)
	require.Empty(t, pr.Repair, "offered only")
	pr = paParse(t, later, `{"calls":[],"output":{"answer":"x"}}`)
	require.Equal(t, CodeAdvisorMissing, pr.RepairCode)
	require.Equal(t, []string{`/advisors: the entry of advisor "closer" is required`}, pr.Repair)
}

// L1: on the final turn a null output is invalid (repair), calls are ignored
// with a warning and a non-null output is accepted.
func TestVectorL1_FinalTurnParse(t *testing.T) {
	a := paAgent(t, &Agent{Limits: Limits{MaxTurns: 3}, Tools: []ToolDecl{paTool(t, "noop", "backend", `{"type":"object"}`)}})
	comp := paCompose(t, a, nil, TurnInfo{Turn: 3, MaxTurns: 3, Final: true}, paReg())
	pr := paParse(t, comp, `{"output":null}`)
	require.Equal(t, CodeSolutionInvalid, pr.RepairCode)
	require.Contains(t, pr.Repair[0], "/output: must not be null")

	pr = paParse(t, comp, `{"calls":[{"_tool":"noop"}],"output":{"done":true}}`)
	require.Empty(t, pr.Repair)
	require.Empty(t, pr.Solution.Calls)
	require.True(t, pr.Solution.HasOutput)
	require.Equal(t, []Code{WarnCallsOnFinalTurn}, paWarnCodes(pr.Warnings))
	require.Equal(t, `{"output":{"done":true}}`, paJSON(t, pr.Solution.Normalised))
}

// A4 (parse part): the ConsultAdvisor call carries id and question.
func TestVectorA4_ParseConsult(t *testing.T) {
	a := paAgent(t, &Agent{
		Tools:    []ToolDecl{paTool(t, "publish", "backend", `{"type":"object"}`)},
		Advisors: []agentctx.Message{paAdvisor(t, `{"type":"advisor","id":"legal","schema":{"type":"object","properties":{"thought":{"type":"string"}}}}`)},
	})
	comp := paCompose(t, a, nil, TurnInfo{}, paReg())
	pr := paParse(t, comp, `{"calls":[{"_tool":"ConsultAdvisor","id":"legal","question":"Is the quote fair use?"}],"output":null}`)
	require.Empty(t, pr.CallErrors)
	require.Equal(t, `{"id":"legal","question":"Is the quote fair use?"}`, paJSON(t, pr.Solution.Calls[0].Args))
	pr = paParse(t, comp, `{"calls":[{"_tool":"ConsultAdvisor","id":"finance","question":"?"}],"output":null}`)
	require.Equal(t, []Code{CodeCallInvalid}, paCodes(pr.CallErrors))
	// An inline entry of an on-demand advisor is not an advisor of this turn.
	pr = paParse(t, comp, `{"advisors":[{"id":"legal","thought":"x","calls":"{}"}],"calls":[{"_tool":"publish"}],"output":null}`)
	require.Empty(t, pr.Repair)
	require.Empty(t, pr.Solution.Opinions)
	require.Equal(t, []Code{WarnAdvisorUnknown}, paWarnCodes(pr.Warnings))
}

// A non-object answer schema is wrapped as {value}; the opinion keeps it.
func TestParseWrappedAnswer(t *testing.T) {
	a := paAgent(t, &Agent{
		Tools:    []ToolDecl{paTool(t, "ping", "backend", `{"type":"object"}`)},
		Advisors: []agentctx.Message{paAdvisor(t, `{"type":"advisor","id":"score","on":"request","schema":{"type":"integer","minimum":0}}`)},
	})
	comp := paCompose(t, a, nil, TurnInfo{}, paReg())
	require.Equal(t, `{"type":"object","additionalProperties":false,"required":["id","value","calls"],"properties":{"id":{"type":"string","enum":["score"]},"value":{"type":"integer"},"calls":{"type":"string","description":"JSON object: tool name -> confidence 0..100"}}}`,
		paJSON(t, comp.Advisor("score").Wire))
	pr := paParse(t, comp, `{"advisors":[{"id":"score","value":7,"calls":"{\"ping\":70}"}],"calls":[{"_tool":"ping"}],"output":null}`)
	require.Empty(t, pr.Repair)
	require.Equal(t, `{"value":7}`, paJSON(t, pr.Solution.Opinions[0].Answer))
	pr = paParse(t, comp, `{"advisors":[{"id":"score","value":-1,"calls":"{}"}],"calls":[{"_tool":"ping"}],"output":null}`)
	require.Equal(t, []string{"/advisors/0/value: must be at least 0"}, pr.Repair)
}

// Odd replies never panic and always say what is wrong.
func TestParseOddRepliesNeverPanic(t *testing.T) {
	comp := paCompose(t, a1Setup(t), paCtx(t, `{"type":"state","_instance":"x","a":1}`), TurnInfo{}, paReg())
	replies := []string{
		`null`, `"text"`, `{}`, `{"advisors":5,"calls":[],"output":null}`,
		`{"advisors":[1,null,{"id":3}],"calls":[null,[],{"_tool":5}],"output":null}`,
		`{"advisors":[{"id":"riskAnalyst"}],"calls":[{"_tool":"delay","_instance":7,"_output":{}}],"output":[]}`,
		`{"calls":[{"_tool":"delay","_why":null,"_reasoningForCall":null,"_output":{"ok":"yes"}}],"output":null}`,
	}
	for _, r := range replies {
		pr := Parse(comp, []byte(r))
		require.NotNil(t, pr, r)
		require.True(t, len(pr.Repair) > 0 || len(pr.CallErrors) > 0, r)
	}
	require.Equal(t, CodeSolutionInvalid, Parse(nil, []byte(`{}`)).RepairCode)
}
