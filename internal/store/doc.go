// Package store defines the persistence boundary of the aite platform: the record types of
// chats, runs, messages, system snapshots, events, plans, documents, document edits and
// cursor-agent task states, and the small interfaces (one per area, combined in Store) through
// which everything else reaches them.
//
// Backends live below this package: store/sqlite (the default, one SQLite file),
// store/postgres (one PostgreSQL database that several server processes share) and
// store/memory (for tests of other packages). All run the same conformance suite,
// store/storetest. A store several processes (nodes) share adds the optional abilities of
// cluster.go: run leases, a feed of run events across the nodes, document locks.
//
// Rules every backend keeps:
//   - Nothing is ever deleted: there are no delete methods, and updates never drop history rows.
//   - Times are kept in UTC with millisecond precision (see StoredTime); callers pass every time,
//     so tests never depend on a clock.
//   - JSON bodies are kept byte for byte as given (key order, spacing, unicode escapes).
//   - Errors wrap ErrNotFound, ErrExists, ErrConflict or ErrInvalid (or, on a shared store,
//     ErrNotOwner) with %w and context.
//   - Names, contents and texts keep any bytes (a NUL, invalid UTF-8).
//   - Results are copies: changing a returned record never changes the store.
package store
