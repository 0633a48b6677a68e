// Package llmtest holds the model fakes every package's tests use; no test
// ever calls a live model.
//
//   - Scripted / ScriptedFunc: an llm.Provider answering with prepared
//     Replies (Text, Chunks, Reasoning, Calls, Join, Fail, FailAfter, and
//     faults: MalformedJSON, UnknownTool, Empty, Timeout), recording deep
//     copies of the requests.
//   - Server: a fake OpenAI-compatible HTTP endpoint that streams scripted SSE
//     chunks byte for byte (chunk builders: ContentChunk, ReasoningChunk,
//     ToolCallChunk, UsageChunk, FinishChunk, …), returns HTTP errors with
//     headers per request, and records the requests. Server.Provider points
//     the real adapter (llm/openai) at it. ServeProvider makes any
//     llm.Provider (a Scripted, an oracle) the server's answers, decoding
//     each Chat Completions request into an llm.Request; Listen starts a
//     server outside a test, to point the command line at by hand.
//   - Recorder / Replayer / RecordOrReplay: transcripts keyed by the SHA-256 of
//     the canonical request JSON, captured once against a real server with
//     AITE_RECORD=1 and replayed offline afterwards.
//   - NoSleep and Sleeps: retry sleeps that do not sleep.
package llmtest
