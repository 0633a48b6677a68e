package llmtest

import (
	"fmt"
	"strconv"
	"strings"
)

// Chunk builders return the JSON payload of one Chat Completions stream
// chunk, for Response.Chunks. Strings are encoded by Quote, so invalid UTF-8
// (a rune split across chunks) reaches the client byte for byte.

// chunkPrefix is the envelope every chunk starts with.
const chunkPrefix = `{"id":"chatcmpl-llmtest","object":"chat.completion.chunk","created":1700000000,"model":"llmtest",`

// ContentChunk is a chunk with one content delta.
func ContentChunk(s string) string { return DeltaChunk(`{"content":`+Quote(s)+`}`, "") }

// ReasoningChunk is a chunk with one delta.reasoning_content (DeepSeek, vLLM,
// Qwen).
func ReasoningChunk(s string) string { return DeltaChunk(`{"reasoning_content":`+Quote(s)+`}`, "") }

// ReasoningFieldChunk is a chunk with one delta.reasoning (Ollama,
// OpenRouter).
func ReasoningFieldChunk(s string) string { return DeltaChunk(`{"reasoning":`+Quote(s)+`}`, "") }

// RoleChunk is the usual first chunk: role assistant, empty content.
func RoleChunk() string { return DeltaChunk(`{"role":"assistant","content":""}`, "") }

// FinishChunk is a chunk with an empty delta and the finish reason.
func FinishChunk(reason string) string { return DeltaChunk(`{}`, reason) }

// DeltaChunk wraps a raw delta object (and a finish reason, "" for null) in
// a chunk with choice 0.
func DeltaChunk(delta, finish string) string {
	f := "null"
	if finish != "" {
		f = Quote(finish)
	}
	return chunkPrefix + `"choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + f + `}]}`
}

// UsageChunk is a usage-only chunk without choices, as sent last with
// stream_options.include_usage.
func UsageChunk(prompt, completion, cached int) string {
	return chunkPrefix + fmt.Sprintf(`"choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,`+
		`"total_tokens":%d,"prompt_tokens_details":{"cached_tokens":%d}}}`, prompt, completion, prompt+completion, cached)
}

// ErrorChunk is an in-stream error event, as some gateways send mid-stream.
func ErrorChunk(code int, message string) string {
	return fmt.Sprintf(`{"error":{"message":%s,"type":"server_error","code":%d}}`, Quote(message), code)
}

// ToolFrag is one tool_calls entry of a delta. Empty ID and Name are omitted;
// NoIndex omits the index.
type ToolFrag struct {
	Index   int
	NoIndex bool
	ID      string
	Name    string
	Args    string
}

// ToolCallChunk is a chunk whose delta carries the given tool-call
// fragments, in order.
func ToolCallChunk(frags ...ToolFrag) string {
	parts := make([]string, len(frags))
	for i, f := range frags {
		parts[i] = f.json()
	}
	return DeltaChunk(`{"tool_calls":[`+strings.Join(parts, ",")+`]}`, "")
}

func (f ToolFrag) json() string {
	var b strings.Builder
	b.WriteByte('{')
	if !f.NoIndex {
		b.WriteString(`"index":` + strconv.Itoa(f.Index) + `,`)
	}
	if f.ID != "" {
		b.WriteString(`"id":` + Quote(f.ID) + `,"type":"function",`)
	}
	b.WriteString(`"function":{`)
	if f.Name != "" {
		b.WriteString(`"name":` + Quote(f.Name) + `,`)
	}
	b.WriteString(`"arguments":` + Quote(f.Args) + `}}`)
	return b.String()
}

// Quote encodes s as a JSON string, escaping only '"', '\\' and control
// characters; every other byte, invalid UTF-8 included, is kept as is.
func Quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c < 0x20:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
