package codex

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/textnorm"
)

// The codex as a Markdown appendix: one section per kind, titled
// "Characters", "Places", "Objects", "Glossary", "Timeline" and "Style
// guide" (Russian titles are read too). An entry is either one list item
// or paragraph "Name: text" (or "Name — text"), or a sub-heading with the
// entry's name and items under it:
//
//	### Звёздочкин
//
//	- Aliases: Аркадий Львович; Звездочкин
//	- Professor of astronomy from the provincial university.
//	- Fact (9:1.1.p6): introduces himself at the station.
//	- Relation: friend of → varja
//	- Notes: keep his dialect light.
//
// Items with other prefixes are the description, line by line. A style
// rule is one item, its whole text. Text in a section without a name is
// kept as an entry named "notes".

// sectionTitles maps folded section titles to kinds.
var sectionTitles = map[string]Kind{
	"characters": Character, "cast": Character, "cast of characters": Character, "dramatis personae": Character,
	"персонажи": Character, "действующие лица": Character,
	"places": Place, "locations": Place, "места": Place, "места действия": Place,
	"objects": Object, "objects and organisations": Object, "organisations": Object, "organizations": Object,
	"предметы": Object, "организации": Object,
	"glossary": Term, "глоссарий": Term, "словарь терминов": Term, "термины": Term,
	"timeline": Event, "events": Event, "хронология": Event, "события": Event,
	"style guide": Style, "style sheet": Style, "руководство по стилю": Style, "правила стиля": Style,
	"стилевые правила": Style,
}

// exportTitles are the section titles Markdown writes.
var exportTitles = map[Kind]string{Character: "Characters", Place: "Places", Object: "Objects",
	Term: "Glossary", Event: "Timeline", Style: "Style guide"}

// SectionKind returns the kind an appendix heading's text stands for
// (case, ё/е, a trailing colon and surrounding space ignored).
func SectionKind(title string) (Kind, bool) {
	t := textnorm.Fold(strings.TrimSpace(title))
	t = strings.TrimSpace(strings.TrimSuffix(t, ":"))
	k, ok := sectionTitles[t]
	return k, ok
}

// entryLine splits "Name: text" and "Name — text" (also "–" and " - ").
var entryLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*([^:—–]{1,80}?)\s*(?::|\s[—–-]\s)\s*(.+)$`)
})

// fieldLine splits "Field: value" and "Fact (pointer): value".
var fieldLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*(?i:(aliases|also|names|псевдонимы|другие имена|notes|заметки|fact|факт|relation|связь|description|описание))\s*(?:\(([^)]*)\))?\s*:\s*(.*)$`)
})

// FromAppendix reads the appendix sections of a book's items into a codex
// (origin import); nil when the book has none.
func FromAppendix(items []*document.Item) *Codex {
	var c *Codex
	for i := 0; i < len(items); i++ {
		h := items[i]
		if h.Kind != document.Heading {
			continue
		}
		k, ok := SectionKind(h.Text)
		if !ok {
			continue
		}
		if c == nil {
			c = &Codex{}
		}
		end := i + 1
		for end < len(items) && !(items[end].Kind == document.Heading && items[end].Level <= h.Level) {
			end++
		}
		readSection(c, k, items[i+1:end])
		i = end - 1
	}
	return c
}

// readSection adds the entries of one section.
func readSection(c *Codex, k Kind, items []*document.Item) {
	var cur *Entry // the entry a sub-heading opened
	flush := func() {
		if cur != nil {
			_, _ = c.Add(*cur)
			cur = nil
		}
	}
	for _, it := range items {
		text := strings.TrimSpace(it.Text)
		switch {
		case it.Kind == document.Heading:
			flush()
			cur = &Entry{Kind: k, Name: text, Origin: FromImport}
		case text == "":
		case cur != nil:
			readField(cur, text)
		case k == Style:
			_, _ = c.Add(Entry{Kind: Style, Name: ruleName(text), Description: text, Origin: FromImport})
		default:
			if m := entryLine().FindStringSubmatch(text); m != nil {
				addOrJoin(c, Entry{Kind: k, Name: m[1], Description: strings.TrimSpace(m[2]), Origin: FromImport})
			} else {
				addOrJoin(c, Entry{Kind: k, Name: "notes", Description: text, Origin: FromImport})
			}
		}
	}
	flush()
}

// addOrJoin adds an entry, or appends its description to the entry of the
// same kind and name.
func addOrJoin(c *Codex, e Entry) {
	for i := range c.Entries {
		if x := &c.Entries[i]; x.Kind == e.Kind && textnorm.Fold(x.Name) == textnorm.Fold(e.Name) {
			x.Description = joinText(x.Description, e.Description)
			return
		}
	}
	_, _ = c.Add(e)
}

// readField reads one item under an entry's sub-heading.
func readField(e *Entry, text string) {
	m := fieldLine().FindStringSubmatch(text)
	if m == nil {
		e.Description = joinText(e.Description, text)
		return
	}
	field, arg, value := textnorm.Fold(m[1]), strings.TrimSpace(m[2]), strings.TrimSpace(m[3])
	switch field {
	case "aliases", "also", "names", "псевдонимы", "другие имена":
		e.AddAlias(strings.FieldsFunc(value, func(r rune) bool { return r == ';' || r == ',' })...)
	case "notes", "заметки":
		e.Notes = joinText(e.Notes, value)
	case "fact", "факт":
		f := Fact{Text: value, Origin: FromImport}
		if arg != "" {
			f.Evidence = splitList(arg)
		}
		e.Facts = append(e.Facts, f)
	case "relation", "связь":
		if typ, target, ok := strings.Cut(value, "→"); ok {
			e.Relations = append(e.Relations, Relation{Type: strings.TrimSpace(typ), Target: strings.TrimSpace(target)})
		} else {
			e.Description = joinText(e.Description, text)
		}
	default:
		e.Description = joinText(e.Description, value)
	}
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' || r == ' ' }) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// MarkdownOptions shape an exported appendix.
type MarkdownOptions struct {
	// Level is the heading level of the section titles (2 when 0); entries
	// written in full are one level below.
	Level int
	// Notes includes the user's private notes (left out by default: the
	// appendix may end up in the book, where a model reads it).
	Notes bool
}

// Markdown writes the codex as an appendix FromAppendix reads back: one
// section per kind that has entries, in the order of Kinds. An entry with
// only a name and a one-line description is one list item; any other
// entry is a sub-heading with its fields as list items.
func Markdown(c *Codex, opt MarkdownOptions) string {
	level := opt.Level
	if level < 1 || level > 5 {
		level = 2
	}
	var b strings.Builder
	for _, k := range Kinds {
		entries := c.OfKind(k)
		if len(entries) == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s %s\n", strings.Repeat("#", level), exportTitles[k])
		inList := false
		for _, e := range entries {
			if line, ok := compact(e, opt); ok {
				if !inList {
					b.WriteString("\n")
				}
				b.WriteString(line)
				inList = true
				continue
			}
			inList = false
			writeFull(&b, e, level+1, opt)
		}
	}
	return b.String()
}

// compact returns an entry as one list item when nothing would be lost.
func compact(e Entry, opt MarkdownOptions) (string, bool) {
	desc := strings.TrimSpace(e.Description)
	if len(e.Aliases) > 0 || len(e.Facts) > 0 || len(e.Relations) > 0 || opt.Notes && e.Notes != "" ||
		strings.Contains(desc, "\n") || desc == "" && e.Kind != Style {
		return "", false
	}
	if e.Kind == Style {
		if desc == "" || ruleName(desc) != e.Name {
			return "", false
		}
		return "- " + desc + "\n", true
	}
	if strings.ContainsAny(e.Name, ":—–") || fieldLine().MatchString(e.Name+": x") {
		return "", false
	}
	return fmt.Sprintf("- %s: %s\n", e.Name, desc), true
}

// writeFull writes an entry as a sub-heading with its fields.
func writeFull(out *strings.Builder, e Entry, level int, opt MarkdownOptions) {
	fmt.Fprintf(out, "\n%s %s\n", strings.Repeat("#", level), e.Name)
	var b strings.Builder
	defer func() {
		if b.Len() > 0 {
			out.WriteString("\n" + b.String())
		}
	}()
	if len(e.Aliases) > 0 {
		fmt.Fprintf(&b, "- Aliases: %s\n", strings.Join(e.Aliases, "; "))
	}
	for _, line := range strings.Split(strings.TrimSpace(e.Description), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			if fieldLine().MatchString(line) || entryLine().MatchString(line) && e.Kind != Style {
				line = "Description: " + line
			}
			fmt.Fprintf(&b, "- %s\n", line)
		}
	}
	for _, f := range e.Facts {
		if len(f.Evidence) > 0 {
			fmt.Fprintf(&b, "- Fact (%s): %s\n", strings.Join(f.Evidence, ", "), f.Text)
		} else {
			fmt.Fprintf(&b, "- Fact: %s\n", f.Text)
		}
	}
	for _, r := range e.Relations {
		fmt.Fprintf(&b, "- Relation: %s → %s\n", r.Type, r.Target)
	}
	if opt.Notes && strings.TrimSpace(e.Notes) != "" {
		fmt.Fprintf(&b, "- Notes: %s\n", strings.ReplaceAll(strings.TrimSpace(e.Notes), "\n", " "))
	}
}

// MergeKinds returns base with the entries of over's kinds replaced by
// over's: a sidecar file's characters replace the appendix's, kinds it
// lacks come from the appendix. Either may be nil.
func MergeKinds(base, over *Codex) *Codex {
	switch {
	case over == nil && base == nil:
		return nil
	case over == nil:
		return base.Clone()
	case base == nil:
		return over.Clone()
	}
	out := over.Clone()
	for _, e := range base.Entries {
		if !slices.ContainsFunc(over.Entries, func(x Entry) bool { return x.Kind == e.Kind }) {
			e.ID = ""
			_, _ = out.Add(e)
		}
	}
	return out
}
