package anthropic

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

func TestTextStreamingOneEventPerDelta(t *testing.T) {
	gate := make(chan struct{})
	rep := textReply("Hel", "lo, ", "wor", "ld")
	rep.gate, rep.gateAt = gate, 4 // the second delta waits for the first to arrive
	srv := newServer(t, rep)
	p := newTestProvider(srv, &llmtest.Sleeps{})

	var evs []llm.Event
	for ev, err := range p.Stream(context.Background(), simpleRequest()) {
		require.NoError(t, err)
		if len(evs) == 0 {
			require.Equal(t, llm.Event{Kind: llm.EventTextDelta, Text: "Hel"}, ev)
			close(gate) // proves the first delta was relayed before the rest was written
		}
		evs = append(evs, ev)
	}
	require.Equal(t, []llm.Event{
		{Kind: llm.EventTextDelta, Text: "Hel"},
		{Kind: llm.EventTextDelta, Text: "lo, "},
		{Kind: llm.EventTextDelta, Text: "wor"},
		{Kind: llm.EventTextDelta, Text: "ld"},
		{Kind: llm.EventUsage, Usage: &llm.Usage{InputTokens: 10, OutputTokens: 5}},
		{Kind: llm.EventFinish, Finish: llm.FinishStop},
	}, evs)
}

func TestThinkingThenText(t *testing.T) {
	srv := newServer(t, reply{frames: []string{
		msgStart(20, 0, 0),
		thinkingStart(0), thinkingDelta(0, "Let me "), thinkingDelta(0, "think."), signatureDelta(0), blockStop(0),
		textStart(1), textDelta(1, "The answer"), textDelta(1, " is 4."), blockStop(1),
		msgDelta("end_turn", 30), msgStop(),
	}})
	evs, err := collect(context.Background(), newTestProvider(srv, &llmtest.Sleeps{}), simpleRequest())
	require.NoError(t, err)
	require.Equal(t, []llm.Event{
		{Kind: llm.EventReasoningDelta, Text: "Let me "},
		{Kind: llm.EventReasoningDelta, Text: "think."},
		{Kind: llm.EventTextDelta, Text: "The answer"},
		{Kind: llm.EventTextDelta, Text: " is 4."},
		{Kind: llm.EventUsage, Usage: &llm.Usage{InputTokens: 20, OutputTokens: 30}},
		{Kind: llm.EventFinish, Finish: llm.FinishStop},
	}, evs)
}

func TestOneToolUse(t *testing.T) {
	srv := newServer(t, reply{frames: []string{
		msgStart(50, 0, 0),
		textStart(0), textDelta(0, "Checking."), blockStop(0),
		toolStart(1, "toolu_01", "get_weather"),
		jsonDelta(1, ""), jsonDelta(1, `{"city": "Pa`), jsonDelta(1, `ris"}`),
		blockStop(1),
		msgDelta("tool_use", 12), msgStop(),
	}})
	evs, err := collect(context.Background(), newTestProvider(srv, &llmtest.Sleeps{}), simpleRequest())
	require.NoError(t, err)
	require.Equal(t, []llm.Event{
		{Kind: llm.EventTextDelta, Text: "Checking."},
		{Kind: llm.EventToolCallStart, Index: 0, Call: &llm.ToolCall{ID: "toolu_01", Name: "get_weather"}},
		{Kind: llm.EventToolCallDelta, Index: 0, Text: `{"city": "Pa`},
		{Kind: llm.EventToolCallDelta, Index: 0, Text: `ris"}`},
		{Kind: llm.EventToolCallEnd, Index: 0, Call: &llm.ToolCall{ID: "toolu_01", Name: "get_weather", Arguments: `{"city": "Paris"}`}},
		{Kind: llm.EventUsage, Usage: &llm.Usage{InputTokens: 50, OutputTokens: 12}},
		{Kind: llm.EventFinish, Finish: llm.FinishToolCalls},
	}, evs)
}

func TestTwoToolUsesWithFragmentsSplitInsideUTF8(t *testing.T) {
	zurich := `{"city":"Zürich"}` // ü = C3 BC
	tokyo := `{"city":"東京"}`      // 東 = E6 9D B1
	cutZ := len(`{"city":"Z`) + 1 // after C3
	cutT := len(`{"city":"`) + 2  // after E6 9D
	srv := newServer(t, reply{frames: []string{
		msgStart(5, 0, 0),
		toolStart(0, "toolu_a", "weather"), jsonDelta(0, zurich[:cutZ]), jsonDelta(0, zurich[cutZ:]), blockStop(0),
		toolStart(1, "toolu_b", "weather"), jsonDelta(1, tokyo[:cutT]), jsonDelta(1, tokyo[cutT:]), blockStop(1),
		msgDelta("tool_use", 9), msgStop(),
	}})
	p := newTestProvider(srv, &llmtest.Sleeps{})
	evs, err := collect(context.Background(), p, simpleRequest())
	require.NoError(t, err)
	var frags [2][]string
	var ends [2]*llm.ToolCall
	for _, ev := range evs {
		switch ev.Kind {
		case llm.EventToolCallDelta:
			frags[ev.Index] = append(frags[ev.Index], ev.Text)
		case llm.EventToolCallEnd:
			ends[ev.Index] = ev.Call
		}
	}
	require.Equal(t, []string{zurich[:cutZ], zurich[cutZ:]}, frags[0], "fragments byte for byte")
	require.Equal(t, []string{tokyo[:cutT], tokyo[cutT:]}, frags[1])
	require.Equal(t, &llm.ToolCall{ID: "toolu_a", Name: "weather", Arguments: zurich}, ends[0])
	require.Equal(t, &llm.ToolCall{ID: "toolu_b", Name: "weather", Arguments: tokyo}, ends[1])

	resp, err := llm.Collect(p.Stream(context.Background(), simpleRequest()))
	require.NoError(t, err)
	require.Len(t, resp.Message.ToolCalls, 2)
	for i, want := range []string{"Zürich", "東京"} {
		var args struct{ City string }
		require.NoError(t, json.Unmarshal([]byte(resp.Message.ToolCalls[i].Arguments), &args))
		require.Equal(t, want, args.City)
	}
	require.Equal(t, llm.FinishToolCalls, resp.Finish)
}

func TestToolUseWithoutInputDeltas(t *testing.T) {
	srv := newServer(t, reply{frames: []string{
		msgStart(5, 0, 0), toolStart(0, "toolu_x", "now"), blockStop(0), msgDelta("tool_use", 3), msgStop(),
	}})
	resp, err := llm.Collect(newTestProvider(srv, &llmtest.Sleeps{}).Stream(context.Background(), simpleRequest()))
	require.NoError(t, err)
	require.Equal(t, []llm.ToolCall{{ID: "toolu_x", Name: "now", Arguments: "{}"}}, resp.Message.ToolCalls)
}

func TestUsageWithCacheAndPricing(t *testing.T) {
	srv := newServer(t, reply{frames: []string{
		msgStart(100, 40, 10), textStart(0), textDelta(0, "x"), blockStop(0),
		frame("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},`+
			`"usage":{"input_tokens":null,"cache_read_input_tokens":60,"output_tokens":7}}`),
		msgStop(),
	}})
	p := newTestProvider(srv, &llmtest.Sleeps{}, func(c *Config) {
		c.Pricing = map[string]llm.Pricing{"claude-test": {InputPer1K: 3, CachedInputPer1K: 0.3, OutputPer1K: 15}}
	})
	resp, err := llm.Collect(p.Stream(context.Background(), simpleRequest()))
	require.NoError(t, err)
	// input_tokens stays 100 (null in the delta); cache reads are updated to 60.
	want := llm.Usage{InputTokens: 100 + 60 + 10, CachedInputTokens: 60, OutputTokens: 7}
	want.Cost = (float64(110)*3 + float64(60)*0.3 + float64(7)*15) / 1000
	require.Equal(t, want, resp.Usage)
}

func TestFinishMapping(t *testing.T) {
	cases := map[string]llm.FinishReason{
		"end_turn":                      llm.FinishStop,
		"stop_sequence":                 llm.FinishStop,
		"max_tokens":                    llm.FinishLength,
		"model_context_window_exceeded": llm.FinishLength,
		"tool_use":                      llm.FinishToolCalls,
		"refusal":                       llm.FinishContentFilter,
		"pause_turn":                    llm.FinishOther,
	}
	for stop, want := range cases {
		t.Run(stop, func(t *testing.T) {
			srv := newServer(t, reply{frames: []string{msgStart(1, 0, 0), msgDelta(stop, 1), msgStop()}})
			evs, err := collect(context.Background(), newTestProvider(srv, &llmtest.Sleeps{}), simpleRequest())
			require.NoError(t, err)
			require.Equal(t, llm.Event{Kind: llm.EventFinish, Finish: want}, evs[len(evs)-1])
		})
	}
}

func TestStreamEndingBeforeMessageStopIsProtocol(t *testing.T) {
	srv := newServer(t, reply{frames: []string{msgStart(1, 0, 0), textStart(0), textDelta(0, "partial")}})
	evs, err := collect(context.Background(), newTestProvider(srv, &llmtest.Sleeps{}), simpleRequest())
	require.Equal(t, llm.Protocol, llm.KindOf(err))
	require.Len(t, evs, 1)
	require.Len(t, srv.requests(), 1, "not retried after output")
}

func TestStreamBrokenAfterStopReasonStillFinishes(t *testing.T) {
	srv := newServer(t, reply{frames: append(textReply("a").frames[:6], msgDelta("end_turn", 2)), abort: true})
	evs, err := collect(context.Background(), newTestProvider(srv, &llmtest.Sleeps{}), simpleRequest())
	require.NoError(t, err)
	require.Equal(t, llm.Event{Kind: llm.EventFinish, Finish: llm.FinishStop}, evs[len(evs)-1])
}

func TestMalformedEventIsProtocol(t *testing.T) {
	srv := newServer(t, reply{frames: []string{msgStart(1, 0, 0), textStart(0), textDelta(0, "ok"),
		frame("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"unterminated}`)}})
	evs, err := collect(context.Background(), newTestProvider(srv, &llmtest.Sleeps{}), simpleRequest())
	require.Equal(t, llm.Protocol, llm.KindOf(err))
	require.Len(t, evs, 1)
}

func TestConsumerStopsEarly(t *testing.T) {
	srv := newServer(t, reply{frames: textReply("a", "b").frames, hang: true})
	n := 0
	for _, err := range newTestProvider(srv, &llmtest.Sleeps{}).Stream(context.Background(), simpleRequest()) {
		require.NoError(t, err)
		n++
		break
	}
	require.Equal(t, 1, n)
}

func TestSupportsJSONSchemaIsFalse(t *testing.T) {
	p := New(Config{})
	require.False(t, p.SupportsJSONSchema("claude-sonnet-4-5"))
	require.False(t, llm.SupportsJSONSchema(p, "claude-sonnet-4-5"))
}

func TestStructuredThroughForcedTool(t *testing.T) {
	srv := newServer(t, reply{frames: []string{
		msgStart(5, 0, 0), toolStart(0, "toolu_s", "answer"),
		jsonDelta(0, `{"title":`), jsonDelta(0, `"Dune","year":1965}`), blockStop(0),
		msgDelta("tool_use", 8), msgStop(),
	}})
	schema := json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"},"year":{"type":"integer"}},"required":["title","year"]}`)
	raw, _, err := llm.Structured(context.Background(), newTestProvider(srv, &llmtest.Sleeps{}), simpleRequest(),
		llm.Structure{Name: "answer", Schema: schema, Via: llm.ViaTool, Validate: true})
	require.NoError(t, err)
	require.JSONEq(t, `{"title":"Dune","year":1965}`, string(raw))
	require.JSONEq(t, `{"type":"tool","name":"answer","disable_parallel_tool_use":true}`,
		field(t, srv.requests()[0].body, "tool_choice"))
}
