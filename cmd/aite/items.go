package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/aitexteditor/aite/internal/cli"
)

type itemsFlags struct {
	from  string
	limit int
	kinds []string
}

func newItemsCmd(o *options) *cobra.Command {
	f := &itemsFlags{}
	cmd := &cobra.Command{
		Use:   "items BOOK.md",
		Short: "List the book's items in order, with pointers, kinds and excerpts",
		Long: helpText(fmt.Sprintf(`List the book's items in document order: one line per item with its
pointer, its kind and the first %d characters of its text. --from starts at
an item, --kind keeps only some kinds, --limit caps the list (1..%d). When
more items follow, standard error says where to continue.

JSON: {"items": [{"pointer", "id", "label", "kind", "level", "index",
"containers", "markdown", "text"}], "next": POINTER}; "next" is omitted
when no item follows.`, cli.ExcerptRunes, cli.MaxLimit)),
		Example: `  aite items book.md --limit 20
  aite items book.md --from 1.2 --kind heading,quote
  aite items --json book.md --kind Code --kind Table`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runItems(cmd, o, f, args[0])
		},
	}
	cmd.Flags().StringVar(&f.from, "from", "", "start at the item this pointer names")
	cmd.Flags().IntVar(&f.limit, "limit", 50, fmt.Sprintf("list at most this many items (1..%d)", cli.MaxLimit))
	cmd.Flags().StringSliceVar(&f.kinds, "kind", nil, "list only items of these kinds (repeatable or comma-separated)")
	return cmd
}

func runItems(cmd *cobra.Command, o *options, f *itemsFlags, book string) error {
	if err := cli.CheckLimit(f.limit); err != nil {
		return err
	}
	kinds, err := cli.ParseKinds(f.kinds)
	if err != nil {
		return err
	}
	b, err := cli.Open(book, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	defer b.Close()
	v, err := b.Items(f.from, f.limit, kinds)
	if err != nil {
		return err
	}
	b.WarnStale(cmd.ErrOrStderr(), f.from)
	if o.json {
		return cli.WriteJSON(cmd.OutOrStdout(), cli.NewItemList(v))
	}
	cli.WriteItemLines(cmd.OutOrStdout(), v.Items, "")
	switch {
	case len(v.Items) == 0:
		fmt.Fprintln(cmd.ErrOrStderr(), "no items")
	case v.Next != "":
		fmt.Fprintf(cmd.ErrOrStderr(), "more items follow: continue with --from %s\n", v.Next)
	}
	return nil
}
