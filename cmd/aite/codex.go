package main

import (
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/aitexteditor/aite/internal/cli"
	"github.com/aitexteditor/aite/internal/codex"
	"github.com/aitexteditor/aite/internal/codex/assist"
	"github.com/aitexteditor/aite/internal/reading"
)

// codexSubcommands are the subcommands of `aite codex`; `aite codex BOOK
// SUB …` is read as `aite codex SUB BOOK …`.
var codexSubcommands = []string{"build", "list", "show", "add", "edit", "rm", "merge", "import", "export"}

// codexOrder turns `codex BOOK SUB …` into `codex SUB BOOK …`.
func codexOrder(args []string) []string {
	i := slices.IndexFunc(args, func(a string) bool { return !strings.HasPrefix(a, "-") })
	if i < 0 || args[i] != "codex" || i+2 >= len(args) {
		return args
	}
	// the book and the subcommand: the next two words that are not flags
	var at []int
	for j := i + 1; j < len(args) && len(at) < 2; j++ {
		if !strings.HasPrefix(args[j], "-") {
			at = append(at, j)
		}
	}
	if len(at) < 2 {
		return args
	}
	book, sub := args[at[0]], args[at[1]]
	if slices.Contains(codexSubcommands, book) || !slices.Contains(codexSubcommands, sub) {
		return args
	}
	out := slices.Clone(args)
	out[at[0]], out[at[1]] = sub, book
	return out
}

func newCodexCmd(o *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "codex SUBCOMMAND BOOK.md …",
		Short: "The book's codex: characters, places, objects, glossary, timeline, style rules",
		Long: helpText(`The codex is the book's reference data: an entry per character, place,
object or organisation, glossary term, timeline event and style rule, each with
a name, aliases (every name the text uses for it: matching finds every
inflected form of each), a description for the model, private notes for you,
relations and facts with evidence pointers (a fact is known from its earliest
evidence on, so an agent editing an early chapter is not told what comes
later).

It is stored beside the book (.BOOK.md.aite/codex.json). Until then it is read
from the book's reference cards: a sidecar BOOK.cards.json and the book's
appendix sections (Characters, Places, Objects, Glossary, Timeline, Style
guide).

  build   find the characters and places in the text, then (with a model)
          confirm them, link names, describe them and collect facts
  list    the entries, with the number of items naming each
  show    one entry in full; --at PTR: only the facts known at that item
  add     add an entry; edit: change one; rm: remove; merge: join entries
  import  entries from a JSON or Markdown file, or the book's own appendix
  export  the codex as a Markdown appendix or as JSON

'aite codex BOOK.md list' is read as 'aite codex list BOOK.md'. 'aite find
BOOK.md --entry NAME' lists the items naming an entry.`),
		Example: `  aite codex build book.md
  aite codex list book.md --kind character
  aite codex show book.md Звёздочкин --at 1.3.p4
  aite codex add book.md "Анфиса Павловна" --alias "жена Кузовкова" --description "жена городского головы"
  aite codex merge book.md Ерофеич Ерофей
  aite codex export book.md --format json -o codex.json`,
		// A run function, so that cobra checks the arguments: without one it
		// prints the help for a misspelled subcommand and exits 0.
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			unknown := args[0]
			if _, err := os.Stat(unknown); err == nil && len(args) > 1 { // aite codex BOOK.md lst
				unknown = args[1]
			}
			return reading.Usagef("unknown codex subcommand %q (%s)", unknown, strings.Join(codexSubcommands, ", "))
		},
	}
	cmd.AddCommand(newCodexBuildCmd(o), newCodexListCmd(o), newCodexShowCmd(o), newCodexAddCmd(o), newCodexEditCmd(o),
		newCodexRmCmd(o), newCodexMergeCmd(o), newCodexImportCmd(o), newCodexExportCmd(o))
	return cmd
}

// withBook opens the book for a codex subcommand.
func withBook(cmd *cobra.Command, book string, f func(b *cli.Book) error) error {
	b, err := cli.Open(book, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	defer b.Close()
	return f(b)
}

func newCodexBuildCmd(o *options) *cobra.Command {
	f := &agentFlags{}
	req := cli.CodexBuildRequest{}
	cmd := &cobra.Command{
		Use:   "build BOOK.md",
		Short: "Find the book's characters and places; with a model, confirm and describe them",
		Long: helpText(`First, without a model: the names the text writes with a capital letter in
the middle of sentences, with their forms, titles (Mr., Lady), initials
(Ф. К. Штейн) and first names, patronymics and surnames that stand together
(Звёздочкин, Аркадий Львович) become entries. This part is stored at once.
Entries you wrote, edited or removed, and what a model found, are kept.

Then, with a model (AITE_MODEL or --model): the cursor agent reads every item
naming each unconfirmed entry, most named first (--entries N, default 40),
noting one fact per item with its pointer, and one more call per entry
confirms it, sets its kind, links the names the text alone cannot (Lizzy is
Elizabeth), writes a description and keeps facts with evidence pointers.
Before it starts it prints the estimate (calls, tokens, cost when the model's
price is known) and asks (--yes does not ask; without a terminal --yes is
needed). The codex is stored after every entry; an interrupted build goes on
where it stopped the next time (--restart starts over).`),
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req.Book, req.JSON = args[0], o.json
			req.In, req.Out, req.Log = cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr()
			req.Interactive, req.Progress = interactive(cmd.InOrStdin()), interactive(os.Stderr) && cmd.ErrOrStderr() == os.Stderr
			if req.Entries < 0 {
				return reading.Usagef("--entries must be at least 1 (got %d)", req.Entries)
			}
			if !req.NoModel {
				m, err := cli.LoadModel(f.model, f.config)
				if err == nil {
					req.Model = &m
				} else {
					req.ModelErr = err
				}
			}
			return cli.CodexBuild(cmd.Context(), req)
		},
	}
	f.register(cmd, false)
	fl := cmd.Flags()
	fl.BoolVar(&req.NoModel, "no-model", false, "only what the text gives; no model is contacted")
	fl.BoolVar(&req.Yes, "yes", false, "start the model's part without asking")
	fl.BoolVar(&req.Estimate, "estimate", false, "print the estimate of the model's part and stop")
	fl.BoolVar(&req.Restart, "restart", false, "drop an interrupted build and plan a new one")
	fl.IntVar(&req.Entries, "entries", assist.DefaultEntries, "entries the model reads, most named first")
	fl.BoolVar(&req.All, "all", false, "let the model read confirmed entries too")
	return cmd
}

func newCodexListCmd(o *options) *cobra.Command {
	var kind string
	cmd := &cobra.Command{
		Use:   "list BOOK.md",
		Short: "List the codex's entries",
		Long: helpText(`One line per entry: ID, kind, name, the number of items naming it, where it
comes from (text, model, user, import; ✓ when confirmed) and its aliases.

JSON: {"source", "path", "entries": [{"id", "kind", "name", "aliases",
"description", "notes", "relations", "facts", "origin", "confirmed", "items",
"first"}]}.`),
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withBook(cmd, args[0], func(b *cli.Book) error {
				return cli.CodexList(cmd.OutOrStdout(), cmd.ErrOrStderr(), b, kind, o.json)
			})
		},
	}
	cmd.Flags().StringVar(&kind, "kind", "", "only entries of this kind (character, place, object, term, event, style)")
	return cmd
}

func newCodexShowCmd(o *options) *cobra.Command {
	var at string
	cmd := &cobra.Command{
		Use:   "show BOOK.md ENTRY",
		Short: "Show one entry in full",
		Long: helpText(`ENTRY is an entry's ID, name or alias. Shows its names, the forms the text
uses and how often, the description, notes, relations and facts with their
evidence pointers. --at PTR shows only the facts known at that item (a fact
is known from its earliest evidence on).

JSON: {"entry", "uses": {"items", "first", "forms"}, "at", "factsAsOf"}.`),
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withBook(cmd, args[0], func(b *cli.Book) error {
				return cli.CodexShow(cmd.OutOrStdout(), cmd.ErrOrStderr(), b, args[1], at, o.json)
			})
		},
	}
	cmd.Flags().StringVar(&at, "at", "", "show the facts known at the item this pointer names")
	return cmd
}

// entryFlags are the flags of add and edit.
type entryFlags struct {
	ch                        cli.EntryChange
	description, notes        string
	removeFacts, removeRelate []int
}

func (f *entryFlags) register(cmd *cobra.Command, edit bool) {
	fl := cmd.Flags()
	fl.StringVar(&f.ch.Kind, "kind", "", "character, place, object, term, event or style")
	fl.StringArrayVar(&f.ch.AddAliases, "alias", nil, "add a name the text uses for it (repeatable)")
	fl.StringVar(&f.description, "description", "", "the description for the model")
	fl.StringVar(&f.notes, "notes", "", "your private notes (never shown to a model)")
	fl.StringArrayVar(&f.ch.Facts, "fact", nil, `add a fact: "TEXT@PTR,PTR" (evidence pointers) or "TEXT" (repeatable)`)
	fl.StringArrayVar(&f.ch.Relations, "relation", nil, `add a relation: "TYPE=TARGET", e.g. "sister of=Jane" (repeatable)`)
	if edit {
		fl.StringVar(&f.ch.Name, "name", "", "rename it (the old name becomes an alias)")
		fl.StringArrayVar(&f.ch.Remove, "remove-alias", nil, "remove an alias (repeatable)")
		fl.IntSliceVar(&f.removeFacts, "remove-fact", nil, "remove the fact of this number (as show numbers them)")
		fl.IntSliceVar(&f.removeRelate, "remove-relation", nil, "remove the relation of this number (1-based)")
		fl.BoolVar(&f.ch.Confirm, "confirm", false, "mark it confirmed")
		fl.BoolVar(&f.ch.Unconfirm, "unconfirm", false, "mark it unconfirmed")
	}
}

// change returns the change the flags describe.
func (f *entryFlags) change(cmd *cobra.Command) cli.EntryChange {
	ch := f.ch
	if cmd.Flags().Changed("description") {
		ch.Description = &f.description
	}
	if cmd.Flags().Changed("notes") {
		ch.Notes = &f.notes
	}
	ch.RemoveFacts, ch.RemoveRelations = f.removeFacts, f.removeRelate
	return ch
}

func newCodexAddCmd(o *options) *cobra.Command {
	f := &entryFlags{}
	cmd := &cobra.Command{
		Use:   "add BOOK.md NAME",
		Short: "Add an entry",
		Long: helpText(`Add an entry called NAME (a character unless --kind). Evidence pointers of
--fact must name items of the book. The entry is yours: a build never
replaces it. Prints the entry (JSON: the entry) and, on standard error, how
many items name it.`),
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withBook(cmd, args[0], func(b *cli.Book) error {
				return cli.CodexAdd(cmd.OutOrStdout(), cmd.ErrOrStderr(), b, args[1], f.change(cmd), o.json)
			})
		},
	}
	f.register(cmd, false)
	return cmd
}

func newCodexEditCmd(o *options) *cobra.Command {
	f := &entryFlags{}
	cmd := &cobra.Command{
		Use:   "edit BOOK.md ENTRY",
		Short: "Change an entry",
		Long: helpText(`Change the entry ENTRY names (its ID, name or alias): rename it, add or
remove aliases, facts and relations, set its description, notes and kind,
confirm it. An edited entry is yours: a build never replaces it.`),
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.ch.Confirm && f.ch.Unconfirm {
				return reading.Usagef("give either --confirm or --unconfirm")
			}
			return withBook(cmd, args[0], func(b *cli.Book) error {
				return cli.CodexEdit(cmd.OutOrStdout(), cmd.ErrOrStderr(), b, args[1], f.change(cmd), o.json)
			})
		},
	}
	f.register(cmd, true)
	return cmd
}

func newCodexRmCmd(o *options) *cobra.Command {
	return &cobra.Command{
		Use:   "rm BOOK.md ENTRY...",
		Short: "Remove entries",
		Long: helpText(`Remove the entries named. An entry found in the text stays removed: a later
build does not bring it back.`),
		Args: minArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withBook(cmd, args[0], func(b *cli.Book) error {
				return cli.CodexRemove(cmd.OutOrStdout(), cmd.ErrOrStderr(), b, args[1:], o.json)
			})
		},
	}
}

func newCodexMergeCmd(o *options) *cobra.Command {
	return &cobra.Command{
		Use:   "merge BOOK.md INTO FROM...",
		Short: "Merge entries into one",
		Long: helpText(`Merge the entries FROM... into INTO: their names become its aliases, their
facts, relations, descriptions and notes are added, and relations that
pointed at them point at INTO.`),
		Args: minArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withBook(cmd, args[0], func(b *cli.Book) error {
				return cli.CodexMerge(cmd.OutOrStdout(), cmd.ErrOrStderr(), b, args[1], args[2:], o.json)
			})
		},
	}
}

func newCodexImportCmd(o *options) *cobra.Command {
	var replace, appendix bool
	cmd := &cobra.Command{
		Use:   "import BOOK.md [FILE | --appendix]",
		Short: "Import entries from a file or the book's appendix",
		Long: helpText(`Add entries from FILE: a .json file (a codex as export writes it, or
reference cards {"characters": {name: text}, "glossary": {…}, "styleGuide":
{"rules": […]}}), or a Markdown file with appendix sections (Characters,
Places, Objects, Glossary, Timeline, Style guide); --appendix reads the book's
own appendix. An entry whose name is already an entry's is skipped (listed on
standard error). --replace starts from an empty codex.`),
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 1 || len(args) > 2 || len(args) == 2 == appendix {
				return reading.Usagef("import takes BOOK.md and either FILE or --appendix")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			file := ""
			if len(args) == 2 {
				file = args[1]
			}
			return withBook(cmd, args[0], func(b *cli.Book) error {
				return cli.CodexImport(cmd.OutOrStdout(), cmd.ErrOrStderr(), b, file, replace, o.json)
			})
		},
	}
	cmd.Flags().BoolVar(&replace, "replace", false, "replace the codex instead of adding to it")
	cmd.Flags().BoolVar(&appendix, "appendix", false, "import the book's own appendix sections")
	return cmd
}

func newCodexExportCmd(o *options) *cobra.Command {
	var format, outFile string
	var opt codex.MarkdownOptions
	cmd := &cobra.Command{
		Use:   "export BOOK.md",
		Short: "Write the codex as a Markdown appendix or as JSON",
		Long: helpText(`Write the codex to standard output (or -o FILE): --format md (default) as an
appendix with a section per kind (Characters, Places, Objects, Glossary,
Timeline, Style guide; --level sets the heading level of the sections) that
'aite codex import' reads back, or --format json. Notes are private: the
Markdown leaves them out unless --notes; JSON always has them.`),
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.json {
				format = "json"
			}
			return withBook(cmd, args[0], func(b *cli.Book) error {
				if outFile == "" {
					return cli.CodexExport(cmd.OutOrStdout(), cmd.ErrOrStderr(), b, format, opt)
				}
				return cli.CodexExportFile(outFile, cmd.ErrOrStderr(), b, format, opt)
			})
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&format, "format", "md", "md or json")
	fl.StringVarP(&outFile, "output", "o", "", "write to this file (atomically) instead of standard output")
	fl.IntVar(&opt.Level, "level", 2, "heading level of the appendix sections (1..5)")
	fl.BoolVar(&opt.Notes, "notes", false, "include your private notes in the Markdown")
	return cmd
}
