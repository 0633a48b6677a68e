package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/aitexteditor/aite/internal/cli"
	"github.com/aitexteditor/aite/internal/reading"
	"github.com/aitexteditor/aite/internal/search"
)

func newFindCmd(o *options) *cobra.Command {
	return readingCmd(o, "find", &cobra.Command{
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
"id", "label", "kind", "index", "score", "snippet", "text"}], "limitReached"}:
"limitReached" is true when --limit may have cut the list; "score" is
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
	})
}

// findArgs is the argument check of find: BOOK.md alone with --entry, else
// check's.
func findArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if cmd.Flags().Changed("entry") {
			if len(args) != 1 {
				return reading.Usagef("find --entry takes only BOOK.md (the entry names what to find)")
			}
			return nil
		}
		return check(cmd, args)
	}
}

// meaning reports whether a find searches by meaning.
func meaning(req reading.FindRequest) bool {
	return req.Mode == reading.FindSemantic || req.Mode == reading.FindHybrid
}

// runMeaning runs a find by meaning (--semantic, --hybrid): the embedding
// model is loaded before the book is read.
func runMeaning(cmd *cobra.Command, o *options, f *reading.FindCommand, book string) error {
	emb, err := cli.LoadEmbeddings(f.EmbedModel())
	if err != nil {
		return err
	}
	b, err := cli.Open(book, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	defer b.Close()
	found, err := b.FindMeaning(cmd.Context(), f.Request(), emb, cmd.ErrOrStderr(), stderrTerminal(cmd) && !o.json)
	if err != nil {
		return err
	}
	if o.json {
		return reading.WriteJSON(cmd.OutOrStdout(), found)
	}
	reading.WriteFound(cmd.OutOrStdout(), cmd.ErrOrStderr(), found)
	return nil
}

// stderrTerminal reports whether the command writes its progress to a
// terminal.
func stderrTerminal(cmd *cobra.Command) bool {
	return cmd.ErrOrStderr() == os.Stderr && interactive(os.Stderr)
}
