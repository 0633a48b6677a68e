package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/aitexteditor/aite/internal/cli"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/reading"
	"github.com/aitexteditor/aite/internal/textdiff"
)

type agentFlags struct {
	model, config, agent string
	yes, dryRun, force   bool
	maxSteps, context    int
}

func (f *agentFlags) register(cmd *cobra.Command, writes bool) {
	fl := cmd.Flags()
	fl.StringVar(&f.model, "model", "", "the model: a key from models/ or provider:model (default: AITE_MODEL or the config file's defaultModel)")
	fl.StringVar(&f.config, "config", "", "the config file (default $AITE_CONFIG, ./aite.json, then $XDG_CONFIG_HOME/aite/config.json)")
	fl.StringVar(&f.agent, "agent", "", "the agent to run: any agent 'aite serve' runs, built-in or from its agent directories (default "+cli.DefaultAgent+")")
	if writes {
		fl.BoolVar(&f.yes, "yes", false, "write the edits without asking")
		fl.BoolVar(&f.dryRun, "dry-run", false, "show the edits as a diff but never write")
		fl.IntVar(&f.maxSteps, "max-steps", cli.DefaultMaxSteps, "model turns with tools before the agent must answer (with --agent: the agent's own unless given)")
	}
	if writes || cmd.Name() == "chat" {
		fl.BoolVar(&f.force, "force", false, "write the book even if it is read-only")
		fl.IntVar(&f.context, "context", textdiff.DefaultWidth, "characters of context around a change inside a long line of the diff")
	}
}

// steps is the --max-steps a run takes: the flag's value for the default
// agent (its default cli.DefaultMaxSteps), and for another agent its own
// steps unless the flag is given.
func (f *agentFlags) steps(cmd *cobra.Command) int {
	fl := cmd.Flags().Lookup("max-steps")
	switch {
	case fl != nil && fl.Changed:
		return f.maxSteps
	case f.agent == "" || f.agent == cli.DefaultAgent:
		return cli.DefaultMaxSteps
	}
	return 0
}

// interactive reports whether in is a terminal.
func interactive(in io.Reader) bool { return terminal(in) }

func newAskCmd(o *options) *cobra.Command {
	f := &agentFlags{}
	cmd := &cobra.Command{
		Use:   "ask BOOK.md COMMAND",
		Short: "Run a plain-language command on a book with the model",
		Long: helpText(`Run the command agent once: the model reads the book through cursors, the
cursor agent and search, and edits it by pointer. Standard error shows the
progress (tool calls, cursor batches, edits); standard output shows the
answer, with pointers, and then the unified diff of the edits.

--agent KEY runs another agent the server runs: a built-in (bookEditorProtocol,
the demo agents) or an agent file of the server's definition directories (of
its configuration: --config, $AITE_CONFIG or ./aite.json, AITE_DATA). What an
agent asks a person (a scope it wants to see, edits held for approval, a
form) is asked on the terminal, as the web app asks it; without a terminal
the question is refused, and --yes approves scopes and edits.

The book is written only after confirmation on a terminal: --yes writes
without asking, --dry-run never writes (the two together are refused), and
without a terminal and without --yes nothing is written (exit code 1). The
write is atomic, keeps a .bak, and is journaled so that 'aite undo BOOK.md'
restores the previous version; a read-only book needs --force. A canceled
or failed run writes nothing (exit code 1), and so does a run whose model
used up its --max-steps turns with tools before it finished: it says so and
exits 1. Declining at the prompt writes nothing and exits 0.

With --json nothing streams to standard output; at the end it prints
{"answer", "edits": [{"op", "pointer", "newPointer", "before", "after"}],
"diff", "written", "outOfSteps"?, "error"?, "usage": {"inputTokens",
"outputTokens", "cost"?}}, also when the run failed.

A model must be configured: see 'aite models'.`),
		Example: `  aite ask book.md "where is Zvezdochkin first mentioned, not counting headings?"
  aite ask book.md "make the paragraph where Varya first appears more vivid" --yes
  aite ask book.md "make every line the professor speaks more formal" --agent bookEditorProtocol`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cli.CheckAsk(args[1], f.yes, f.dryRun, f.maxSteps); err != nil {
				return err // before any model is loaded or contacted
			}
			m, err := cli.LoadModel(f.model, f.config)
			if err != nil {
				return err
			}
			return cli.Ask(cmd.Context(), cli.AskRequest{Book: args[0], Command: args[1], Model: m, Yes: f.yes,
				DryRun: f.dryRun, In: cmd.InOrStdin(), Out: cmd.OutOrStdout(), Log: cmd.ErrOrStderr(),
				Interactive: interactive(cmd.InOrStdin()), MaxSteps: f.steps(cmd), Force: f.force, JSON: o.json,
				Agent: f.agent, Config: f.config,
				Context: f.context})
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
				Out: cmd.OutOrStdout(), Log: cmd.ErrOrStderr(), MaxSteps: f.steps(cmd), Force: f.force, Context: f.context,
				Agent: f.agent, Config: f.config, Interactive: interactive(cmd.InOrStdin())})
		},
	}
	f.register(cmd, false) // no --max-steps: the default agent takes cli.DefaultMaxSteps
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
	req := cli.NavigateRequest{}
	cmd := &cobra.Command{
		Use:   "navigate BOOK.md TASK",
		Short: "Run the cursor agent: find the first, n-th or last item that matches a task",
		Long: helpText(`Walk the book batch by batch with the cursor agent and find what TASK describes.
--keywords makes it walk only the items that mention them (faster, cheaper;
every form of a word counts), --entry only the items naming a codex entry by
any of its names (see 'aite codex'), --targets only the items of a saved
target set; without any it reads every item. --mode: first (default), nth (with
--n), last, collect (every match) or summary.

One progress line per batch goes to standard error, the result to standard
output: the answer with its pointer, or for collect every match (pointer,
kind, excerpt; with --json all of them under "matches"). --save NAME keeps
the collected items as a saved target set beside the book, which 'aite
targets', 'aite cursor --targets' and 'navigate --targets' use later.

A batch the model cannot judge is read again in smaller batches; what still
cannot be judged is listed, and then the result is incomplete, never a
success. A walk stopped by --max-batches (default 128) is incomplete too and
says how to go on: 'aite navigate BOOK.md --resume TASK_ID' continues it
(task states are kept in .BOOK.md.aite/tasks/). The exit code is 0 only
for a success: 1 when nothing was found or the result is incomplete.`),
		Example: `  aite navigate book.md "a line where Zvezdochkin speaks" --keywords Звёздочкин --mode nth --n 2
  aite navigate book.md "a paragraph about the clock" --mode collect --save clock
  aite navigate book.md --resume 3fa2c1d4e5f6`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 && cmd.Flags().Changed("resume") {
				return nil
			}
			return exactArgs(2)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			req.Book, req.Task = args[0], ""
			if len(args) == 2 {
				req.Task = args[1]
			}
			req.NGiven = cmd.Flags().Changed("n")
			req.JSON, req.Out, req.Log = o.json, cmd.OutOrStdout(), cmd.ErrOrStderr()
			if err := cli.CheckNavigate(req); err != nil {
				return err // before any model is loaded or contacted
			}
			m, err := cli.LoadModel(f.model, f.config)
			if err != nil {
				return err
			}
			req.Model = m
			return cli.Navigate(cmd.Context(), req)
		},
	}
	f.register(cmd, false)
	fl := cmd.Flags()
	fl.StringSliceVar(&req.Keywords, "keywords", nil, "walk only the items that mention these (comma-separated or repeated)")
	fl.StringVar(&req.Entry, "entry", "", "walk only the items naming this codex entry (its ID, name or an alias)")
	fl.StringVar(&req.Targets, "targets", "", "walk only the items of this saved target set")
	fl.StringVar(&req.Mode, "mode", "first", strings.Join(cli.NavigateModes, ", "))
	fl.IntVar(&req.N, "n", 0, "the ordinal for --mode nth")
	fl.BoolVar(&req.Headings, "headings", true, "include headings")
	fl.IntVar(&req.MaxBatches, "max-batches", 0, "stop after this many batches (1..512, default 128); --resume goes on")
	fl.StringVar(&req.Resume, "resume", "", "continue the task with this ID where it stopped")
	fl.StringVar(&req.Save, "save", "", "with --mode collect: save the matches as a target set of this name")
	return cmd
}

func newTargetsCmd(o *options) *cobra.Command {
	return &cobra.Command{
		Use:   "targets BOOK.md [NAME]",
		Short: "List the saved target sets of a book, or the items of one",
		Long: helpText(`A saved target set is a named selection of a book's items, kept by item ID
beside the book (.BOOK.md.aite/targets.json), e.g. what 'aite navigate
--mode collect --save NAME' collected. Without NAME: every set with its size.
With NAME: its items as they are now (pointer, kind, excerpt), in book
order; items deleted or rewritten since are counted, not shown.

JSON: [{"name", "count", "saved", "note"}] or {"name", "items":
[{"pointer", "kind", "excerpt"}], "gone"}.`),
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 1 || len(args) > 2 {
				return reading.Usagef("targets takes BOOK.md and an optional NAME")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := cli.Open(args[0], cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer b.Close()
			if len(args) == 1 {
				return cli.WriteTargetSets(cmd.OutOrStdout(), b, o.json)
			}
			return cli.WriteTargetSet(cmd.OutOrStdout(), b, args[1], o.json)
		},
	}
}
