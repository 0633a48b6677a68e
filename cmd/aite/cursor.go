package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/aitexteditor/aite/internal/cli"
	"github.com/aitexteditor/aite/internal/cursor"
)

type cursorFlags struct {
	keywords, kinds          []string
	regex, within, after     string
	maxElements, maxBytes    int
	backward, noContent, noH bool
}

func newCursorCmd(o *options) *cobra.Command {
	f := &cursorFlags{}
	cmd := &cobra.Command{
		Use:   "cursor BOOK.md",
		Short: "Walk the book through a cursor, portion by portion",
		Long: helpText(fmt.Sprintf(`Create one cursor over the book and print all its portions, the way the
agent reads a book: at most --max-elements items (1..%d) and --max-bytes
bytes of Markdown (1..%d) per portion; a portion always holds at least one
item, even one larger than --max-bytes.

The cursor walks every item (a full scan) unless filtered: --keywords keeps
the items that hold all the words of one keyword (compared by stem, ignoring
case and ё/е); repeat it to keep items matching any of the keywords.
--kind keeps some kinds, --regex the items whose plain text matches a Go
regular expression, --within the section of a heading; --no-headings drops
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
  aite cursor book.md --regex '\d{4}' --backward --start-after 1.1p2`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCursor(cmd, o, f, args[0])
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.keywords, "keywords", nil, "keep items holding all words of this keyword (repeatable: any keyword)")
	fl.StringSliceVar(&f.kinds, "kind", nil, "keep only items of these kinds (repeatable or comma-separated)")
	fl.StringVar(&f.regex, "regex", "", "keep only items whose plain text matches this regular expression")
	fl.StringVar(&f.within, "within", "", "keep only the section of the heading this pointer names")
	fl.IntVar(&f.maxElements, "max-elements", cursor.DefaultMaxElements, fmt.Sprintf("items per portion (1..%d)", cursor.MaxElementsLimit))
	fl.IntVar(&f.maxBytes, "max-bytes", cursor.DefaultMaxBytes, fmt.Sprintf("bytes of Markdown per portion (1..%d)", cursor.MaxBytesLimit))
	fl.BoolVar(&f.backward, "backward", false, "walk from the end of the book")
	fl.StringVar(&f.after, "start-after", "", "start after (backward: before) the item this pointer names")
	fl.BoolVar(&f.noContent, "no-content", false, "leave out the items' Markdown")
	fl.BoolVar(&f.noH, "no-headings", false, "skip headings")
	return cmd
}

func runCursor(cmd *cobra.Command, o *options, f *cursorFlags, book string) error {
	kinds, err := cli.ParseKinds(f.kinds)
	if err != nil {
		return err
	}
	req := cli.CursorRequest{Keywords: f.keywords, Kinds: kinds, Regex: f.regex, Within: f.within,
		MaxElements: f.maxElements, MaxBytes: f.maxBytes, Backward: f.backward, StartAfter: f.after,
		NoContent: f.noContent, NoHeadings: f.noH}
	if _, err := req.Spec(); err != nil {
		return err // before the book is read
	}
	b, err := cli.Open(book, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	defer b.Close()
	k := 0
	return b.Portions(req, func(p cursor.Portion) error {
		k++
		if o.json {
			return cli.WriteJSONLine(cmd.OutOrStdout(), p)
		}
		b.WritePortion(cmd.OutOrStdout(), k, p, !f.noContent)
		return nil
	})
}
