// Package agentctx is the typed context model of the aite solution protocol
// (AGENT_PROTOCOL §1.3–§1.6): messages, folds, output paths, writes and
// references. It is pure data: no I/O, no model, no clock (dates are
// injected), and it imports only the standard library.
//
// # Model
//
// A Context is the ordered list of a run's messages. ParseMessage and
// ParseContext normalise JSON messages: a data-like message (input, state,
// data) carries its value either in a field named after its type or inline;
// the reserved keys (type, kind, schema, description, _instance) and the
// hidden write fields (_call, _date, _outputMethod, _path) are never part of
// the value. Aliases are resolved on input (kind:"advisor" → type:"advisor",
// persona → role, answer → schema, on:null → unset) and Message.Object
// emits primary names only.
//
// JSON values are kept in ordered form (see Decode): objects are *Object,
// which keeps insertion order, numbers are json.Number, and Encode never
// escapes HTML, so identical inputs give identical bytes (§2.2).
//
// A Fold replays the messages of one identity (kind, instance) oldest to
// newest: messages without _outputMethod deep-merge at the root, writes apply
// set, merge, push or erase at their _path. A View is the read side for one
// instance: per kind, the global fold deep-merged with the instance's fold,
// the instance winning; other instances never contribute. Read, Resolve and
// Write work against views and paths.
//
// Protocol failures are *Error values carrying the §4.9 code; compare them
// with errors.Is against the Err* sentinels. Skipped writes are Warnings on
// the fold, never errors.
//
// # Choices where the specification is silent
//
//   - Load errors (both value forms, both names of an alias, wrong field
//     types, unknown type, missing advisor id) use the code message_invalid.
//     A message without `type` is rejected unless it has kind:"advisor".
//   - kind:"advisor" marks an advisor when `type` is absent, "advisor" or
//     "data"; so "advisor" cannot be the kind of a data message.
//   - input and state messages may repeat their own kind but not carry
//     another one; a data kind must match `[A-Za-z_]\w*` (the path grammar).
//   - A message with _path but no _outputMethod is a set write. Writes carry
//     their value in `data` whatever their type (§1.5); a state write also
//     accepts `state`, both at once is an error. Writes are emitted with
//     `data`. Other `_`-prefixed keys are not reserved and stay in the value.
//   - A fold's schema and description are the newest ones present among its
//     messages (D1 keeps the schema of the first message). In an instance
//     view, the instance's schema wins and falls back to the global one.
//   - A write with an empty _path (path `†kind`) applies at the root; erase
//     there makes the kind not exist.
//   - Writes descend through arrays with numeric segments (-1 = last);
//     erase on an array element removes it. A scalar, null or missing
//     intermediate is replaced by an object (set, merge, push); a segment
//     that is not a valid index on an array skips the write with warning
//     path_not_traversable. Erase of a missing path is a no-op. A push onto
//     null is a push onto a non-array.
//   - A set or merge write without a value writes null.
//   - An advisor `on` conflict ignores only the `on` field of that patch: the
//     other fields still apply (A3 reads "patch of on ignored"). Re-sending
//     the same `on` is not a conflict.
//   - Tools keep the position of their first definition; a tool message may
//     define several tools. Advice keeps the position of the first advice of
//     each (id, instance) with the latest value.
//   - References: only top-level parameters whose whole string matches the
//     path grammar are references. A string that starts with `†` and contains
//     `||`, `&&`, `<|>` or `*>` is an expression: expression_unsupported.
//     ParsePath reports path_invalid for other non-paths; ParseOutputPath
//     reports path_not_writable for them and for the input kind.
//   - Unknown output methods are method_unsupported, like the reserved
//     assign and concat.
//   - Instances are the distinct `_instance` values of data-like messages by
//     first appearance; an empty or null `_instance` means global.
package agentctx
