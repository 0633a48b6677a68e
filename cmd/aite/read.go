package main

import (
	"github.com/spf13/cobra"

	"github.com/aitexteditor/aite/internal/cli"
)

type readFlags struct {
	before, after int
}

func newReadCmd(o *options) *cobra.Command {
	f := &readFlags{}
	cmd := &cobra.Command{
		Use:   "read BOOK.md POINTER",
		Short: "Print an item's Markdown, with neighbours before and after it",
		Long: helpText(`Print the Markdown of the item POINTER names and of up to --before items
ahead of it and --after items behind it (0..200 each). Each item follows a
header line with its pointer and kind; ▶ marks the named item.

JSON: {"target": POINTER, "items": [{"pointer", "id", "label", "kind",
"level", "index", "containers", "markdown", "text"}]}`),
		Example: `  aite read book.md 24:1.1.p21
  aite read book.md 1.1.p21 --before 2 --after 2
  aite read --json book.md 24`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRead(cmd, o, f, args[0], args[1])
		},
	}
	cmd.Flags().IntVar(&f.before, "before", 0, "also print this many items before it")
	cmd.Flags().IntVar(&f.after, "after", 0, "also print this many items after it")
	return cmd
}

func runRead(cmd *cobra.Command, o *options, f *readFlags, book, ptr string) error {
	if err := cli.CheckNeighbours(f.before, f.after); err != nil {
		return err
	}
	b, err := cli.Open(book, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	defer b.Close()
	v, err := b.Read(ptr, f.before, f.after)
	if err != nil {
		return err
	}
	b.WarnStale(cmd.ErrOrStderr(), ptr)
	if o.json {
		return cli.WriteJSON(cmd.OutOrStdout(), cli.NewRead(v))
	}
	cli.WriteRead(cmd.OutOrStdout(), v)
	return nil
}
