// Package search is the search layer of the book core (BOOK_CORE § 8): an
// inverted index over the plain Text of a document's items, ranked keyword
// search (BM25) and exact normalised phrase search. Search accelerates the
// cursor: every result is a pointer (plus a short snippet); the text itself
// is read through the document or a cursor made from the results.
//
// All analysis goes through textnorm, so the book and the query are
// normalised identically: a word matches a query word iff their textnorm
// stems are equal, and a phrase matches iff textnorm.MatchPhrase says so.
//
// An Index reflects one version of one document. Update re-indexes the
// items an edit touched; a query on a stale index (the document's version
// moved on without an Update) first brings the index up to date by
// comparing every item's Text with the indexed one and re-indexing the
// differences, which gives exactly the index a fresh Build would.
//
// Search by meaning (vectors.go, hybrid.go, vecfile.go) is kept apart from
// the inverted index: Vectors holds an embedding per item text, through an
// Embedder the caller supplies (this package imports nothing of models or
// HTTP), answers by cosine similarity, and Fuse combines rankings by
// reciprocal rank fusion.
//
// Concurrency: the Document is not safe for concurrent use, so callers
// serialise edits and searches on it under their own lock. The Index itself
// guards its state with a read/write mutex: concurrent read-only calls
// (ItemsWithAll, ItemsMatching, Ranked, Exact) are safe, and the one
// mutation a read path may need (bringing a stale index up to date) is done
// under the write lock.
package search
