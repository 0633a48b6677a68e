package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

const answerSchema = `{"type":"object","properties":{"verdict":{"type":"string","enum":["yes","no"]},"score":{"type":"integer","minimum":0}},"required":["verdict","score"],"additionalProperties":false}`

func TestExtractJSONObject(t *testing.T) {
	cases := []struct {
		name, text, want string
	}{
		{"bare", ` {"a":1} `, `{"a":1}`},
		{"fenced", "```json\n{\"a\":{\"b\":[1,2]}}\n```", `{"a":{"b":[1,2]}}`},
		{"prose around", `Sure! Here it is: {"a":"}"} Hope that helps {"b":2}`, `{"a":"}"}`},
		{"braces in prose first", `Use {x} like so: {"a":1}`, `{"a":1}`},
		{"broken outer object hides inner ones", `{"a": {"b":1}, oops}`, ""},
		{"truncated", `{"a": {"b":1}`, ""},
		{"array is not an object", `[1,2]`, ""},
		{"nothing", "no json here", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := llm.ExtractJSONObject(tc.text)
			require.Equal(t, tc.want != "", ok)
			require.Equal(t, tc.want, string(got))
		})
	}
}

func TestStructured(t *testing.T) {
	valid := `{"verdict":"yes","score":3}`
	cases := []struct {
		name       string
		jsonSchema bool
		reply      llmtest.Reply
		wantErr    error
		problem    string
	}{
		{"json_schema valid", true, llmtest.Text(valid), nil, ""},
		{"json_schema in prose", true, llmtest.Chunks("Answer:\n```json\n", valid, "\n```"), nil, ""},
		{"json_schema wrong enum", true, llmtest.Text(`{"verdict":"maybe","score":3}`), llm.ErrInvalid, "enum"},
		{"json_schema wrong type", true, llmtest.Text(`{"verdict":"yes","score":"3"}`), llm.ErrInvalid, "type"},
		{"json_schema missing field", true, llmtest.Text(`{"verdict":"yes"}`), llm.ErrInvalid, "required"},
		{"json_schema extra field", true, llmtest.Text(`{"verdict":"yes","score":1,"x":1}`), llm.ErrInvalid, "additional"},
		{"json_schema malformed", true, llmtest.MalformedJSON(), llm.ErrUnparsable, "no complete JSON object"},
		{"json_schema empty reply", true, llmtest.Empty(), llm.ErrUnparsable, "the reply has no content"},
		{"tool valid", false, llmtest.Calls(llmtest.Call("answer", valid)), nil, ""},
		{"tool after another call", false, llmtest.Calls(llmtest.Call("other", `{}`), llmtest.Call("answer", valid)), nil, ""},
		// jsonschema-go reports the first failing property in map order, so
		// only the kind of error is fixed, not which property it names.
		{"tool wrong argument types", false, llmtest.Calls(llmtest.Call("answer", `{"verdict":1,"score":1}`)), llm.ErrInvalid, "does not match the schema"},
		{"tool hallucinated name", false, llmtest.UnknownTool("respond"), llm.ErrUnparsable, `no call of the tool "answer"`},
		{"tool not called", false, llmtest.Text(valid), llm.ErrUnparsable, `no call of the tool "answer"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := llmtest.NewScripted(tc.reply)
			req := &llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: "judge"}},
				Tools: []llm.Tool{{Name: "search"}}, ToolChoice: llm.ToolChoice{Mode: llm.ToolChoiceAuto}}
			via := llm.ViaTool
			if tc.jsonSchema {
				via = llm.ViaJSONSchema
			}
			raw, resp, err := llm.Structured(context.Background(), p, req,
				llm.Structure{Name: "answer", Schema: json.RawMessage(answerSchema), Via: via, Validate: true})
			sent := p.Requests()[0]
			if tc.jsonSchema {
				require.Equal(t, &llm.ResponseFormat{Type: llm.FormatJSONSchema, Name: "answer",
					Schema: json.RawMessage(answerSchema), Strict: true}, sent.ResponseFormat)
				require.Empty(t, sent.Tools)
				require.Equal(t, llm.ToolChoice{}, sent.ToolChoice)
			} else {
				require.Nil(t, sent.ResponseFormat)
				require.Equal(t, []llm.Tool{{Name: "answer", Description: sent.Tools[0].Description,
					Parameters: json.RawMessage(answerSchema)}}, sent.Tools)
				require.Equal(t, llm.ToolChoice{Mode: llm.ToolChoiceTool, Name: "answer"}, sent.ToolChoice)
				require.False(t, *sent.ParallelToolCalls)
			}
			require.Equal(t, []llm.Tool{{Name: "search"}}, req.Tools, "caller's request untouched")
			require.Equal(t, llm.RoleAssistant, resp.Message.Role)
			if tc.wantErr == nil {
				require.NoError(t, err)
				require.JSONEq(t, valid, string(raw))
				return
			}
			var se *llm.SchemaError
			require.ErrorAs(t, err, &se)
			require.True(t, errors.Is(err, tc.wantErr))
			require.Contains(t, se.Error(), tc.problem)
		})
	}
}

func TestStructuredErrors(t *testing.T) {
	req := &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}}
	boom := &llm.Error{Kind: llm.RateLimited}
	answer := func(schema string) llm.Structure {
		return llm.Structure{Name: "answer", Schema: json.RawMessage(schema), Via: llm.ViaJSONSchema, Validate: true}
	}
	_, _, err := llm.Structured(context.Background(), llmtest.NewScripted(llmtest.Fail(boom)), req, answer(answerSchema))
	require.ErrorIs(t, err, boom)

	p := llmtest.NewScripted()
	_, _, err = llm.Structured(context.Background(), p, req, answer(`{"type":`))
	require.ErrorContains(t, err, "parse schema")
	_, _, err = llm.Structured(context.Background(), p, req, answer(`{"$ref":"#/nowhere"}`))
	require.ErrorContains(t, err, "resolve schema")
	require.Empty(t, p.Requests(), "no model call with an unusable schema")
}

func FuzzExtractJSONObject(f *testing.F) {
	for _, s := range []string{`{"a":1}`, "```json\n{\"a\":[1]}\n```", `x {y} {"a":"}"}`, `{"a": {"b":1}, oops}`, `{`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		raw, ok := llm.ExtractJSONObject(s)
		if !ok {
			return
		}
		if !json.Valid(raw) || raw[0] != '{' || !strings.Contains(s, string(raw)) {
			t.Fatalf("bad extraction %q from %q", raw, s)
		}
	})
}

// The one way to ask for structured output: what each Via puts in the
// request and takes out of the reply.
func TestStructureRequestAndReply(t *testing.T) {
	schema := json.RawMessage(answerSchema)
	base := &llm.Request{Model: "m", Tools: []llm.Tool{{Name: "search"}}, ToolChoice: llm.ToolChoice{Mode: llm.ToolChoiceAuto},
		ResponseFormat: &llm.ResponseFormat{Type: llm.FormatText}}

	js := llm.Structure{Name: "answer", Schema: schema, Via: llm.ViaJSONSchema}
	r := js.Request(base)
	require.Equal(t, &llm.ResponseFormat{Type: llm.FormatJSONSchema, Name: "answer", Schema: schema, Strict: true}, r.ResponseFormat)
	require.Empty(t, r.Tools)
	require.Nil(t, r.ParallelToolCalls)
	for content, want := range map[string]string{
		`{"a":1}`:                 `{"a":1}`,
		"```json\n{\"a\":1}\n```": `{"a":1}`,
		"Here: {\"a\":1}":         "Here: {\"a\":1}", // no extraction from prose
	} {
		text, _, err := js.Reply(llm.Message{Content: content})
		require.NoError(t, err)
		require.Equal(t, want, text)
	}
	_, _, err := js.Reply(llm.Message{Content: " "})
	require.ErrorIs(t, err, llm.ErrUnparsable)

	tool := llm.Structure{Name: "answer", Schema: schema, Via: llm.ViaTool, ToolDescription: "Decide.", StrictTool: true}
	r = tool.Request(base)
	require.Equal(t, []llm.Tool{{Name: "answer", Description: "Decide.", Parameters: schema, Strict: true}}, r.Tools)
	require.Equal(t, llm.ToolChoice{Mode: llm.ToolChoiceTool, Name: "answer"}, r.ToolChoice)
	require.False(t, *r.ParallelToolCalls)
	require.Nil(t, r.ResponseFormat)
	text, extra, err := tool.Reply(llm.Message{ToolCalls: []llm.ToolCall{{Name: "x"}, {Name: "answer", Arguments: ` {"a":1} `}}})
	require.NoError(t, err)
	require.Equal(t, `{"a":1}`, text)
	require.Equal(t, 1, extra)
	_, _, err = tool.Reply(llm.Message{ToolCalls: []llm.ToolCall{{Name: "x"}}})
	require.ErrorContains(t, err, `no call of the tool "answer" (it called x)`)
	_, _, err = tool.Reply(llm.Message{ToolCalls: []llm.ToolCall{{Name: "answer", Arguments: " "}}})
	require.ErrorContains(t, err, "has no arguments")

	prompt := llm.Structure{Via: llm.ViaPrompt}
	r = prompt.Request(base)
	require.Empty(t, r.Tools)
	require.Nil(t, r.ResponseFormat)
	text, _, err = prompt.Reply(llm.Message{Content: "So: ```json\n{\"a\":[1]}\n``` done"})
	require.NoError(t, err)
	require.Equal(t, `{"a":[1]}`, text)
	_, _, err = prompt.Reply(llm.Message{Content: "no"})
	require.ErrorIs(t, err, llm.ErrUnparsable)
	require.Equal(t, []llm.Tool{{Name: "search"}}, base.Tools, "the caller's request is untouched")
}
