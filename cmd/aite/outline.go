package main

import (
	"github.com/spf13/cobra"

	"github.com/aitexteditor/aite/internal/cli"
)

func newOutlineCmd(o *options) *cobra.Command {
	return &cobra.Command{
		Use:   "outline BOOK.md",
		Short: "Print the heading tree with pointers and item counts",
		Long: helpText(`Print the book's heading tree: each heading's pointer and title, the
number of items directly under it and, when it has subsections, the number
of items under it in all. Subsections are indented two spaces per depth.
A first line counts the items before the first heading, if any.

JSON: {"preamble": N, "sections": [{"pointer", "id", "label", "level",
"title", "items", "total", "children": [...]}]}`),
		Example: `  aite outline book.md
  aite outline --json book.md`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := cli.Open(args[0], cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer b.Close()
			ol, err := b.Outline()
			if err != nil {
				return err
			}
			if o.json {
				return cli.WriteJSON(cmd.OutOrStdout(), ol)
			}
			cli.WriteOutline(cmd.OutOrStdout(), ol)
			return nil
		},
	}
}
