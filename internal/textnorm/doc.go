// Package textnorm normalises text for matching: searching, indexing and
// highlighting. The stored book is never normalised; every function here
// works on a copy, and token offsets always refer to the original text.
//
// The rules (design doc, "Text normalisation and stemming"):
//
//   - Matching is case-insensitive. Fold applies Unicode simple case
//     folding (see Fold for the exact definition) and maps ё/Ё to е.
//   - Runs of whitespace collapse to one space (NormalizeSpace).
//   - Punctuation, dashes, quotes, whitespace and invalid UTF-8 bytes are
//     word boundaries (Tokenize).
//   - Words are stemmed with the Snowball Russian stemmer if their letters
//     are Cyrillic and with the Snowball English stemmer if they are Latin.
//     Mixed-script words (and words in other scripts) are only folded.
//   - The query goes through exactly the same normalisation as the text
//     (Terms, NewMatcher, MatchPhrase).
//
// Everything in this package is safe for concurrent use and never panics
// on malformed input.
package textnorm
