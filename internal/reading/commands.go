package reading

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/aitexteditor/aite/internal/cursor"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/search"
)

// The reading commands, as the command line runs them: a command's flags
// are registered on a pflag.FlagSet (cobra's, or the one internal/quick
// parses the arguments with), Prepare checks them and the arguments after
// BOOK.md before the book is opened, and Run prints the answer. Both ways
// of running a command go through the same three steps, so they print the
// same bytes.

// Command is one reading command.
type Command interface {
	// Register adds the command's flags to fs.
	Register(fs *pflag.FlagSet)
	// Prepare checks the flags (fs tells which were given) and the
	// arguments after BOOK.md, and keeps the request.
	Prepare(fs *pflag.FlagSet, args []string) error
	// Run runs the prepared request on the book and prints the result to
	// out (JSON with asJSON) and notes to log.
	Run(b *Book, asJSON bool, out, log io.Writer) error
}

// NewCommand returns a new command by name (find, read, items, outline,
// cursor), or nil.
func NewCommand(name string) Command {
	switch name {
	case "find":
		return &FindCommand{}
	case "read":
		return &ReadCommand{}
	case "items":
		return &ItemsCommand{}
	case "outline":
		return &OutlineCommand{}
	case "cursor":
		return &CursorCommand{}
	}
	return nil
}

// Args returns how many arguments (BOOK.md included) a reading command
// takes: at least min, at most max (-1: any number).
func Args(name string) (min, max int) {
	switch name {
	case "find":
		return 2, -1
	case "read":
		return 2, 2
	}
	return 1, 1
}

// Heavy reports whether a prepared command needs more than a Reader: the
// codex (--entry), the saved target sets (--targets) or an embedding model
// (--semantic, --hybrid), which only the ordinary command line loads.
func Heavy(c Command) bool {
	switch c := c.(type) {
	case *FindCommand:
		return c.req.Mode == FindEntry || c.req.Mode == FindSemantic || c.req.Mode == FindHybrid
	case *CursorCommand:
		return c.req.Entry != "" || c.req.Targets != ""
	}
	return false
}

// BuildsIndex reports whether a prepared command may build the book's
// search index: a find but by keyword (the codex's --entry too), a cursor
// over a codex entry or a target set. The others only read the items, so
// on a book just parsed the command line writes its cache beside their
// work (editor.Session.CacheMeanwhile) instead of after it.
func BuildsIndex(c Command) bool {
	switch c := c.(type) {
	case *FindCommand:
		return c.req.Mode != FindKeyword
	case *CursorCommand:
		return c.req.Entry != "" || c.req.Targets != ""
	}
	return false
}

// FindCommand is `aite find BOOK.md WORD...` (or `aite find BOOK.md
// --entry NAME`).
type FindCommand struct {
	exact, ranked, headings bool
	semantic, hybrid        bool
	kinds                   []string
	within, entry           string
	embedModel, config      string
	limit                   int
	req                     FindRequest
}

// Register adds the flags of find.
func (c *FindCommand) Register(fs *pflag.FlagSet) {
	fs.BoolVar(&c.exact, "exact", false, "find the words as an exact phrase (document order)")
	fs.BoolVar(&c.ranked, "ranked", false, "rank the items by BM25 relevance (best first, with scores)")
	fs.BoolVar(&c.headings, "headings", false, "include headings")
	fs.StringSliceVar(&c.kinds, "kind", nil, "find only items of these kinds (repeatable or comma-separated)")
	fs.StringVar(&c.within, "within", "", "search only the section of the heading this pointer names")
	fs.StringVar(&c.entry, "entry", "", "list the items naming this codex entry (its ID, name or an alias)")
	fs.BoolVar(&c.semantic, "semantic", false, "rank the items by meaning (an embedding model)")
	fs.BoolVar(&c.hybrid, "hybrid", false, "rank by words and meaning fused")
	fs.StringVar(&c.embedModel, "embed-model", "", "the embedding model (default: AITE_EMBED_MODEL or embedModel)")
	fs.StringVar(&c.config, "config", "", "read this config file instead of the usual ones")
	fs.IntVar(&c.limit, "limit", search.DefaultLimit, fmt.Sprintf("list at most this many items (1..%d)", search.MaxLimit))
}

// Prepare checks the flags of find; args are the words.
func (c *FindCommand) Prepare(fs *pflag.FlagSet, args []string) error {
	req := FindRequest{Words: args, Mode: FindKeyword, Headings: c.headings, Within: c.within, Limit: c.limit}
	switch {
	case c.exact && c.ranked:
		return Usagef("give either --exact or --ranked, not both")
	case btoi(c.exact)+btoi(c.ranked)+btoi(c.entry != "")+btoi(c.semantic)+btoi(c.hybrid) > 1:
		return Usagef("give one of --exact, --ranked, --semantic, --hybrid and --entry")
	case c.semantic:
		req.Mode = FindSemantic
	case c.hybrid:
		req.Mode = FindHybrid
	case c.entry != "":
		req.Mode, req.Entry = FindEntry, c.entry
		if !fs.Changed("limit") {
			req.Limit = 0 // every item naming it unless told
		}
	case c.exact:
		req.Mode = FindExact
	case c.ranked:
		req.Mode = FindRanked
	case !fs.Changed("limit"):
		req.Limit = 0 // the keyword mode lists every match unless told
	}
	if err := CheckSearchLimit(c.limit); err != nil {
		return err
	}
	var err error
	req.Kinds, err = ParseKinds(c.kinds)
	c.req = req
	return err
}

// Request is the prepared request.
func (c *FindCommand) Request() FindRequest { return c.req }

// EmbedModel is what --embed-model and --config name (for the searches by
// meaning, which the command line runs itself).
func (c *FindCommand) EmbedModel() (model, config string) { return c.embedModel, c.config }

// Run finds and prints the matches.
func (c *FindCommand) Run(b *Book, asJSON bool, out, log io.Writer) error {
	found, err := b.Find(c.req)
	if err != nil {
		return err
	}
	if asJSON {
		return WriteJSON(out, found)
	}
	WriteFound(out, log, found)
	return nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ReadCommand is `aite read BOOK.md POINTER`.
type ReadCommand struct {
	before, after int
	ptr           string
}

// Register adds the flags of read.
func (c *ReadCommand) Register(fs *pflag.FlagSet) {
	fs.IntVar(&c.before, "before", 0, "also print this many items before it")
	fs.IntVar(&c.after, "after", 0, "also print this many items after it")
}

// Prepare checks the flags of read; args is the pointer.
func (c *ReadCommand) Prepare(_ *pflag.FlagSet, args []string) error {
	c.ptr = args[0]
	return CheckNeighbours(c.before, c.after)
}

// Run prints the item and its neighbours.
func (c *ReadCommand) Run(b *Book, asJSON bool, out, log io.Writer) error {
	v, err := b.Read(c.ptr, c.before, c.after)
	if err != nil {
		return err
	}
	b.WarnStale(log, c.ptr)
	if asJSON {
		return WriteJSON(out, NewRead(v))
	}
	WriteRead(out, v)
	return nil
}

// ItemsCommand is `aite items BOOK.md`.
type ItemsCommand struct {
	from      string
	limit     int
	kindNames []string
	kinds     []document.Kind
}

// Register adds the flags of items.
func (c *ItemsCommand) Register(fs *pflag.FlagSet) {
	fs.StringVar(&c.from, "from", "", "start at the item this pointer names")
	fs.IntVar(&c.limit, "limit", 50, fmt.Sprintf("list at most this many items (1..%d)", MaxLimit))
	fs.StringSliceVar(&c.kindNames, "kind", nil, "list only items of these kinds (repeatable or comma-separated)")
}

// Prepare checks the flags of items.
func (c *ItemsCommand) Prepare(_ *pflag.FlagSet, _ []string) error {
	if err := CheckLimit(c.limit); err != nil {
		return err
	}
	var err error
	c.kinds, err = ParseKinds(c.kindNames)
	return err
}

// Run lists the items.
func (c *ItemsCommand) Run(b *Book, asJSON bool, out, log io.Writer) error {
	v, err := b.Items(c.from, c.limit, c.kinds)
	if err != nil {
		return err
	}
	b.WarnStale(log, c.from)
	if asJSON {
		return WriteJSON(out, NewItemList(v))
	}
	WriteItemLines(out, v.Items, "")
	switch {
	case len(v.Items) == 0:
		fmt.Fprintln(log, "no items")
	case v.Next != "":
		fmt.Fprintf(log, "more items follow: continue with --from %s\n", v.Next)
	}
	return nil
}

// OutlineCommand is `aite outline BOOK.md`.
type OutlineCommand struct{}

// Register adds no flags: outline has none.
func (c *OutlineCommand) Register(*pflag.FlagSet) {}

// Prepare has nothing to check.
func (c *OutlineCommand) Prepare(*pflag.FlagSet, []string) error { return nil }

// Run prints the heading tree.
func (c *OutlineCommand) Run(b *Book, asJSON bool, out, _ io.Writer) error {
	ol, err := b.Outline()
	if err != nil {
		return err
	}
	if asJSON {
		return WriteJSON(out, ol)
	}
	WriteOutline(out, ol)
	return nil
}

// CursorCommand is `aite cursor BOOK.md`.
type CursorCommand struct {
	keywords, kinds          []string
	regex, within, after     string
	entry, targets           string
	maxElements, maxBytes    int
	backward, noContent, noH bool
	req                      CursorRequest
}

// Register adds the flags of cursor.
func (c *CursorCommand) Register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&c.keywords, "keywords", nil, "keep items holding all words of this keyword (repeatable: any keyword)")
	fs.StringSliceVar(&c.kinds, "kind", nil, "keep only items of these kinds (repeatable or comma-separated)")
	fs.StringVar(&c.regex, "regex", "", "keep only items whose plain text matches this regular expression")
	fs.StringVar(&c.within, "within", "", "keep only the section of the heading this pointer names")
	fs.StringVar(&c.entry, "entry", "", "walk the items naming this codex entry (its ID, name or an alias)")
	fs.StringVar(&c.targets, "targets", "", "walk the items of this saved target set (see 'aite targets')")
	fs.IntVar(&c.maxElements, "max-elements", cursor.DefaultMaxElements, fmt.Sprintf("items per portion (1..%d)", cursor.MaxElementsLimit))
	fs.IntVar(&c.maxBytes, "max-bytes", cursor.DefaultMaxBytes, fmt.Sprintf("bytes of Markdown per portion (1..%d)", cursor.MaxBytesLimit))
	fs.BoolVar(&c.backward, "backward", false, "walk from the end of the book")
	fs.StringVar(&c.after, "start-after", "", "start after (backward: before) the item this pointer names")
	fs.BoolVar(&c.noContent, "no-content", false, "leave out the items' Markdown")
	fs.BoolVar(&c.noH, "no-headings", false, "skip headings")
}

// Prepare checks the flags of cursor.
func (c *CursorCommand) Prepare(*pflag.FlagSet, []string) error {
	kinds, err := ParseKinds(c.kinds)
	if err != nil {
		return err
	}
	c.req = CursorRequest{Keywords: c.keywords, Entry: c.entry, Targets: c.targets, Kinds: kinds, Regex: c.regex, Within: c.within,
		MaxElements: c.maxElements, MaxBytes: c.maxBytes, Backward: c.backward, StartAfter: c.after,
		NoContent: c.noContent, NoHeadings: c.noH}
	_, err = c.req.Spec()
	return err
}

// Run prints every portion of the cursor.
func (c *CursorCommand) Run(b *Book, asJSON bool, out, log io.Writer) error {
	k := 0
	return b.Portions(c.req, log, func(p cursor.Portion) error {
		k++
		if asJSON {
			return WriteJSONLine(out, p)
		}
		b.WritePortion(out, k, p, !c.noContent)
		return nil
	})
}
