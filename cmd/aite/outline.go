package main

import (
	"github.com/spf13/cobra"
)

func newOutlineCmd(o *options) *cobra.Command {
	return readingCmd(o, "outline", &cobra.Command{
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
	})
}
