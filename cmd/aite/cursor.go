package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/aitexteditor/aite/internal/cursor"
)

func newCursorCmd(o *options) *cobra.Command {
	return readingCmd(o, "cursor", &cobra.Command{
		Use:   "cursor BOOK.md",
		Short: "Walk the book through a cursor, portion by portion",
		Long: helpText(fmt.Sprintf(`Create one cursor over the book and print all its portions, the way the
agent reads a book: at most --max-elements items (1..%d) and --max-bytes
bytes of Markdown (1..%d) per portion; a portion always holds at least one
item, even one larger than --max-bytes.

The cursor walks every item (a full scan) unless filtered: --keywords keeps
the items that hold all the words of one keyword (compared by stem, ignoring
case and ё/е); repeat it to keep items matching any of the keywords.
--entry NAME walks the items naming a codex entry by any of its names
(see 'aite codex'), --targets NAME the items of a target set saved by
'aite navigate --save' (see 'aite targets'), in document order. --kind
keeps some kinds, --regex the items whose plain text matches a Go regular
expression, --within the section of a heading; --no-headings drops
headings. --backward walks from the end; --start-after starts after (when
backward, before) the item a pointer names; --no-content leaves out the
Markdown.

Text: a header line per portion, "── portion K: N items, B bytes ──", then
one "POINTER  KIND  excerpt" line per item.

JSON (--json): one portion object per line (JSON lines), as the cursor
returns it: {"cursorName", "items": [{"pointer", "kind", "level", "index",
"markdown"}], "hasMore", "nextAfterPointer"}; "level" is set for headings,
"markdown" unless --no-content, "nextAfterPointer" when the portion has
items.`, cursor.MaxElementsLimit, cursor.MaxBytesLimit)),
		Example: `  aite cursor book.md --max-elements 50
  aite cursor --json book.md --keywords "Варя часы" --keywords Звёздочкин
  aite cursor book.md --kind quote --within 1.2 --no-content
  aite cursor book.md --regex '\d{4}' --backward --start-after 1.1p2
  aite cursor book.md --targets clock --within 1.2`,
	})
}
