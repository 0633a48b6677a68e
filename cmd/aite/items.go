package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/aitexteditor/aite/internal/reading"
)

func newItemsCmd(o *options) *cobra.Command {
	return readingCmd(o, "items", &cobra.Command{
		Use:   "items BOOK.md",
		Short: "List the book's items in order, with pointers, kinds and excerpts",
		Long: helpText(fmt.Sprintf(`List the book's items in document order: one line per item with its
pointer, its kind and the first %d characters of its text. --from starts at
an item, --kind keeps only some kinds, --limit caps the list (1..%d). When
more items follow, standard error says where to continue.

JSON: {"items": [{"pointer", "id", "label", "kind", "level", "index",
"containers", "markdown", "text"}], "next": POINTER}; "next" is omitted
when no item follows.`, reading.ExcerptRunes, reading.MaxLimit)),
		Example: `  aite items book.md --limit 20
  aite items book.md --from 1.2 --kind heading,quote
  aite items --json book.md --kind Code --kind Table`,
	})
}
