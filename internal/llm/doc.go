// Package llm is the provider-neutral model layer: messages, tool calls,
// requests, streamed events, usage and cost, typed provider errors, and a
// structured-output helper.
//
// A model backend implements [Provider]: one method that streams a model turn
// as an iter.Seq2[Event, error]. Deltas (text, reasoning, tool-call argument
// fragments) are yielded as they arrive, one event per upstream delta, never
// merged or re-chunked, so callers can forward them at once. [Collect] folds a
// stream into one assistant [Message] when the caller does not need the
// deltas.
//
// Event order within one turn:
//
//	(reasoning_delta | text_delta | tool_call_start tool_call_delta* tool_call_end)* usage? finish
//
// A tool call's tool_call_end follows its last fragment as soon as the
// upstream moves on to another call or the turn ends, and carries the complete
// call. A usage event carries the cumulative usage of the call so far (the
// last one wins); providers that report no usage send none. A stream that
// fails yields one final (zero Event, error) pair; the error is an [*Error]
// whose Kind says whether a retry may help.
//
// Optional provider abilities are separate one-method interfaces
// ([StructuredProvider]). This package imports no other package of the module.
package llm
