package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/aitexteditor/aite/internal/search"
)

func newFindCmd(o *options) *cobra.Command {
	return readingCmd(o, "find", &cobra.Command{
		Use:   "find BOOK.md WORD...",
		Short: "Find the items that mention words, with pointers",
		Long: helpText(fmt.Sprintf(`Find the items of the book that mention WORD... and print one line per
item: its pointer, its kind and an excerpt with the matches in **bold**.
Words are compared by stem, ignoring case and ё/е, in Russian and English:
"Звёздочкин" also finds "Звездочкина" and "Звёздочкину".

By default every item that holds all the words (anywhere, in any order) is
listed in document order. --exact lists the items that hold the words as a
phrase (consecutive, punctuation ignored), in document order; --ranked
ranks the items that hold any of the words by BM25 relevance, best first,
and prints the score after the kind. --limit caps the list (1..%d; exact
and ranked default to %d, the default mode lists every match unless
--limit is given).

Headings are left out unless --headings. --kind keeps only some kinds;
--within searches only the section of a heading. The last line on standard
error counts the items.

JSON: {"mode": "keyword"|"exact"|"ranked", "query", "results": [{"pointer",
"id", "label", "kind", "index", "score", "snippet", "text"}]}; "score"
(BM25) is set by --ranked only, "snippet" (with ** ** around the matches)
by --exact and --ranked, "text" (the item's plain text) by the default
mode.`, search.MaxLimit, search.DefaultLimit)),
		Example: `  aite find book.md Звёздочкин
  aite find book.md часы башня --headings --kind paragraph,quote
  aite find book.md --exact "часы на башне"
  aite find book.md --ranked Варя часы --limit 5 --within 1.2
  aite find --json book.md Варя`,
	})
}
