package main

import (
	"github.com/spf13/cobra"

	"github.com/aitexteditor/aite/internal/cli"
)

func newIndexCmd(o *options) *cobra.Command {
	var embedModel, config string
	var estimate bool
	cmd := &cobra.Command{
		Use:   "index BOOK.md",
		Short: "Build or update the book's vector index, for search by meaning",
		Long: helpText(`Embed every item of the book that has no vector yet (all of them the first
time; after edits only the changed ones) through the embedding model
(AITE_EMBED_MODEL, e.g. openai:text-embedding-3-small or
ollama:nomic-embed-text, or embedModel in aite.json; --embed-model), in
batches with a progress bar, and store the index beside the book
(.BOOK.md.aite/vectors.bin). It first prints how many items it will embed
and what that costs (tokens estimated; the price when the model's models
file gives one); --estimate only prints that. An index made with another
model is not used: it is built again. If the model fails, what was embedded
is kept and the next run goes on.

Then 'aite find BOOK.md --semantic|--hybrid "…"' searches by meaning, and
the agents' search-find ranks by words and meaning fused.

JSON: {"enabled", "model", "dim", "items", "embedded", "missing",
"missingRunes", "path", "note", "estimatedTokens", "estimatedCost",
"embeddedNow"}.`),
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := cli.LoadEmbeddings(embedModel, config)
			if err != nil {
				return err
			}
			return cli.Index(cmd.Context(), cli.IndexRequest{Book: args[0], Embed: e, Estimate: estimate, JSON: o.json,
				Progress: stderrTerminal(cmd) && !o.json, Out: cmd.OutOrStdout(), Log: cmd.ErrOrStderr()})
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&embedModel, "embed-model", "", "the embedding model (default: AITE_EMBED_MODEL or embedModel)")
	fl.StringVar(&config, "config", "", "read this config file instead of the usual ones")
	fl.BoolVar(&estimate, "estimate", false, "only print what an update would embed and cost")
	return cmd
}
