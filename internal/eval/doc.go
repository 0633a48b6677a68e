// Package eval measures a model on a book before anyone trusts it with the
// book: it generates tasks whose answers are known from the book itself,
// runs each through the real agents on a fresh copy of the book, scores the
// result against the gold, and reports accuracy, model calls, tokens, cost
// and time per family of tasks, against the cost of sending the whole book
// in one prompt (ρ).
//
// The gold comes from the book's search index (every form of a name, the
// items that hold it, in document order) and from its outline (chapters).
// The codex (issue 18) is not part of the build yet; when it is, its
// entries and aliases are the natural source of the names (see Names).
//
// Generation is deterministic: the same book, seed and options give the
// same plan, byte for byte.
//
// Scoring sees only what a user would see: the agent's answer (the command
// agent's reply, or the cursor agent's result) and the book file after the
// run. A task is
//
//   - exact when the answer names the gold item(s) or count, or the book
//     after an edit task is byte for byte the book with the gold edit
//     applied (right target, nothing else changed) and undo restores the
//     original;
//   - failed (honestly) when the agent reports that it did not finish: the
//     run ended with an error or out of steps, the cursor agent's result is
//     not a success (nothing found, unjudged items, step limit), the reply
//     says "ANSWER: none", gives no ANSWER line, or an edit task left the
//     book unchanged without claiming otherwise;
//   - wrong otherwise: a claimed answer that is not the gold, an edit that
//     changed the wrong item or anything else, or a claim of "done" that
//     changed nothing.
//
// The agents are reached through one interface, Runner, which runs one
// command on a copy of the book; internal/cli implements it with the code
// behind `aite ask` and `aite navigate`.
package eval
