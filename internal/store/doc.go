// Package store defines the persistence boundary of the aite platform: the record types of
// chats, runs, messages, system snapshots, events, plans, documents, document edits and
// cursor-agent task states, and the small interfaces (one per area, combined in Store) through
// which everything else reaches them.
//
// Backends live below this package: store/sqlite (the default, one SQLite file) and
// store/memory (for tests of other packages). Both run the same conformance suite,
// store/storetest, so a later PostgreSQL backend has a precise contract to meet.
//
// Rules every backend keeps:
//   - Nothing is ever deleted: there are no delete methods, and updates never drop history rows.
//   - Times are kept in UTC with millisecond precision (see StoredTime); callers pass every time,
//     so tests never depend on a clock.
//   - JSON bodies are kept byte for byte as given (key order, spacing, unicode escapes).
//   - Errors wrap ErrNotFound, ErrExists, ErrConflict or ErrInvalid with %w and context.
//   - Results are copies: changing a returned record never changes the store.
package store
