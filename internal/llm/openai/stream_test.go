package openai_test

import (
	"context"
	"iter"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
	"github.com/aitexteditor/aite/internal/llm/openai"
)

// drain collects a stream's events and its final error.
func drain(seq iter.Seq2[llm.Event, error]) ([]llm.Event, error) {
	var out []llm.Event
	for ev, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
	return out, nil
}

// run streams one request against a server scripted with resp.
func run(t *testing.T, resp llmtest.Response) ([]llm.Event, error) {
	t.Helper()
	srv := llmtest.NewServer(t, resp)
	return drain(srv.Provider(openai.Config{}).Stream(context.Background(), userRequest("hi")))
}

func userRequest(text string) *llm.Request {
	return &llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: text}}}
}

func text(s string) llm.Event      { return llm.Event{Kind: llm.EventTextDelta, Text: s} }
func reasoning(s string) llm.Event { return llm.Event{Kind: llm.EventReasoningDelta, Text: s} }
func finish(r llm.FinishReason) llm.Event {
	return llm.Event{Kind: llm.EventFinish, Finish: r}
}
func start(i int, id, name string) llm.Event {
	return llm.Event{Kind: llm.EventToolCallStart, Index: i, Call: &llm.ToolCall{ID: id, Name: name}}
}
func args(i int, s string) llm.Event {
	return llm.Event{Kind: llm.EventToolCallDelta, Index: i, Text: s}
}
func end(i int, id, name, a string) llm.Event {
	return llm.Event{Kind: llm.EventToolCallEnd, Index: i, Call: &llm.ToolCall{ID: id, Name: name, Arguments: a}}
}
func usage(in, cached, out int) llm.Event {
	return llm.Event{Kind: llm.EventUsage, Usage: &llm.Usage{InputTokens: in, CachedInputTokens: cached, OutputTokens: out}}
}

type TF = llmtest.ToolFrag

func TestStreamEvents(t *testing.T) {
	cases := []struct {
		name   string
		chunks []string
		raw    bool // frames written verbatim, without a final [DONE]
		want   []llm.Event
	}{
		{"plain text, one event per chunk", []string{
			llmtest.RoleChunk(), llmtest.ContentChunk("Hel"), llmtest.ContentChunk("lo, "),
			llmtest.ContentChunk("wor"), llmtest.ContentChunk("ld\n"), llmtest.FinishChunk("stop")},
			false, []llm.Event{text("Hel"), text("lo, "), text("wor"), text("ld\n"), finish(llm.FinishStop)}},
		{"reasoning then content", []string{
			llmtest.ReasoningChunk("think "), llmtest.ReasoningChunk("hard"),
			llmtest.ContentChunk("answer"), llmtest.FinishChunk("stop")},
			false, []llm.Event{reasoning("think "), reasoning("hard"), text("answer"), finish(llm.FinishStop)}},
		{"reasoning field name", []string{
			llmtest.ReasoningFieldChunk("r1"), llmtest.ContentChunk("c"), llmtest.FinishChunk("stop")},
			false, []llm.Event{reasoning("r1"), text("c"), finish(llm.FinishStop)}},
		{"reasoning and content in one chunk: reasoning first", []string{
			llmtest.DeltaChunk(`{"content":"C","reasoning_content":"R"}`, "stop")},
			false, []llm.Event{reasoning("R"), text("C"), finish(llm.FinishStop)}},
		{"both reasoning names: reasoning_content wins", []string{
			llmtest.DeltaChunk(`{"reasoning_content":"a","reasoning":"a"}`, "")},
			false, []llm.Event{reasoning("a"), finish(llm.FinishOther)}},
		{"escaped text", []string{llmtest.ContentChunk("q\"\\\n\u00e9\U0001F600"), llmtest.FinishChunk("length")},
			false, []llm.Event{text("q\"\\\n\u00e9\U0001F600"), finish(llm.FinishLength)}},
		{"null and empty chunks are skipped", []string{
			"null", "{}", `{"choices":[]}`, `{"choices":null}`, llmtest.DeltaChunk(`null`, ""),
			llmtest.DeltaChunk(`{"content":null,"tool_calls":null}`, ""), llmtest.DeltaChunk(`{"content":""}`, ""),
			llmtest.ContentChunk("x"), llmtest.FinishChunk("stop")},
			false, []llm.Event{text("x"), finish(llm.FinishStop)}},
		{"sse comments, blank data lines and no space after colon", []string{
			": keep-alive\n\n", "data:\n\n", "data:" + llmtest.ContentChunk("a") + "\n\n",
			"event: message\ndata: " + llmtest.FinishChunk("stop") + "\n\n"},
			true, []llm.Event{text("a"), finish(llm.FinishStop)}},
		{"multi-line data, CRLF line endings", []string{
			"data: {\"choices\":[{\"index\":0,\r\ndata: \"delta\":{\"content\":\"a\"}}]}\r\n\r\n"},
			true, []llm.Event{text("a"), finish(llm.FinishOther)}},
		{"last event without its blank line", []string{"data: " + llmtest.ContentChunk("a")},
			true, []llm.Event{text("a"), finish(llm.FinishOther)}},
		{"nothing is read after [DONE]", []string{"data: " + llmtest.ContentChunk("a") + "\n\n",
			"data: [DONE]\n\n", "data: " + llmtest.ContentChunk("b") + "\n\n"},
			true, []llm.Event{text("a"), finish(llm.FinishOther)}},
		{"a chunk larger than the read buffer", []string{llmtest.ContentChunk(strings.Repeat("ж", 100_000))},
			false, []llm.Event{text(strings.Repeat("ж", 100_000)), finish(llm.FinishOther)}},
		{"no usage and no finish reason", []string{llmtest.ContentChunk("a")},
			false, []llm.Event{text("a"), finish(llm.FinishOther)}},
		{"usage-only final chunk", []string{
			llmtest.ContentChunk("a"), llmtest.FinishChunk("stop"), llmtest.UsageChunk(12, 3, 8)},
			false, []llm.Event{text("a"), usage(12, 8, 3), finish(llm.FinishStop)}},
		{"other choices ignored", []string{
			`{"choices":[{"index":1,"delta":{"content":"no"}},{"index":0,"delta":{"content":"yes"}}]}`},
			false, []llm.Event{text("yes"), finish(llm.FinishOther)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := run(t, llmtest.Response{Chunks: tc.chunks, Raw: tc.raw, NoDone: tc.raw})
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestStreamToolCalls(t *testing.T) {
	cases := []struct {
		name   string
		chunks []string
		want   []llm.Event
	}{
		{"one call in fragments", []string{
			llmtest.ToolCallChunk(TF{ID: "c1", Name: "find"}),
			llmtest.ToolCallChunk(TF{Args: `{"q":`}), llmtest.ToolCallChunk(TF{Args: `"x"}`}),
			llmtest.FinishChunk("tool_calls")},
			[]llm.Event{start(0, "c1", "find"), args(0, `{"q":`), args(0, `"x"}`),
				end(0, "c1", "find", `{"q":"x"}`), finish(llm.FinishToolCalls)}},
		{"whole call in one chunk", []string{
			llmtest.ToolCallChunk(TF{ID: "c1", Name: "find", Args: `{"q":1}`}), llmtest.FinishChunk("tool_calls")},
			[]llm.Event{start(0, "c1", "find"), args(0, `{"q":1}`), end(0, "c1", "find", `{"q":1}`),
				finish(llm.FinishToolCalls)}},
		{"two calls: the first ends when the second starts", []string{
			llmtest.ContentChunk("let me look"),
			llmtest.ToolCallChunk(TF{ID: "a", Name: "f"}), llmtest.ToolCallChunk(TF{Args: "{}"}),
			llmtest.ToolCallChunk(TF{Index: 1, ID: "b", Name: "g"}), llmtest.ToolCallChunk(TF{Index: 1, Args: `{"n":`}),
			llmtest.ToolCallChunk(TF{Index: 1, Args: `2}`}), llmtest.FinishChunk("tool_calls")},
			[]llm.Event{text("let me look"), start(0, "a", "f"), args(0, "{}"), end(0, "a", "f", "{}"),
				start(1, "b", "g"), args(1, `{"n":`), args(1, `2}`), end(1, "b", "g", `{"n":2}`),
				finish(llm.FinishToolCalls)}},
		{"several calls in one chunk", []string{
			llmtest.ToolCallChunk(TF{ID: "a", Name: "f", Args: `{"x":`}, TF{Index: 0, Args: `1}`},
				TF{Index: 1, ID: "b", Name: "g", Args: `{}`}, TF{Index: 2, ID: "c", Name: "h", Args: `[]`}),
			llmtest.FinishChunk("tool_calls")},
			[]llm.Event{start(0, "a", "f"), args(0, `{"x":`), args(0, `1}`), end(0, "a", "f", `{"x":1}`),
				start(1, "b", "g"), args(1, "{}"), end(1, "b", "g", "{}"),
				start(2, "c", "h"), args(2, "[]"), end(2, "c", "h", "[]"), finish(llm.FinishToolCalls)}},
		{"missing ids get call_native_k", []string{
			llmtest.ToolCallChunk(TF{Name: "f", Args: "{"}), llmtest.ToolCallChunk(TF{Args: "}"}),
			llmtest.ToolCallChunk(TF{Index: 1, Name: "g", Args: "{}"}), llmtest.FinishChunk("tool_calls")},
			[]llm.Event{start(0, "call_native_1", "f"), args(0, "{"), args(0, "}"), end(0, "call_native_1", "f", "{}"),
				start(1, "call_native_2", "g"), args(1, "{}"), end(1, "call_native_2", "g", "{}"),
				finish(llm.FinishToolCalls)}},
		{"missing index: keyed by id", []string{
			llmtest.ToolCallChunk(TF{NoIndex: true, ID: "a", Name: "f", Args: `{"a":`}),
			llmtest.ToolCallChunk(TF{NoIndex: true, ID: "a", Args: `1}`}),
			llmtest.ToolCallChunk(TF{NoIndex: true, ID: "b", Name: "f", Args: `{}`}), llmtest.FinishChunk("tool_calls")},
			[]llm.Event{start(0, "a", "f"), args(0, `{"a":`), args(0, `1}`), end(0, "a", "f", `{"a":1}`),
				start(1, "b", "f"), args(1, "{}"), end(1, "b", "f", "{}"), finish(llm.FinishToolCalls)}},
		{"missing index and id: a name starts a new call", []string{
			llmtest.ToolCallChunk(TF{NoIndex: true, Name: "f", Args: `{"a"`}),
			llmtest.ToolCallChunk(TF{NoIndex: true, Args: `:1}`}),
			llmtest.ToolCallChunk(TF{NoIndex: true, Name: "g", Args: `{}`})},
			[]llm.Event{start(0, "call_native_1", "f"), args(0, `{"a"`), args(0, `:1}`),
				end(0, "call_native_1", "f", `{"a":1}`), start(1, "call_native_2", "g"), args(1, "{}"),
				end(1, "call_native_2", "g", "{}"), finish(llm.FinishOther)}},
		{"same index reused with a new id", []string{
			llmtest.ToolCallChunk(TF{ID: "a", Name: "f", Args: "{}"}),
			llmtest.ToolCallChunk(TF{ID: "b", Name: "f", Args: "{}"}), llmtest.FinishChunk("tool_calls")},
			[]llm.Event{start(0, "a", "f"), args(0, "{}"), end(0, "a", "f", "{}"),
				start(1, "b", "f"), args(1, "{}"), end(1, "b", "f", "{}"), finish(llm.FinishToolCalls)}},
		{"arguments before the name are held back", []string{
			llmtest.ToolCallChunk(TF{ID: "a", Args: "{"}), llmtest.ToolCallChunk(TF{Name: "f", Args: "}"})},
			[]llm.Event{start(0, "a", "f"), args(0, "{"), args(0, "}"), end(0, "a", "f", "{}"), finish(llm.FinishOther)}},
		{"arguments sent as a JSON object", []string{
			llmtest.DeltaChunk(`{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":{"x":1}}}]}`, "tool_calls")},
			[]llm.Event{start(0, "a", "f"), args(0, `{"x":1}`), end(0, "a", "f", `{"x":1}`), finish(llm.FinishToolCalls)}},
		{"empty fragments are ignored", []string{
			llmtest.ToolCallChunk(TF{ID: "a", Name: "f"}), llmtest.DeltaChunk(`{"tool_calls":[{}]}`, ""),
			llmtest.DeltaChunk(`{"tool_calls":[{"index":0,"function":{"arguments":""}}]}`, ""),
			llmtest.ToolCallChunk(TF{Args: "{}"}), llmtest.FinishChunk("tool_calls"), llmtest.UsageChunk(5, 2, 0)},
			[]llm.Event{start(0, "a", "f"), args(0, "{}"), end(0, "a", "f", "{}"), usage(5, 0, 2),
				finish(llm.FinishToolCalls)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := run(t, llmtest.Response{Chunks: tc.chunks})
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestStreamArgumentsSplitInsideUTF8(t *testing.T) {
	full := `{"text":"Привет, мир"}`
	// Split inside the two-byte sequences of "р" and "м".
	cut1 := len(`{"text":"Привет, мир"}`) - len(`ир"}`) - 1 // inside "м"
	cut2 := len(`{"text":"П`) + 1                           // inside "р"
	parts := []string{full[:cut2], full[cut2:cut1], full[cut1:]}
	chunks := []string{llmtest.ToolCallChunk(TF{ID: "a", Name: "say"})}
	for _, p := range parts {
		chunks = append(chunks, llmtest.ToolCallChunk(TF{Args: p}))
	}
	got, err := run(t, llmtest.Response{Chunks: append(chunks, llmtest.FinishChunk("tool_calls"))})
	require.NoError(t, err)
	require.Equal(t, []llm.Event{start(0, "a", "say"), args(0, parts[0]), args(0, parts[1]), args(0, parts[2]),
		end(0, "a", "say", full), finish(llm.FinishToolCalls)}, got)
}

func TestStreamFragmentAfterEndIsProtocolError(t *testing.T) {
	got, err := run(t, llmtest.Response{Chunks: []string{
		llmtest.ToolCallChunk(TF{ID: "a", Name: "f", Args: "{"}),
		llmtest.ToolCallChunk(TF{Index: 1, ID: "b", Name: "g", Args: "{}"}),
		llmtest.ToolCallChunk(TF{Index: 0, Args: "}"}),
	}})
	require.True(t, llm.IsKind(err, llm.Protocol), "got %v", err)
	require.Equal(t, []llm.Event{start(0, "a", "f"), args(0, "{"), end(0, "a", "f", "{"),
		start(1, "b", "g"), args(1, "{}"), end(1, "b", "g", "{}")}, got)
}

func TestStreamCollect(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Response{Chunks: []string{
		llmtest.ReasoningChunk("r"), llmtest.ContentChunk("a"), llmtest.ContentChunk("b"),
		llmtest.ToolCallChunk(TF{ID: "x", Name: "f", Args: `{"k":`}), llmtest.ToolCallChunk(TF{Args: `true}`}),
		llmtest.FinishChunk("tool_calls"), llmtest.UsageChunk(100, 20, 40),
	}})
	p := srv.Provider(openai.Config{Pricing: map[string]llm.Pricing{"m": {InputPer1K: 1, CachedInputPer1K: 0.5, OutputPer1K: 2}}})
	resp, err := llm.Collect(p.Stream(context.Background(), userRequest("hi")))
	require.NoError(t, err)
	require.Equal(t, llm.Message{Role: llm.RoleAssistant, Content: "ab", Reasoning: "r",
		ToolCalls: []llm.ToolCall{{ID: "x", Name: "f", Arguments: `{"k":true}`}}}, resp.Message)
	require.Equal(t, llm.FinishToolCalls, resp.Finish)
	require.Equal(t, llm.Usage{InputTokens: 100, CachedInputTokens: 40, OutputTokens: 20, Cost: (60*1 + 40*0.5 + 20*2) / 1000.0}, resp.Usage)
}

func TestStreamConsumerStopsEarly(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Response{Chunks: []string{llmtest.ContentChunk("a"), llmtest.ContentChunk("b")}, Hang: true})
	n := 0
	for _, err := range srv.Provider(openai.Config{}).Stream(context.Background(), userRequest("hi")) {
		require.NoError(t, err)
		n++
		break
	}
	require.Equal(t, 1, n)
}
