package main

import (
	"github.com/spf13/cobra"
)

func newReadCmd(o *options) *cobra.Command {
	return readingCmd(o, "read", &cobra.Command{
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
	})
}
