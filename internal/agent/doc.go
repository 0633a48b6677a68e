// Package agent is aite's one agent runtime: the CLI (aite ask, aite chat,
// aite eval) and the server (POST /api/ap/query) run every agent through
// Runner.Run(ctx, Spec), an iterator of events.
//
// A run is an explicit state machine with named endings (run.complete:
// stop, timeout, max_turns, budget; run.error with a code). Its turn
// strategy is chosen by the agent definition (agentdef):
//
//   - oneshot, react and planExecute: the platform modes ONESHOT, REACT
//     and PLAN_EXECUTE of PLATFORM_API § 6 with their budgets, toolChoice
//     and repair rules, prompt assembly (§ 6.2), chat memory (§ 5.2), the
//     tool kinds backend / frontend / action (§§ 4, 7.1), the plan tools
//     (§ 6.5) and the skill tool (§ 7.2);
//   - solution: an agent with a protocol block runs the solution protocol
//     of AGENT_PROTOCOL, whose algebra (compose, render, parse, weights,
//     scopes, drain) is package protocol.
//
// Everything around a turn exists once and serves every strategy: model
// resolution (ModelSource) with the per-call timeout and the one reconnect
// (modelretry.go), tool invocation with its timeout, retries and panic
// recovery (invoke.go), the waits for a person (one Waiter: frontend calls,
// scope approvals, edit approvals), chat memory (one Memory), event
// emission (one closed vocabulary, Event; emit.go) and the run's ending
// (run.go).
//
// The runtime knows nothing about HTTP, the wire or documents: the server's
// assembler maps the events to the SSE model of PLATFORM_API and parses
// /submit into typed answers for the Waiter (Waits); the CLI prints them and
// asks at the terminal. The Go backend tools of a run, its native protocol
// activities and its context providers come with its Spec (the server binds
// the book tools to the run's document and reports applied edits in
// tool.Result.Edits, with Edit.Book = the documentId and Edit.Revision set;
// activities report theirs with tool.ReportEdit).
package agent
