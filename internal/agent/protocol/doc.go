// Package protocol is the aite solution protocol (AGENT_PROTOCOL v1): a
// protocol agent talks to its model through one structured solution per
// turn — advisor opinions, tool calls and an output — and the runtime turns
// that solution into dispatched calls, isolated sub-runs, advice, scoped
// context and human approvals.
//
// # Overview
//
//   - Agent, ToolDecl, Limits … describe an agent; Agent.Normalize applies
//     the defaults and Agent.Check the registry checks.
//   - Compose builds one turn's composition (tools, advisors, instances,
//     validation and wire schemas); Render renders the context into the
//     provider's system and user messages; BuildRequest and Extract map the
//     composition onto the provider (json_schema, respond tool, prompt);
//     Parse validates a reply into a Solution.
//   - ParseWeights, Tallies, NewMinMeanWeight observe and guard the advice;
//     Scope, NewScoped and Preview compute what a call may see.
//   - Runtime.Run runs the turn loop (§3, §4): compose → render → request
//     (BeforeRequest hooks, reasoning deltas streamed) → extract → parse →
//     repair → advice (snapshots, advice messages, OnAdvice) → drain (guard,
//     approval, scoped view, activity / sub-run / consultation, writes) →
//     errors fed back → output or limits (ledger).
//   - Runtime.Confirmer, Agent.ConfirmTools and Previewer are the call
//     confirmation extension (held calls shown together before they run).
//
// # Choices where the specification is silent
//
// Runtime:
//   - Run needs a normalised agent; registered delegate agents must be
//     normalised by whoever registers them (Normalize is not idempotent).
//   - A composition error, a provider error, a failing BeforeRequest hook and
//     the caller's context being done end Run with an error; nothing else
//     does. The run's own deadline (limits.RunTimeout, shared with sub-runs)
//     ends it with a ledger of cap "deadline", not an error.
//   - The limit notice (LM3) is added at turn maxTurns−1 only; a turn is
//     also final when exactly one model call is left in the model-call
//     budget. A final turn without output ends with FinishReason
//     "max_turns" (cap maxTurns) or, when the budget made it final,
//     "budget" (cap modelCalls).
//   - A repair is not attempted when the model-call budget has no call
//     left; the turn then ends as if the retries were exhausted.
//   - A turn whose repairs are exhausted appends one error without a call
//     (code RepairCode, solution_invalid when none, details.problems lists
//     the repair entries). When only required advisor entries are missing
//     the solution proceeds with the warning advisor_missing.
//   - Errors of a turn with output are reported (tool.result, OnError) but
//     not appended to the context (LM1 "not fed back").
//   - Calls rejected at parse time get no tool.start/tool.result events;
//     their errors are fed back like the others.
//   - Ledger: turns, modelCalls, repairs and toolCalls count the run's own
//     work (consultations included, the sub-runs' own calls not); tokens sum
//     the run and its sub-runs, like RunResult.Usage; lastErrors holds the
//     codes of the last 5 errors of the run; pendingCalls lists calls not
//     dispatched when a tool-call budget or the deadline stopped the drain.
//   - Steps of a consultation are emitted with Stage "consult" (in a
//     sub-run: "delegate").
//
// Drain:
//   - Latent calls go through the guards too (before their write); the
//     built-in ConsultAdvisor is never guarded (consulting is how votes are
//     gathered). Latent calls do not count in the tool-call budget;
//     activities, sub-runs and consultations do (a consultation also takes
//     one model call).
//   - The turn's tallies (snapshots, steps, OnAdvice) aggregate all the
//     turn's opinions, instanced ones included; a guard gets the tally of
//     the call's instance (its entries plus non-instanced ones).
//   - The scoped view is computed from the context as it was when the call
//     became ready. A call that used references has its resolved parameters
//     checked against the tool's parameters (call_invalid otherwise).
//   - An activity error is activity_failed, or activity_timeout when it wraps
//     context.DeadlineExceeded or an llm timeout; a panicking activity is
//     activity_failed. The runtime adds no per-call timeout of its own.
//   - Messages returned by an activity must survive a round trip through
//     agentctx.MessageFromObject, else the call fails with activity_failed.
//   - An unpathed result is logged globally at †data.results as {turn, tool,
//     instance (only when set), result}; a ConsultAdvisor result is stored as
//     advice only (no results log). An erase method writes even when the
//     activity returns no value.
//   - Guard warnings and parse/extraction warnings end up in
//     RunResult.Warnings.
//   - OnWrite is called for every message a call appends (writes, results
//     log, activity messages), not for advice and errors.
//
// Approval:
//   - Remembered grants are keyed by (agent key, tool) and shared by the
//     whole run tree; the union of the remembered scopes covers a request.
//     Chat grants are written as push writes at the root of the internal
//     kind `_grants` (GrantsFromContext reads them back) at the end of the
//     top run's turn.
//   - Only a request put to the Approver emits scope.request; memory and
//     policy decisions ("auto", "deny", no approver) emit scope.decision
//     only. The decision event carries the effective grant (provisioned ∪
//     approved); an invalid narrow is reported as a deny.
//   - The Approver runs on its own goroutine: when it outlives the timeout
//     the decision is "timeout" (and the goroutine is left to finish).
//
// Call confirmation (an aite extension: § 6.3 applies edits directly until
// Plan DAG approval gates ship; the issue wants all edits shown before they
// apply):
//   - Agent.ConfirmTools names explicit or delegated tools whose calls are
//     confirmed; Approval.Calls is "ask" (default) or "auto" (no
//     confirmation). Latent tools and ConsultAdvisor cannot be listed.
//   - A ready call of a confirm tool passes the guard and the scope
//     approval, gets its scoped view and, when its activity implements
//     Previewer, a preview; then it is held. When nothing runs and nothing
//     else is ready, every held call of the drain goes to the Confirmer in
//     ONE CallConfirmation (ApprovalID "calls:<first tool id>", calls in
//     index order, resolved arguments). Approved calls are then dispatched
//     (they take their tool-call budget only now) and may unblock further
//     calls, which may lead to a second request in the same drain.
//   - A refused call gets call_denied (details {decision, reason,
//     approvalId}) and a failed tool.result, and is fed back; the timeout
//     (Approval.Timeout, shared with scope approvals) denies all with the
//     decision "timeout"; a Confirmer error, panic, unknown verdict or id
//     outside the request fails all with approval_failed (the decision
//     event then says deny with the reason). No Confirmer under "ask":
//     denied with the reason "no approver" (decision event only).
//   - A failing preview fails that call with activity_failed without
//     asking (the call would fail the same way). Previews of several held
//     calls are each computed on the context as it was when the call became
//     ready, not on the result of the others.
//   - Events: EvConfirmRequest (only when put to a Confirmer) and
//     EvConfirmDecision, forwarded from sub-runs with ParentToolID; the
//     observer Hooks.OnCallDecision sees every decision. Calls held when the
//     run stops (deadline, cancellation) are listed as pendingCalls.
//
// Delegates:
//   - The sub-context's Input carries the call's resolved parameters; the
//     sub-run's chat is always fresh (FirstOfChat true). The child's output
//     is written like an activity value (unpathed: logged). The
//     delegate_no_result details are {ledger: <child ledger>}.
//   - The anonymous sub-agent copies the parent's model, response format,
//     reasoning field, repair retries and approval settings.
//   - Sub-run events carry the top run's id, the delegate call's tool id as
//     ParentToolID and their depth.
package protocol
