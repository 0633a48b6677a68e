package main

import (
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/aitexteditor/aite/internal/cli"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/reading"
	"github.com/aitexteditor/aite/internal/textdiff"
)

type editFlags struct {
	text, file, out         string
	dryRun, noBackup, force bool
	context                 int
}

func newEditCmd(o *options) *cobra.Command {
	f := &editFlags{}
	cmd := &cobra.Command{
		Use:   "edit BOOK.md " + strings.Join(cli.EditOpNames, "|") + " [POINTER]",
		Short: "Apply one edit to an item and print the diff",
		Long: helpText(`Apply one operation to the item POINTER names:

  replace        replace the item's text (a heading keeps its level)
  insert-before  insert one new item before it, in the same container
  insert-after   insert one new item after it, in the same container
  delete         delete it (headings cannot be deleted)
  append         (no POINTER) add one block at the end of the book; an
                 empty book gets its first item this way, a heading too

replace, the inserts and append take the new Markdown from exactly one of
--text and --file (--file - reads standard input); delete takes neither. An
edit that would change the book's structure (create or remove a heading,
merge or split blocks) is refused with the reason and nothing is written.

Pointers stay valid from one command to the next: item IDs are recorded in
.BOOK.md.aite/ beside the book, so the pointers printed by find, items, ask
or an earlier edit name the same items after this edit, and after another
program changed the book (rewritten items get new IDs; their old pointers
are refused with the nearest candidates). When the label of a pointer is
out of date (an insert moved the item) the ID decides, with a note.

The unified diff of the change goes to standard output; a long line (a
paragraph) shows only the changed words with --context characters around
them (… marks what is cut; the JSON "diff" is the whole diff). The book is then
written atomically, back to BOOK.md or to --output, keeping the previous
version as FILE.bak unless --no-backup, and journaled so that 'aite undo
BOOK.md' restores the version before; --dry-run writes nothing. A
read-only book is refused unless --force (its mode and owner are kept). A
line on standard error says what was done, with the pointers to use next.

JSON: {"op", "target", "pointer", "markdownBefore", "markdownAfter", "diff",
"written", "path", "backup"}; "backup" is omitted when none was made.`),
		Example: `  aite edit book.md replace 24:1.1.p21 --text 'New paragraph text.'
  aite edit book.md insert-after 1.1.p21 --file new.md --dry-run
  llm-tool | aite edit book.md replace 24 --file - -o edited.md
  aite edit book.md delete 24:1.1.p21 --no-backup
  aite edit empty.md append --text '# My Book'`,
		Args: editArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runEdit(cmd, o, f, args)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.text, "text", "", "the new Markdown")
	fl.StringVar(&f.file, "file", "", "read the new Markdown from this file (- for standard input)")
	fl.BoolVar(&f.dryRun, "dry-run", false, "print the diff but write nothing")
	fl.StringVarP(&f.out, "output", "o", "", "write the edited book to this file instead of BOOK.md")
	fl.BoolVar(&f.noBackup, "no-backup", false, "do not keep the previous version as FILE.bak")
	fl.BoolVar(&f.force, "force", false, "write the book even if it is read-only")
	fl.IntVar(&f.context, "context", textdiff.DefaultWidth, "characters of context around a change inside a long line of the diff")
	return cmd
}

// editArgs wants BOOK OP POINTER, or BOOK append.
func editArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 2 {
		if op, err := cli.ParseEditOp(args[1]); err == nil && op == document.OpAppend {
			return nil
		}
	}
	if len(args) == 3 {
		if op, err := cli.ParseEditOp(args[1]); err == nil && op == document.OpAppend {
			return reading.Usagef("append takes no POINTER: it adds the block at the end of the book")
		}
	}
	return exactArgs(3)(cmd, args)
}

func runEdit(cmd *cobra.Command, o *options, f *editFlags, args []string) error {
	if f.context < 1 {
		return reading.Usagef("--context must be at least 1 (got %d)", f.context)
	}
	op, err := cli.ParseEditOp(args[1])
	if err != nil {
		return err
	}
	text, err := editText(cmd, f, op, args[1])
	if err != nil {
		return err
	}
	ptr := ""
	if len(args) == 3 {
		ptr = args[2]
	}
	req := cli.EditRequest{Book: args[0], Op: op, Pointer: ptr, Text: text, Out: f.out, DryRun: f.dryRun,
		Backup: !f.noBackup, Force: f.force, Log: cmd.ErrOrStderr()}
	res, err := cli.Edit(req)
	if err != nil {
		return err
	}
	if o.json {
		err = reading.WriteJSON(cmd.OutOrStdout(), cli.NewEditJSON(res))
	} else {
		_, err = io.WriteString(cmd.OutOrStdout(), textdiff.Trim(res.Diff, f.context))
	}
	cli.WriteEditStatus(cmd.ErrOrStderr(), res, f.dryRun)
	return err
}

// editText checks --text and --file against the operation and returns the
// new Markdown.
func editText(cmd *cobra.Command, f *editFlags, op document.Op, name string) (string, error) {
	hasText, hasFile := cmd.Flags().Changed("text"), cmd.Flags().Changed("file")
	switch {
	case op == document.OpDelete && (hasText || hasFile):
		return "", reading.Usagef("delete takes no text: drop --text and --file")
	case op == document.OpDelete:
		return "", nil
	case hasText && hasFile:
		return "", reading.Usagef("give the new text with either --text or --file, not both")
	case hasText:
		return f.text, nil
	case hasFile:
		return cli.ReadText(f.file, cmd.InOrStdin())
	}
	return "", reading.Usagef("%s needs the new Markdown: give --text TEXT or --file FILE (--file - reads standard input)", name)
}
