package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/aitexteditor/aite/internal/agent"
	"github.com/aitexteditor/aite/internal/cli"
	"github.com/aitexteditor/aite/internal/editor"
)

type agentFlags struct {
	model, config      string
	yes, dryRun, force bool
	maxSteps           int
}

func (f *agentFlags) register(cmd *cobra.Command, writes bool) {
	fl := cmd.Flags()
	fl.StringVar(&f.model, "model", "", "the model: a key from models/ or provider:model (default: AITE_MODEL or the config file's defaultModel)")
	fl.StringVar(&f.config, "config", "", "the config file (default $AITE_CONFIG, ./aite.json, then $XDG_CONFIG_HOME/aite/config.json)")
	if writes {
		fl.BoolVar(&f.yes, "yes", false, "write the edits without asking")
		fl.BoolVar(&f.dryRun, "dry-run", false, "show the edits as a diff but never write")
		fl.IntVar(&f.maxSteps, "max-steps", agent.DefaultMaxSteps, "model turns with tools before the agent must answer")
	}
	if writes || cmd.Name() == "chat" {
		fl.BoolVar(&f.force, "force", false, "write the book even if it is read-only")
	}
}

// interactive reports whether in is a terminal.
func interactive(in io.Reader) bool {
	f, ok := in.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func newAskCmd(o *options) *cobra.Command {
	f := &agentFlags{}
	cmd := &cobra.Command{
		Use:   "ask BOOK.md COMMAND",
		Short: "Run a plain-language command on a book with the model",
		Long: helpText(`Run the command agent once: the model reads the book through cursors, the
cursor agent and search, and edits it by pointer. Standard error shows the
progress (tool calls, cursor batches, edits); standard output shows the
answer, with pointers, and then the unified diff of the edits.

The book is written only after confirmation on a terminal: --yes writes
without asking, --dry-run never writes, and without a terminal and without
--yes nothing is written (exit code 1). The write is atomic, keeps a .bak,
and is journaled so that 'aite undo BOOK.md' restores the previous version.
A canceled or failed run writes nothing.

A model must be configured: see 'aite models'.`),
		Example: `  aite ask book.md "where is Zvezdochkin first mentioned, not counting headings?"
  aite ask book.md "make the paragraph where Varya first appears more vivid" --yes`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.maxSteps < 1 || f.maxSteps > 100 {
				return cli.Usagef("--max-steps must be between 1 and 100 (got %d)", f.maxSteps)
			}
			m, err := cli.LoadModel(f.model, f.config)
			if err != nil {
				return err
			}
			return cli.Ask(cmd.Context(), cli.AskRequest{Book: args[0], Command: args[1], Model: m, Yes: f.yes,
				DryRun: f.dryRun, In: cmd.InOrStdin(), Out: cmd.OutOrStdout(), Log: cmd.ErrOrStderr(),
				Interactive: interactive(cmd.InOrStdin()), MaxSteps: f.maxSteps, Force: f.force})
		},
	}
	f.register(cmd, true)
	return cmd
}

func newChatCmd(o *options) *cobra.Command {
	f := &agentFlags{}
	cmd := &cobra.Command{
		Use:   "chat BOOK.md",
		Short: "Talk to the command agent about a book, turn after turn",
		Long: helpText(`An interactive session over one book: every line is a command for the agent,
which remembers the previous turns. Edits stay in memory until /save, which
writes them atomically with a backup (and 'aite undo' can restore the
version before). /undo takes back the last turn's edits, /diff shows what is
not yet written, /quit leaves.

` + cli.ChatHelp),
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := cli.LoadModel(f.model, f.config)
			if err != nil {
				return err
			}
			return cli.Chat(cmd.Context(), cli.AskRequest{Book: args[0], Model: m, In: cmd.InOrStdin(),
				Out: cmd.OutOrStdout(), Log: cmd.ErrOrStderr(), MaxSteps: f.maxSteps, Force: f.force})
		},
	}
	f.register(cmd, false) // no --max-steps: MaxSteps 0 is agent.DefaultMaxSteps
	return cmd
}

func newUndoCmd(o *options) *cobra.Command {
	var noBackup, force bool
	cmd := &cobra.Command{
		Use:   "undo BOOK.md",
		Short: "Restore the book as it was before the last written command",
		Long: helpText(fmt.Sprintf(`Take back the last command that wrote BOOK.md ('aite edit', 'aite ask' or
'aite chat' /save): the file is restored byte for byte from the journal kept
beside it (.BOOK.md.aite/journal.json), and its items get back the IDs they
had, so the pointers printed before that command are valid again. If the
book changed since that command was written, nothing is touched. Repeat to
go further back (up to %d commands). A read-only book is refused unless
--force.`, editor.JournalDepth)),
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return cli.Undo(cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0], !noBackup, force, o.json)
		},
	}
	cmd.Flags().BoolVar(&noBackup, "no-backup", false, "do not keep the current version as BOOK.md.bak")
	cmd.Flags().BoolVar(&force, "force", false, "write the book even if it is read-only")
	return cmd
}

func newNavigateCmd(o *options) *cobra.Command {
	f := &agentFlags{}
	var keywords []string
	var mode string
	var n int
	var headings bool
	cmd := &cobra.Command{
		Use:   "navigate BOOK.md TASK",
		Short: "Run the cursor agent: find the first, n-th or last item that matches a task",
		Long: helpText(`Walk the book batch by batch with the cursor agent and find what TASK describes.
--keywords makes it walk only the items that mention them (faster, cheaper);
without keywords it reads every item. --mode: first (default), nth (with
--n), last, collect (all matches into a target set) or summary. One progress
line per batch goes to standard error; the result to standard output.`),
		Example: `  aite navigate book.md "a line where Zvezdochkin speaks" --keywords Звёздочкин --mode nth --n 2`,
		Args:    exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := cli.LoadModel(f.model, f.config)
			if err != nil {
				return err
			}
			return cli.Navigate(cmd.Context(), cli.NavigateRequest{Book: args[0], Task: args[1], Keywords: keywords,
				Mode: mode, N: n, Headings: headings, Model: m, JSON: o.json, Out: cmd.OutOrStdout(), Log: cmd.ErrOrStderr()})
		},
	}
	f.register(cmd, false)
	fl := cmd.Flags()
	fl.StringSliceVar(&keywords, "keywords", nil, "walk only the items that mention these (comma-separated or repeated)")
	fl.StringVar(&mode, "mode", "first", "first, nth, last, collect or summary")
	fl.IntVar(&n, "n", 0, "the ordinal for --mode nth")
	fl.BoolVar(&headings, "headings", true, "include headings")
	return cmd
}
