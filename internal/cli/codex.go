package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/aitexteditor/aite/internal/atomicfile"
	"github.com/aitexteditor/aite/internal/codex"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/aitexteditor/aite/internal/reading"
)

// codexError turns the codex's errors into usage errors (exit code 1).
func codexError(err error) error {
	if errors.Is(err, codex.ErrNotFound) || errors.Is(err, codex.ErrAmbiguous) || errors.Is(err, codex.ErrInvalid) {
		return &reading.UsageError{Err: err}
	}
	return err
}

// kindFlag reads the value of --kind: an unknown kind is a usage error
// that names the flag and the kinds there are.
func kindFlag(s string) (codex.Kind, error) {
	k, err := codex.ParseKind(s)
	if err != nil {
		return "", reading.Usagef("--kind: unknown kind %q (%s)", s, reading.NameList(codex.Kinds))
	}
	return k, nil
}

// Codex returns the book's codex and where it comes from, writing a
// warning (a damaged stored codex, a malformed sidecar) to log.
func (b *Book) Codex(log io.Writer) (*codex.Codex, editor.CodexInfo, error) {
	c, info, err := b.s.Codex(b.id)
	if err == nil && info.Warning != "" {
		fmt.Fprintf(log, "aite: warning: %s\n", info.Warning)
	}
	return c, info, err
}

// storeCodex stores the book's codex.
func (b *Book) storeCodex(c *codex.Codex) error {
	if _, err := b.s.SetCodex(b.id, c); err != nil {
		if errors.Is(err, editor.ErrIO) {
			return &reading.IOError{Err: err}
		}
		return codexError(err)
	}
	return nil
}

// EntryRow is one entry of `aite codex list`.
type EntryRow struct {
	codex.Entry
	Items int    `json:"items"`
	First string `json:"first,omitempty"`
}

// CodexListJSON is the JSON shape of `aite codex list`.
type CodexListJSON struct {
	Source  string     `json:"source"`
	Path    string     `json:"path,omitempty"`
	Entries []EntryRow `json:"entries"`
}

// CodexList writes the entries (of one kind, when given) with the number
// of items that name them.
func CodexList(w, log io.Writer, b *Book, kind string, asJSON bool) error {
	var k codex.Kind
	if kind != "" {
		var err error
		if k, err = kindFlag(kind); err != nil {
			return err
		}
	}
	c, info, err := b.Codex(log)
	if err != nil {
		return err
	}
	uses, err := b.s.CodexUses(b.id)
	if err != nil {
		return err
	}
	out := CodexListJSON{Source: info.Source, Path: info.Path, Entries: []EntryRow{}}
	for _, e := range c.Entries {
		if k == "" || e.Kind == k {
			u := uses[e.ID]
			out.Entries = append(out.Entries, EntryRow{Entry: e, Items: u.Items, First: u.First})
		}
	}
	if asJSON {
		return reading.WriteJSON(w, out)
	}
	rows := make([][]string, len(out.Entries))
	for i, e := range out.Entries {
		mark := ""
		if e.Confirmed {
			mark = "✓"
		}
		rows[i] = []string{e.ID, string(e.Kind), e.Name, strconv.Itoa(e.Items), string(e.Origin) + mark, strings.Join(e.Aliases, "; ")}
	}
	reading.WriteColumns(w, rows, "")
	fmt.Fprintf(log, "%s (%s)\n", entriesText(len(out.Entries)), describeSource(info))
	if info.Source == editor.CodexNone {
		fmt.Fprintf(log, "the codex is empty: `aite codex build %s` finds the characters and places the text names\n", b.id)
	}
	return nil
}

func describeSource(info editor.CodexInfo) string {
	switch info.Source {
	case editor.CodexStored:
		return "stored in " + info.Path
	case editor.CodexCards:
		return "read from " + info.Path + " and the book's appendix"
	case editor.CodexAppendix:
		return "read from the book's appendix"
	}
	return "no codex yet"
}

// CodexShowJSON is the JSON shape of `aite codex show`.
type CodexShowJSON struct {
	Entry codex.Entry      `json:"entry"`
	Uses  editor.EntryUses `json:"uses"`
	// At and FactsAsOf: with --at, the facts known at that item.
	At        string       `json:"at,omitempty"`
	FactsAsOf []codex.Fact `json:"factsAsOf,omitempty"`
}

// CodexShow writes one entry in full: names, the forms the text uses,
// description, notes, relations, facts with their evidence (with at: only
// the facts known at that item).
func CodexShow(w, log io.Writer, b *Book, ref, at string, asJSON bool) error {
	c, _, err := b.Codex(log)
	if err != nil {
		return err
	}
	e, err := c.Find(ref)
	if err != nil {
		return codexError(err)
	}
	uses, err := b.s.CodexUses(b.id)
	if err != nil {
		return err
	}
	out := CodexShowJSON{Entry: *e, Uses: uses[e.ID]}
	facts := e.Facts
	if at != "" {
		known, ptr, err := b.s.FactsAsOf(b.id, e.ID, at)
		if err != nil {
			return b.WithNearest(err)
		}
		out.At, facts = ptr, known
		out.FactsAsOf = append([]codex.Fact{}, known...)
	}
	if asJSON {
		return reading.WriteJSON(w, out)
	}
	writeEntry(w, b, out, facts, c)
	return nil
}

// writeEntry writes an entry for people.
func writeEntry(w io.Writer, b *Book, v CodexShowJSON, facts []codex.Fact, c *codex.Codex) {
	e := v.Entry
	state := string(e.Origin)
	if e.Confirmed {
		state += ", confirmed"
	}
	fmt.Fprintf(w, "%s  (%s, %s; id %s)\n", e.Name, e.Kind, state, e.ID)
	if len(e.Aliases) > 0 {
		fmt.Fprintf(w, "also: %s\n", strings.Join(e.Aliases, "; "))
	}
	if v.Uses.Items > 0 {
		forms := make([]string, 0, len(v.Uses.Forms))
		for f := range v.Uses.Forms {
			forms = append(forms, f)
		}
		sort.Slice(forms, func(i, j int) bool {
			if v.Uses.Forms[forms[i]] != v.Uses.Forms[forms[j]] {
				return v.Uses.Forms[forms[i]] > v.Uses.Forms[forms[j]]
			}
			return forms[i] < forms[j]
		})
		for i, f := range forms {
			forms[i] = fmt.Sprintf("%s ×%d", f, v.Uses.Forms[f])
		}
		fmt.Fprintf(w, "named in %s, first at %s: %s\n", reading.Plural(v.Uses.Items, "item"), v.Uses.First, strings.Join(forms, ", "))
	} else {
		fmt.Fprintln(w, "named in no item")
	}
	if e.Description != "" {
		fmt.Fprintf(w, "\n%s\n", e.Description)
	}
	if e.Notes != "" {
		fmt.Fprintf(w, "\nnotes: %s\n", e.Notes)
	}
	if len(e.Relations) > 0 {
		fmt.Fprintln(w)
		for _, r := range e.Relations {
			target := r.Target
			if t, err := c.Find(r.Target); err == nil {
				target = t.Name
			}
			fmt.Fprintf(w, "%s → %s\n", r.Type, target)
		}
	}
	switch {
	case v.At != "" && len(facts) == 0:
		fmt.Fprintf(w, "\nfacts known at %s: none yet (%d known later)\n", v.At, len(e.Facts))
	case v.At != "":
		fmt.Fprintf(w, "\nfacts known at %s (%d of %d):\n", v.At, len(facts), len(e.Facts))
	case len(facts) > 0:
		fmt.Fprintln(w, "\nfacts:")
	}
	for i, f := range facts {
		fmt.Fprintf(w, "%d. %s%s\n", i+1, f.Text, b.evidenceText(f))
	}
}

// evidenceText is " (pointers)" with the evidence as it is now.
func (b *Book) evidenceText(f codex.Fact) string {
	if len(f.Evidence) == 0 {
		return ""
	}
	ptrs := make([]string, len(f.Evidence))
	for i, p := range f.Evidence {
		if v, err := b.s.Resolve(b.id, p); err == nil {
			ptrs[i] = v.Pointer.String()
		} else {
			ptrs[i] = p + " (gone)"
		}
	}
	return " (" + strings.Join(ptrs, ", ") + ")"
}

// EntryChange is an edit of an entry by `aite codex add` or `edit`. Empty
// fields change nothing.
type EntryChange struct {
	Name, Kind         string
	Description, Notes *string
	AddAliases, Remove []string // names to add, aliases to remove
	Facts              []string // "text@PTR,PTR" or "text"
	RemoveFacts        []int    // 1-based
	Relations          []string // "type=target"
	RemoveRelations    []int    // 1-based
	Confirm, Unconfirm bool
}

// apply changes e (which is the user's from now on).
func (ch EntryChange) apply(e *codex.Entry, c *codex.Codex) error {
	if ch.Name != "" && ch.Name != e.Name {
		old := e.Name
		e.RemoveAlias(ch.Name)
		e.Name = ch.Name
		e.AddAlias(old)
	}
	if ch.Kind != "" {
		k, err := kindFlag(ch.Kind)
		if err != nil {
			return err
		}
		e.Kind = k
	}
	if ch.Description != nil {
		e.Description = *ch.Description
	}
	if ch.Notes != nil {
		e.Notes = *ch.Notes
	}
	for _, a := range ch.Remove {
		if !e.RemoveAlias(a) {
			return fmt.Errorf("%w: %q is not an alias of %s (aliases: %s)", codex.ErrInvalid, a, e.Name, strings.Join(e.Aliases, "; "))
		}
	}
	e.AddAlias(ch.AddAliases...)
	if err := removeAt(&e.Facts, ch.RemoveFacts, "fact"); err != nil {
		return err
	}
	for _, f := range ch.Facts {
		text, ptrs, _ := strings.Cut(f, "@")
		fact := codex.Fact{Text: strings.TrimSpace(text), Origin: codex.FromUser}
		for _, p := range strings.Split(ptrs, ",") {
			if p = strings.TrimSpace(p); p != "" {
				fact.Evidence = append(fact.Evidence, p)
			}
		}
		e.Facts = append(e.Facts, fact)
	}
	if err := removeAt(&e.Relations, ch.RemoveRelations, "relation"); err != nil {
		return err
	}
	for _, r := range ch.Relations {
		typ, target, ok := strings.Cut(r, "=")
		if !ok {
			return fmt.Errorf("%w: a relation is written TYPE=TARGET, e.g. \"sister of=Jane\" (got %q)", codex.ErrInvalid, r)
		}
		target = strings.TrimSpace(target)
		if t, err := c.Find(target); err == nil {
			target = t.ID
		}
		e.Relations = append(e.Relations, codex.Relation{Type: strings.TrimSpace(typ), Target: target})
	}
	switch {
	case ch.Confirm:
		e.Confirmed = true
	case ch.Unconfirm:
		e.Confirmed = false
	}
	e.Origin = codex.FromUser
	return nil
}

// removeAt removes the 1-based positions of a list.
func removeAt[T any](list *[]T, at []int, what string) error {
	sorted := slices.Clone(at)
	slices.Sort(sorted)
	slices.Reverse(sorted)
	for _, n := range slices.Compact(sorted) {
		if n < 1 || n > len(*list) {
			return fmt.Errorf("%w: there is no %s %d (the entry has %d)", codex.ErrInvalid, what, n, len(*list))
		}
		*list = slices.Delete(*list, n-1, n)
	}
	return nil
}

// checkEvidence checks the evidence of e's facts (editor.Session.CheckEvidence).
func (b *Book) checkEvidence(e *codex.Entry) error {
	return b.WithNearest(b.s.CheckEvidence(b.id, e))
}

// CodexAdd adds an entry named name and writes it.
func CodexAdd(w, log io.Writer, b *Book, name string, ch EntryChange, asJSON bool) error {
	c, _, err := b.Codex(log)
	if err != nil {
		return err
	}
	e := codex.Entry{Name: name, Origin: codex.FromUser}
	if err := ch.apply(&e, c); err != nil {
		return codexError(err)
	}
	if err := b.checkEvidence(&e); err != nil {
		return err
	}
	added, err := c.Add(e)
	if err != nil {
		return codexError(err)
	}
	out := *added
	if err := b.storeCodex(c); err != nil {
		return err
	}
	return b.writeChanged(w, log, "added", out, asJSON)
}

// CodexEdit changes the entry ref names and writes it.
func CodexEdit(w, log io.Writer, b *Book, ref string, ch EntryChange, asJSON bool) error {
	c, _, err := b.Codex(log)
	if err != nil {
		return err
	}
	e, err := c.Find(ref)
	if err != nil {
		return codexError(err)
	}
	changed := e.Clone()
	if err := ch.apply(&changed, c); err != nil {
		return codexError(err)
	}
	if err := b.checkEvidence(&changed); err != nil {
		return err
	}
	out, err := c.Replace(changed)
	if err != nil {
		return codexError(err)
	}
	res := *out
	if err := b.storeCodex(c); err != nil {
		return err
	}
	return b.writeChanged(w, log, "changed", res, asJSON)
}

// CodexRemove removes entries.
func CodexRemove(w, log io.Writer, b *Book, refs []string, asJSON bool) error {
	c, _, err := b.Codex(log)
	if err != nil {
		return err
	}
	var gone []codex.Entry
	for _, r := range refs {
		e, err := c.Remove(r)
		if err != nil {
			return codexError(err)
		}
		gone = append(gone, e)
	}
	if err := b.storeCodex(c); err != nil {
		return err
	}
	if asJSON {
		return reading.WriteJSON(w, map[string]any{"removed": gone})
	}
	for _, e := range gone {
		fmt.Fprintf(w, "removed %s (%s)\n", e.Name, e.ID)
	}
	return nil
}

// CodexMerge merges entries into one.
func CodexMerge(w, log io.Writer, b *Book, into string, froms []string, asJSON bool) error {
	c, _, err := b.Codex(log)
	if err != nil {
		return err
	}
	e, err := c.Merge(into, froms...)
	if err != nil {
		return codexError(err)
	}
	e.Origin = codex.FromUser
	out := *e
	if err := b.storeCodex(c); err != nil {
		return err
	}
	return b.writeChanged(w, log, "merged into", out, asJSON)
}

func (b *Book) writeChanged(w, log io.Writer, verb string, e codex.Entry, asJSON bool) error {
	if asJSON {
		return reading.WriteJSON(w, e)
	}
	fmt.Fprintf(w, "%s %s (%s, id %s)", verb, e.Name, e.Kind, e.ID)
	if len(e.Aliases) > 0 {
		fmt.Fprintf(w, "; also: %s", strings.Join(e.Aliases, "; "))
	}
	fmt.Fprintln(w)
	uses, err := b.s.CodexUses(b.id)
	if err == nil {
		fmt.Fprintf(log, "named in %s\n", reading.Plural(uses[e.ID].Items, "item"))
	}
	return nil
}

// CodexImport reads entries from a file (JSON: a codex or reference cards;
// Markdown: an appendix) or, with file "", from the book's own appendix,
// and adds them to the book's codex: an entry whose name is already an
// entry's is skipped (and listed); replace starts from an empty codex.
func CodexImport(w, log io.Writer, b *Book, file string, replace, asJSON bool) error {
	in, err := b.importSource(file)
	if err != nil {
		return err
	}
	c, _, err := b.Codex(log)
	if err != nil {
		return err
	}
	if replace {
		c = &codex.Codex{Rejected: c.Rejected}
	}
	added, skipped, err := c.Import(in)
	if err != nil {
		return codexError(err)
	}
	if skipped == nil {
		skipped = []string{}
	}
	if err := b.storeCodex(c); err != nil {
		return err
	}
	if asJSON {
		return reading.WriteJSON(w, map[string]any{"added": added, "skipped": skipped, "entries": c.Len()})
	}
	fmt.Fprintf(w, "imported %s; the codex has %s\n", entriesText(added), entriesText(c.Len()))
	for _, s := range skipped {
		fmt.Fprintf(log, "skipped %s\n", s)
	}
	return nil
}

// importSource reads what to import.
func (b *Book) importSource(file string) (*codex.Codex, error) {
	if file == "" {
		src, err := b.s.Source(b.id)
		if err != nil {
			return nil, err
		}
		c := codex.FromAppendix(markdown.Parse(src).Items())
		if c == nil {
			return nil, reading.Usagef("%s has no appendix section (Characters, Places, Objects, Glossary, Timeline, Style guide)", b.id)
		}
		return c, nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, ioErrorf("cannot read %s: %w", file, err)
	}
	if strings.EqualFold(filepath.Ext(file), ".json") {
		c, err := codex.Unmarshal(data)
		if err != nil {
			return nil, reading.Usagef("%s: %v", file, err)
		}
		return c, nil
	}
	c := codex.FromAppendix(markdown.Parse(data).Items())
	if c == nil {
		return nil, reading.Usagef("%s has no appendix section (Characters, Places, Objects, Glossary, Timeline, Style guide) and is not a .json file", file)
	}
	return c, nil
}

// CodexExport writes the codex as a Markdown appendix or as JSON.
func CodexExport(w, log io.Writer, b *Book, format string, opt codex.MarkdownOptions) error {
	c, _, err := b.Codex(log)
	if err != nil {
		return err
	}
	switch strings.ToLower(format) {
	case "json":
		data, err := codex.Marshal(c)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return writeErr(err)
	case "md", "markdown", "":
		_, err := io.WriteString(w, codex.Markdown(c, opt))
		return writeErr(err)
	}
	return reading.Usagef("unknown --format %q (md, json)", format)
}

func writeErr(err error) error {
	if err != nil {
		return &reading.IOError{Err: fmt.Errorf("write output: %w", err)}
	}
	return nil
}

// CodexExportFile writes the export to a file atomically.
func CodexExportFile(path string, log io.Writer, b *Book, format string, opt codex.MarkdownOptions) error {
	var buf strings.Builder
	if err := CodexExport(&buf, log, b, format, opt); err != nil {
		return err
	}
	if err := atomicfile.Write(path, []byte(buf.String()), atomicfile.Options{}); err != nil {
		return &reading.IOError{Err: err}
	}
	fmt.Fprintf(log, "wrote %s\n", path)
	return nil
}
