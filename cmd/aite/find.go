package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/aitexteditor/aite/internal/cli"
	"github.com/aitexteditor/aite/internal/search"
)

type findFlags struct {
	exact, ranked, headings bool
	semantic, hybrid        bool
	kinds                   []string
	within, entry           string
	embedModel, config      string
	limit                   int
}

func newFindCmd(o *options) *cobra.Command {
	f := &findFlags{}
	cmd := &cobra.Command{
		Use:   "find BOOK.md WORD... | --entry NAME",
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

--semantic ranks the items by meaning: an embedding model (AITE_EMBED_MODEL,
e.g. openai:text-embedding-3-small or ollama:nomic-embed-text; --embed-model)
turns every item into a vector, kept beside the book (.BOOK.md.aite/
vectors.bin), and the items nearest to the query come first, also when they
share no word with it. --hybrid fuses that ranking with --ranked's
(reciprocal rank fusion). The first time, the whole book is embedded (the
cost is printed first; 'aite index' does it on its own); after edits only
the changed items are. If the embedding model fails, the search falls back
to --ranked and says so.

--entry NAME lists, in document order, every item naming a codex entry
(NAME is its ID, name or an alias) by any of its names in any form; where a
name lies inside a longer name of another entry (Darcy in Miss Darcy), the
longer one counts. 'aite codex' builds and edits the codex.

Headings are left out unless --headings. --kind keeps only some kinds;
--within searches only the section of a heading. The last line on standard
error counts the items.

JSON: {"mode": "keyword"|"exact"|"ranked"|"entry"|"semantic"|"hybrid", "query",
"entry": {"id", "name", "aliases"} (--entry), "rankedBy", "notice" (--semantic
and --hybrid: how they ranked in the end, and why not by meaning), "results":
[{"pointer",
"id", "label", "kind", "index", "score", "snippet", "text"}]}; "score" is
set by --ranked (BM25), --semantic (cosine) and --hybrid (fused), "snippet"
(with ** ** around the matches) by every mode but the default, "text" (the
item's plain text) by the default mode.`, search.MaxLimit, search.DefaultLimit)),
		Example: `  aite find book.md Звёздочкин
  aite find book.md часы башня --headings --kind paragraph,quote
  aite find book.md --exact "часы на башне"
  aite find book.md --ranked Варя часы --limit 5 --within 1.2
  aite find --json book.md Варя
  aite find book.md --entry "Аркадий Львович"
  aite find book.md --hybrid "the letter the old master left at the post office"`,
		Args: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("entry") {
				if len(args) != 1 {
					return cli.Usagef("find --entry takes only BOOK.md (the entry names what to find)")
				}
				return nil
			}
			return minArgs(2)(cmd, args)
		},
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
	fl.StringVar(&f.entry, "entry", "", "list the items naming this codex entry (its ID, name or an alias)")
	fl.BoolVar(&f.semantic, "semantic", false, "rank the items by meaning (an embedding model)")
	fl.BoolVar(&f.hybrid, "hybrid", false, "rank by words and meaning fused")
	fl.StringVar(&f.embedModel, "embed-model", "", "the embedding model (default: AITE_EMBED_MODEL or embedModel)")
	fl.StringVar(&f.config, "config", "", "read this config file instead of the usual ones")
	fl.IntVar(&f.limit, "limit", search.DefaultLimit, fmt.Sprintf("list at most this many items (1..%d)", search.MaxLimit))
	return cmd
}

func runFind(cmd *cobra.Command, o *options, f *findFlags, book string, words []string) error {
	req, err := findRequest(cmd, f, words)
	if err != nil {
		return err
	}
	var emb *cli.Embeddings
	if req.Mode == cli.FindSemantic || req.Mode == cli.FindHybrid {
		if emb, err = cli.LoadEmbeddings(f.embedModel, f.config); err != nil {
			return err // before the book is read
		}
	}
	b, err := cli.Open(book, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	defer b.Close()
	var found cli.Found
	if emb != nil {
		found, err = b.FindMeaning(cmd.Context(), req, emb, cmd.ErrOrStderr(), stderrTerminal(cmd) && !o.json)
	} else {
		found, err = b.Find(req)
	}
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
	case btoi(f.exact)+btoi(f.ranked)+btoi(f.entry != "")+btoi(f.semantic)+btoi(f.hybrid) > 1:
		return req, cli.Usagef("give one of --exact, --ranked, --semantic, --hybrid and --entry")
	case f.semantic:
		req.Mode = cli.FindSemantic
	case f.hybrid:
		req.Mode = cli.FindHybrid
	case f.entry != "":
		req.Mode, req.Entry = cli.FindEntry, f.entry
		if !cmd.Flags().Changed("limit") {
			req.Limit = 0 // every item naming it unless told
		}
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

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// stderrTerminal reports whether the command writes its progress to a
// terminal.
func stderrTerminal(cmd *cobra.Command) bool {
	return cmd.ErrOrStderr() == os.Stderr && interactive(os.Stderr)
}
