package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/aitexteditor/aite/internal/cli"
	"github.com/aitexteditor/aite/internal/search"
)

type findFlags struct {
	exact, ranked, headings bool
	kinds                   []string
	within                  string
	limit                   int
}

func newFindCmd(o *options) *cobra.Command {
	f := &findFlags{}
	cmd := &cobra.Command{
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
		Args: minArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runFind(cmd, o, f, args[0], args[1:])
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.exact, "exact", false, "find the words as an exact phrase (document order)")
	fl.BoolVar(&f.ranked, "ranked", false, "rank the items by BM25 relevance (best first, with scores)")
	fl.BoolVar(&f.headings, "headings", false, "include headings")
	fl.StringSliceVar(&f.kinds, "kind", nil, "find only items of these kinds (repeatable or comma-separated)")
	fl.StringVar(&f.within, "within", "", "search only the section of the heading this pointer names")
	fl.IntVar(&f.limit, "limit", search.DefaultLimit, fmt.Sprintf("list at most this many items (1..%d)", search.MaxLimit))
	return cmd
}

func runFind(cmd *cobra.Command, o *options, f *findFlags, book string, words []string) error {
	req, err := findRequest(cmd, f, words)
	if err != nil {
		return err
	}
	b, err := cli.Open(book, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	defer b.Close()
	found, err := b.Find(req)
	if err != nil {
		return err
	}
	if o.json {
		return cli.WriteJSON(cmd.OutOrStdout(), found)
	}
	cli.WriteFound(cmd.OutOrStdout(), cmd.ErrOrStderr(), found)
	return nil
}

// findRequest checks the flags of find.
func findRequest(cmd *cobra.Command, f *findFlags, words []string) (cli.FindRequest, error) {
	req := cli.FindRequest{Words: words, Mode: cli.FindKeyword, Headings: f.headings, Within: f.within, Limit: f.limit}
	switch {
	case f.exact && f.ranked:
		return req, cli.Usagef("give either --exact or --ranked, not both")
	case f.exact:
		req.Mode = cli.FindExact
	case f.ranked:
		req.Mode = cli.FindRanked
	case !cmd.Flags().Changed("limit"):
		req.Limit = 0 // the keyword mode lists every match unless told
	}
	if err := cli.CheckSearchLimit(f.limit); err != nil {
		return req, err
	}
	var err error
	req.Kinds, err = cli.ParseKinds(f.kinds)
	return req, err
}
