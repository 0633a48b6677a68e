package llmtest

import "fmt"

// A Server also fakes the Anthropic Messages API (POST /v1/messages with
// "stream": true): AnthropicText and AnthropicCall are replies in
// Anthropic's SSE events, so the anthropic adapter can be tested end to end
// (AITE_MODEL=anthropic:… with ANTHROPIC_BASE_URL pointed at the Server).

// anthropicFrame is one SSE frame as Anthropic writes it.
func anthropicFrame(name, data string) string { return "event: " + name + "\ndata: " + data + "\n\n" }

func anthropicStart(inputTokens int) string {
	return anthropicFrame("message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":"msg_fake","type":"message",`+
		`"role":"assistant","model":"fake","content":[],"stop_reason":null,"stop_sequence":null,`+
		`"usage":{"input_tokens":%d,"output_tokens":1}}}`, inputTokens))
}

func anthropicEnd(stop string, outputTokens int) []string {
	return []string{
		anthropicFrame("message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%s,"stop_sequence":null},`+
			`"usage":{"output_tokens":%d}}`, Quote(stop), outputTokens)),
		anthropicFrame("message_stop", `{"type":"message_stop"}`),
	}
}

// AnthropicText is a streamed Anthropic answer: text in one delta per
// piece, then end_turn, with the token counts given.
func AnthropicText(inputTokens, outputTokens int, pieces ...string) Response {
	frames := []string{anthropicStart(inputTokens),
		anthropicFrame("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)}
	for _, p := range pieces {
		frames = append(frames, anthropicFrame("content_block_delta",
			fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":%s}}`, Quote(p))))
	}
	frames = append(frames, anthropicFrame("content_block_stop", `{"type":"content_block_stop","index":0}`))
	return Response{Raw: true, NoDone: true, Chunks: append(frames, anthropicEnd("end_turn", outputTokens)...)}
}

// AnthropicCall is a streamed Anthropic tool_use of tool name with the JSON
// input args (one input_json_delta), then stop_reason tool_use.
func AnthropicCall(id, name, args string) Response {
	frames := []string{anthropicStart(10),
		anthropicFrame("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":0,`+
			`"content_block":{"type":"tool_use","id":%s,"name":%s,"input":{}}}`, Quote(id), Quote(name))),
		anthropicFrame("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":0,`+
			`"delta":{"type":"input_json_delta","partial_json":%s}}`, Quote(args))),
		anthropicFrame("content_block_stop", `{"type":"content_block_stop","index":0}`)}
	return Response{Raw: true, NoDone: true, Chunks: append(frames, anthropicEnd("tool_use", 5)...)}
}
