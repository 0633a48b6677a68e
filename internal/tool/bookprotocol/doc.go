// Package bookprotocol maps the book editor onto the aite solution protocol
// (AGENT_PROTOCOL § 6): the Go activities of the book tools, the reference
// card providers, and the definition files of three protocol agents —
// bookEditorProtocol (the book editor with the editGate advisor and its
// guard), cursorAgent (the cursor sub-agent, delegate of run_cursor_agent)
// and paragraphEditor (delegate of rewrite_paragraph) — with their tool
// files.
//
// # Activities
//
// Activities(env) binds the activities to an editor session and book:
//
//	read_cursor_batch {cursorName, startAfterPointer?} → the whole `batch` kind
//	note_evidence {pointer, reason}   scoped `batch`; pushes {pointer, reason, markdown} to †state.found
//	create_keyword_cursor, create_full_scan_cursor, create_filtered_cursor, read   booktools' tools, reused
//	create_targets {label, pointers}  one `state` per target, instances t1…tN, plus †state.targets
//	replace_text {pointer, newMarkdown}, insert_after / insert_before {pointer, markdown}, delete_item {pointer}
//
// Choices where the specification is silent:
//
//   - The batch position is not kept in the session: read_cursor_batch
//     takes startAfterPointer (null for the start, then the reference
//     "†batch.nextAfterPointer") and walks a private copy of the named
//     cursor, so the session cursor never moves, parallel sub-runs over one
//     cursor do not interfere and a repeated call returns the same batch.
//     A cursor created without limits is read 8 items / 12000 bytes at a time
//     when it is pre-filtered (keywords, search), else 24 items / 16000 bytes.
//     `position` is {startAfterPointer, remaining}. An empty batch keeps
//     nextAfterPointer where the read started.
//   - Failures the model can act on (a bad pointer, a pointer outside the
//     batch, a refused edit, an unknown cursor) are *Error values with
//     booktools' codes and texts; the runtime feeds them back as
//     activity_failed and writes nothing. I/O failures stay plain errors.
//   - create_targets checks every pointer before creating anything; items
//     named twice are kept once with a warning in †state.targets.warnings.
//     The instance numbers continue after the previous set's (read through
//     the provisioned scope †state.targets), so an old instance's proposal is
//     never mistaken for a new one. The set is also stored as a session
//     target set under its label.
//   - The edit activities run booktools' edit tools (so their structural
//     checks and error texts are the same) and return {ok, op, target,
//     pointer?, oldMarkdown, newMarkdown}. The applied edits (tool.Edit, with
//     the server's Revision when Options.Tools are the server's persisted
//     tools) reach the host through Options.OnEdit, called with the call
//     (its ToolID) before the activity returns; the server turns them into
//     document.edit events.
//   - The edit activities are protocol.Previewers (edit approval): Preview
//     returns {pointer, op, oldMarkdown, newMarkdown} from the editor's dry
//     run (editor.Session.PreviewEdit: the same checks, nothing changed),
//     pointer being the target; a refusal is the same *Error as the edit's.
//     bookEditorProtocol lists the four edit tools in
//     protocol.approval.confirmTools, so each edit waits for the user.
//
// # Reference cards
//
// Providers(env) gives book.characters, book.glossary and book.styleGuide
// (frozen `data` messages of kinds characters, glossary and styleGuide): from
// a sidecar novel.cards.json beside a book file, else from an appendix
// section of the book ("Characters", "Glossary", "Style guide", or their
// Russian names); absent → no message.
//
// # Definition files
//
// Files(cfg) returns the agent, tool and viewport files (JSON, § 5.1 and
// § 5.2 formats, strict JSON without comments) for the built-in definitions.
package bookprotocol
