// Package agentdef loads the definitions of the agent platform from their
// directories (PLATFORM_API §§ 6.1, 7.1–7.3, 7.5) into immutable
// registries: agents (agents/*.json), tools (tools/*.backend, *.frontend,
// *.action, and the protocol kinds *.latent, *.delegate), skills (skills/<id>/SKILL.md) and viewports
// (viewports/<key>.html, *.qlc). Models are llm/models'; agents are checked
// against them through ModelLookup.
//
// [Load] (or [Loader]) reads everything into a [Snapshot]; a [Watcher]
// polls the directories and swaps in a new snapshot when they change;
// [WriteBuiltins] writes the embedded built-in files at startup. Problems
// are [Warning]s and never stop the other files from loading; a rejected
// agent is one warning, whose String is the log line
// "agent rejected file=<path> field=<json path> reason=<text>".
//
// # Choices where the contract is silent
//
// Agent files:
//   - Unknown fields are ignored with a warning (so a typo is visible);
//     only the fields § 6.1 lists as rejected reject the agent. A field
//     written twice is a warning, the last one counts. Wrong JSON types
//     reject the agent. null means "not written", except for a stage's
//     toolConfig (no ordinary tools) — and a null top-level toolConfig
//     also means none.
//   - Rejected fields, besides those named per location in § 6.1: the
//     legacy fields (deepThink, providerKey, model, reasoning, tools,
//     verify, output, toolPolicy) are rejected at the top level and in
//     every stage block (plain, react, planExecute and its plan, execute,
//     summary). apiKey, api_key, baseUrl and base-url are matched at any
//     depth, case-insensitively and ignoring '-' and '_' (so baseURL and
//     api-key too). The first rejected field in document order is the one
//     reported.
//   - Enum values (mode, toolChoice, effort) are accepted in any case and
//     stored upper-case.
//   - A stage's modelConfig replaces the top-level one as a whole, but a
//     modelKey it lacks is the top-level one (§ 1.3: "a stage's value
//     beats the top-level one"). A null stage modelConfig inherits. Every
//     stage must end up with a modelKey, not just the agent (a stage
//     without a model could not run).
//   - Budget and maxSteps members that are 0 (or absent) take the mode
//     default; negative ones reject. model.retryCount 0 means the mode's
//     repair retries (§ 6.3 table), tool.retryCount defaults to 0.
//     temperature must lie in [0, 2], top_p in [0, 1], max_tokens > 0.
//   - The mode's block must exist; blocks of other modes are ignored with
//     a warning. planExecute.summary is optional; a blank summary prompt
//     is the execute one.
//   - Tool names are lowercased; unknown ones are dropped with a warning
//     (known: the tool files, the Go implementations passed as Backends,
//     and in PLAN_EXECUTE agents the plan tools — elsewhere those are
//     dropped). A name listed under the wrong kind (a frontend tool under
//     backends) is kept with a warning: the kind comes from the tool file.
//     Unknown skill ids are dropped with a warning too.
//
// Protocol agents (AGENT_PROTOCOL § 5.1: a `protocol` block, `advisors`,
// toolConfig `latents` and `delegates`):
//   - The protocol block is checked, not defaulted: a zero value or nil
//     pointer is "not written" and the protocol runtime applies its
//     defaults. `protocol: null` is no protocol block. Limits and timeoutMs
//     of 0 mean the default, negative ones reject; repairRetries and
//     errorWindow keep 0 as a value (nil pointers when not written). Enums
//     (responseFormat, unpathedResults, approval.requestedScopes,
//     guard.onNoVotes) are accepted in any case and stored lowercase.
//     reasoningField must be _reasoningForCall, _why or "" (off, kept apart
//     from "not written" by ReasoningOff). guard weights lie in [0, 100];
//     guard tools that are not the agent's are kept with a warning (they
//     never match; dropping them would widen the guard to all tools).
//   - protocol.approval.confirmTools (aite extension, edit approval) lists
//     the tools whose calls the user confirms before they run; names are
//     lowercased and de-duplicated, a blank one or a latent tool rejects
//     the agent, one that is not the agent's is kept with a warning (no
//     call of it can happen). protocol.approval.calls is ask or auto (any
//     case).
//   - outputSchema and inputSchema must be JSON Schema objects (resolved
//     with jsonschema-go); outputText must name a string property of
//     outputSchema when that lists properties. protocol.context entries must
//     parse as context messages (agentctx); an entry with `provider` must
//     be an input, state or data message with a non-blank provider name and
//     no value. JSON Schemas in protocol keys are exempt from the apiKey /
//     baseUrl rule (their property names describe data).
//   - advisors, latents or delegates (even empty lists) without a protocol
//     block reject the agent, as does a PLAN_EXECUTE protocol agent.
//     toolChoice on a protocol agent is ignored with a warning (even an
//     invalid value) and ToolChoice takes the mode default.
//   - Advisor entries are kept as written (AgentDef.Advisors; see
//     AdvisorMessages). Each needs a non-blank string id; type and kind, if
//     written, must be "advisor"; role with persona, or schema with answer,
//     reject; on must be request, start, finish or null (exact case); the
//     answer schema must be a JSON Schema object without the properties id,
//     calls or _instance; scopes must be kinds or paths, never internal
//     kinds nor system; weight >= 0. Unknown advisor fields are warnings.
//     Entries sharing an id are patches: a later `on` different from the
//     first one written rejects the agent (A3).
//   - .latent and .delegate tools are for protocol agents only: an ordinary
//     agent listing one (under any list) has it dropped with a warning,
//     like an unknown name. A protocol agent lists them under latents and
//     delegates (another list works, with the wrong-kind warning); they
//     join the enabled set Tools. A delegate tool whose `_delegate` names
//     no loaded protocol agent is dropped from protocol agents with a
//     warning (DG1; "anonymous" needs no agent).
//
// Tool, skill and viewport files:
//   - Tool files may use relaxed JSON as well. Unknown fields of a tool
//     entry are ignored silently (the format follows model APIs). A
//     missing parameters is {"type":"object","properties":{}}. Names must
//     match [a-z0-9_-]{1,64} once lowercased. A frontend or action tool
//     that takes the name of a Go-implemented backend tool is skipped;
//     a frontend tool without a viewport of its key is a warning only.
//   - Meta-properties (`_`-properties of parameters.properties, AGENT_PROTOCOL
//     § 1.4) stay in Parameters as written; LLMTool (what ordinary agents
//     send) uses StrippedParameters, without them and without their names
//     in required. A .latent entry without `_output`, a .delegate entry
//     without `_delegate`, a `_delegate` that is not {"const": <agent key
//     or "anonymous">}, and a `_scopes` that is neither {"const": [...]} nor
//     {"type": "array", "items": {"enum": [...]}} (optionally with
//     "provisioned": [...]), or that names an internal kind or system, are
//     skipped with a warning. Like frontend tools, latent and delegate
//     tools may not take the name of a Go-implemented backend tool.
//   - Skill ids follow the agent key rule; two directories whose names
//     differ only in case: the first in name order wins. The front matter
//     is read as simple YAML (key: value, quoted values, | and > blocks).
//     The prompt is the trimmed body, cut at MaxSkillPromptChars runes.
//   - A .qlc file must hold one JSON object (strict JSON).
//   - Dot-files are ignored everywhere (editors' temporary files, and
//     WriteBuiltins' own); other files with an unexpected suffix are
//     ignored with a warning; subdirectories of agents/, tools/ and
//     viewports/ are ignored.
//
// Reloading: a directory that cannot be read keeps its previous registry;
// a file that cannot be read or parsed ("broken": not relaxed JSON, a tool
// file without a tools array, an invalid .qlc) keeps its previous version,
// with a warning; a file that parses but is rejected is dropped (its
// agent disappears), as is a deleted file. Every reload re-reads all the
// directories, so agents are always checked against the current tools,
// skills and models. A missing directory at the first load is a warning
// and an empty registry.
package agentdef
