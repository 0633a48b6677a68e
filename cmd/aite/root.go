package main

import (
	"context"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/aitexteditor/aite/examples"
	"github.com/aitexteditor/aite/internal/cli"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/reading"
	"github.com/aitexteditor/aite/web"
)

// options holds the flags shared by every command.
type options struct {
	json bool
}

func newRootCmd(o *options) *cobra.Command {
	root := &cobra.Command{
		Use:   "aite",
		Short: "aite edits large Markdown books with an LLM through semantic pointers",
		Long: `aite edits large Markdown books with an LLM through semantic pointers.

Every block of a book (heading, paragraph, list item, quote, code block,
table, ...) is an item with a pointer such as 24:1.1.p21: the item's ID, a
colon and its label (heading counters, then p and the item's number within
its section). Commands accept the full pointer, the bare label or the ID (a
bare number that is also a heading's label is refused as ambiguous).

A pointer printed by any command names the same item in the next one: the
IDs are recorded in a hidden directory beside the book (.BOOK.md.aite/,
safe to delete: that only renumbers the items). An edit keeps every other
item's ID, a new item gets a new ID, and when another program changed the
book, unchanged items keep their IDs and rewritten ones get new IDs (their
old pointers are refused with the nearest candidates, never taken for
another item). Labels follow the structure, so after an insert a label can
be out of date; the ID decides.

Every command prints readable text by default and JSON with --json. Errors
go to standard error (as {"error": ..., "nearest": [...]} with --json).

` + cli.ExitHelp,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.CompletionOptions.HiddenDefaultCmd = true
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &reading.UsageError{Err: err} })
	root.PersistentFlags().BoolVar(&o.json, "json", false, "print JSON instead of text")
	root.AddCommand(newOutlineCmd(o), newItemsCmd(o), newReadCmd(o), newEditCmd(o), newFindCmd(o), newCursorCmd(o))
	root.AddCommand(newModelsCmd(o), newAskCmd(o), newChatCmd(o), newUndoCmd(o), newNavigateCmd(o), newTargetsCmd(o), newEvalCmd(o), newCodexCmd(o), newIndexCmd(o), newMCPCmd(), cli.NewServeCmd(examples.SampleName, examples.Zvezdochkin, web.NewApp()))
	return root
}

// execute runs the command line args and returns the exit code.
func execute(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return executeContext(context.Background(), args, stdin, stdout, stderr)
}

// executeContext is execute with a context that cancels the command.
func executeContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o := &options{}
	root := newRootCmd(o)
	root.SetArgs(codexOrder(args))
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return cli.ExitOK
	}
	if cmd == nil || cmd == root {
		// The root runs nothing itself: its errors are unknown commands.
		cmd, err = root, &reading.UsageError{Err: err}
	}
	hint := "Run '" + cmd.CommandPath() + " --help' for usage."
	return cli.ReportError(stderr, err, o.json, hint)
}

// exactArgs is cobra.ExactArgs with its error marked as a usage error.
func exactArgs(n int) cobra.PositionalArgs {
	check := cobra.ExactArgs(n)
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return reading.Usagef("%s takes %d argument(s): %s", cmd.Name(), n, strings.TrimPrefix(cmd.Use, cmd.Name()+" "))
		}
		return nil
	}
}

// minArgs is cobra.MinimumNArgs with its error marked as a usage error.
func minArgs(n int) cobra.PositionalArgs {
	check := cobra.MinimumNArgs(n)
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return reading.Usagef("%s takes at least %d arguments: %s", cmd.Name(), n, strings.TrimPrefix(cmd.Use, cmd.Name()+" "))
		}
		return nil
	}
}

// helpText appends the exit status rules to a command's description.
func helpText(s string) string { return s + "\n\n" + cli.ExitHelp }

// readingCmd completes the cobra command of one of the reading commands
// (internal/reading): its arguments, its flags and its run, which checks
// the flags before the book is opened. internal/quick runs the same
// command without cobra when the book's cache is valid.
func readingCmd(o *options, name string, cmd *cobra.Command) *cobra.Command {
	c := reading.NewCommand(name)
	c.Register(cmd.Flags())
	if min, max := reading.Args(name); max < 0 {
		cmd.Args = minArgs(min)
	} else {
		cmd.Args = exactArgs(min)
	}
	if name == "find" {
		cmd.Args = findArgs(cmd.Args)
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if err := c.Prepare(cmd.Flags(), args[1:]); err != nil {
			return err
		}
		if f, ok := c.(*reading.FindCommand); ok && meaning(f.Request()) {
			return runMeaning(cmd, o, f, args[0])
		}
		defer reading.LimitMemory(args[0])()
		b, err := cli.OpenWith(args[0], cmd.ErrOrStderr(), func(s *editor.Session) {
			s.ForOneCommand()
			if !reading.BuildsIndex(c) {
				s.CacheMeanwhile()
			}
		})
		if err != nil {
			return err
		}
		defer b.Close()
		return c.Run(b.Book, o.json, cmd.OutOrStdout(), cmd.ErrOrStderr())
	}
	return cmd
}
