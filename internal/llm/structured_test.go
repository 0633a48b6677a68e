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
		{"json_schema empty reply", true, llmtest.Empty(), llm.ErrUnparsable, "no complete JSON object"},
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
			raw, resp, err := llm.Structured(context.Background(), p, req, json.RawMessage(answerSchema), "answer", tc.jsonSchema)
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
	_, _, err := llm.Structured(context.Background(), llmtest.NewScripted(llmtest.Fail(boom)), req,
		json.RawMessage(answerSchema), "answer", true)
	require.ErrorIs(t, err, boom)

	p := llmtest.NewScripted()
	_, _, err = llm.Structured(context.Background(), p, req, json.RawMessage(`{"type":`), "answer", true)
	require.ErrorContains(t, err, "parse schema")
	_, _, err = llm.Structured(context.Background(), p, req, json.RawMessage(`{"$ref":"#/nowhere"}`), "answer", true)
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
