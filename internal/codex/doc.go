// Package codex is a book's reference data: an entry per character, place,
// object or organisation, glossary term, timeline event and style rule,
// each with a name, aliases, a description for the model, private notes,
// relations and facts with evidence pointers (a fact is known from its
// earliest evidence on: FactsAsOf).
//
// The package finds entries in a book's text without a model (Build,
// FindCandidates: names written with a capital letter in the middle of
// sentences, with their forms, titles, initials, patronymics and surnames
// that stand together), finds where an entry is mentioned (Matcher: every
// form of every name, the longest name winning), and reads and writes the
// codex as JSON and as a Markdown appendix. It knows nothing of models or
// files: the editor stores a book's codex, codex/assist adds the model's
// part, codex/codexgold measures it against the shared gold.
package codex
