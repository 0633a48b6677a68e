package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/aitexteditor/aite/internal/cli"
	"github.com/aitexteditor/aite/internal/eval"
	"github.com/aitexteditor/aite/internal/reading"
)

func newEvalCmd(o *options) *cobra.Command {
	f := &agentFlags{}
	req := cli.EvalRequest{}
	var families string
	var seed uint64
	var compare bool
	cmd := &cobra.Command{
		Use:   "eval BOOK.md",
		Short: "Measure a model on your own book: tasks with known answers, scored",
		Long: helpText(`Generate tasks whose answers are known from the book itself, run each
through the real agents (the command agent of 'aite ask', the cursor agent
of 'aite navigate') with the configured model on a fresh copy of the book,
and report per family of tasks how many answers were exact, wrong or
honestly failed, the mean number of model calls, the tokens, the cost (from
the model's prices) and the time, against the cost of sending the whole book
in one prompt (ρ). The book itself is never written.

Families (--families, comma-separated; default all): first, nth, last (the
first / n-th / last paragraph that mentions a name, in any form), count (how
many paragraphs of a chapter mention a name), chapter (which chapter first
mentions a name), collect (every paragraph with two names), navigate (the
cursor agent alone on those), insert (a sentence after the n-th paragraph
that mentions a name), replace (the last sentence of a chapter's first
paragraph), relay (--relay-pairs edit commands on one copy, each followed by
its inverse, scored by the bytes that differ from the original at the end).
The same book, --seed and --tasks always give the same tasks.

Before it starts it prints an estimate of the calls, tokens and cost, and
asks (on a terminal; otherwise it refuses without --yes) when the estimate
is above --max-cost, or above --max-tokens for a model without prices.
Every finished task is kept (in .BOOK.md.aite/eval/ beside the book, or in
the user's cache directory when the book's folder is read-only): after an
interruption, the same command goes on where it stopped, and once finished
it prints the report again without calling the model (--fresh starts over).

The report is Markdown on standard output, or with --json {"model", "book",
"families": [{"name", "tasks", "exact", "wrong", "failed", "calls", "rho",
"cost", ...}], "total", "tasks": [...], ...}; --out FILE writes it to FILE
(JSON when FILE ends in .json). 'aite eval --compare a.json b.json' puts two
JSON reports side by side.

A model must be configured: see 'aite models'.`),
		Example: `  aite eval book.md --tasks 3                      # every family, 3 tasks each
  aite eval book.md --model local --families first,nth,insert --json --out local.json
  aite eval --compare local.json hosted.json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if compare {
				if len(args) != 2 {
					return reading.Usagef("--compare takes two JSON reports: aite eval --compare a.json b.json")
				}
				return nil
			}
			return exactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if compare {
				return cli.CompareEval(cmd.OutOrStdout(), args[0], args[1])
			}
			fams, err := eval.ParseFamilies(families)
			if err != nil {
				return reading.Usagef("--families: %v", err)
			}
			req.Book, req.JSON, req.MaxSteps = args[0], o.json, f.maxSteps
			req.Options.Seed, req.Options.Families = seed, fams
			req.In, req.Out, req.Log = cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr()
			req.Interactive, req.LogTerminal = interactive(cmd.InOrStdin()), terminal(cmd.ErrOrStderr())
			if err := cli.CheckEval(req); err != nil {
				return err // before any model is loaded or contacted
			}
			m, err := cli.LoadModel(f.model, f.config)
			if err != nil {
				return err
			}
			req.Model = m
			return cli.Eval(cmd.Context(), req)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.model, "model", "", "the model: a key from models/ or provider:model (default: AITE_MODEL or the config file's defaultModel)")
	fl.StringVar(&f.config, "config", "", "the config file (default $AITE_CONFIG, ./aite.json, then $XDG_CONFIG_HOME/aite/config.json)")
	fl.IntVar(&f.maxSteps, "max-steps", cli.DefaultMaxSteps, "model turns with tools before the command agent must answer")
	fl.IntVar(&req.Options.PerFamily, "tasks", eval.DefaultPerFamily, "tasks per family (a relay is one task)")
	fl.Uint64Var(&seed, "seed", 1, "the seed of the task generation")
	fl.StringVar(&families, "families", "all", "the families to run, comma-separated")
	fl.IntVar(&req.Options.RelayPairs, "relay-pairs", eval.DefaultRelayPairs, "forward/inverse command pairs of the relay (0: no relay)")
	fl.Float64Var(&req.MaxCost, "max-cost", cli.DefaultMaxCost, "ask before a run whose estimated cost is above this (in the unit of the model's prices)")
	fl.IntVar(&req.MaxTokens, "max-tokens", cli.DefaultMaxTokens, "ask before a run whose estimated tokens are above this, when the model has no prices")
	fl.BoolVar(&req.Yes, "yes", false, "start without asking, whatever the estimate")
	fl.BoolVar(&req.Fresh, "fresh", false, "discard the kept results of this evaluation and start over")
	fl.StringVar(&req.OutFile, "out", "", "write the report to this file (JSON when it ends in .json)")
	fl.BoolVar(&compare, "compare", false, "compare two JSON reports: aite eval --compare a.json b.json")
	return cmd
}

// terminal reports whether w is a terminal.
func terminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
