package editor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/aitexteditor/aite/internal/codex"
	"github.com/aitexteditor/aite/internal/cursor"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/search"
	"github.com/aitexteditor/aite/internal/textnorm"
)

// The codex of a book (internal/codex): its reference data. A book file's
// codex is stored in its state directory (CodexPath). Until one is stored,
// the codex is read from the book's reference cards: a sidecar file
// (novel.md → novel.cards.json) and the book's appendix sections
// ("Characters", "Glossary", "Style guide", …); the sidecar's kinds win.
// A book held in memory keeps its codex in the session.

// CodexPath is the file that holds a book file's codex.
func CodexPath(book string) string { return filepath.Join(StateDir(book), "codex.json") }

// CardsSuffix names the sidecar file of a book's reference cards:
// novel.md → novel.cards.json, beside the book.
const CardsSuffix = ".cards.json"

// CardsPath is the sidecar reference-cards file of a book file.
func CardsPath(book string) string { return strings.TrimSuffix(book, filepath.Ext(book)) + CardsSuffix }

// Where a codex comes from.
const (
	CodexStored   = "stored"   // the state directory (a file book) or the session (a book in memory)
	CodexCards    = "cards"    // derived from the sidecar file and the appendix
	CodexAppendix = "appendix" // derived from the appendix
	CodexNone     = "none"     // no codex yet: empty
)

// CodexInfo says where a book's codex comes from.
type CodexInfo struct {
	Source  string `json:"source"`
	Path    string `json:"path,omitempty"` // the stored file, or the sidecar
	Entries int    `json:"entries"`
	// Warning says why a stored codex or a sidecar file could not be read.
	Warning string `json:"warning,omitempty"`
}

// bookCodex is the codex state of an open book.
type bookCodex struct {
	loaded  bool
	c       *codex.Codex
	info    CodexInfo
	stored  string         // why the stored codex could not be read
	matcher *codex.Matcher // for c; nil until needed
	forC    *codex.Codex   // the codex matcher was made for
}

// Codex returns a copy of the book's codex and where it comes from (see
// above). A damaged stored codex is set aside (renamed to
// codex.json.damaged-TIME) with a warning and the cards are read instead;
// nothing is lost. A malformed sidecar file is a warning too.
func (s *Session) Codex(id string) (*codex.Codex, CodexInfo, error) {
	var c *codex.Codex
	var info CodexInfo
	err := s.with(id, func(b *book) error {
		cx := b.loadCodex()
		c, info = cx.c.Clone(), cx.info
		return nil
	})
	return c, info, err
}

// loadCodex reads the stored codex on first use; a codex derived from the
// cards is derived again on every use, so it follows edits of the appendix
// and of the sidecar file. Caller holds the lock.
func (b *book) loadCodex() *bookCodex {
	cx := &b.codex
	if cx.loaded && cx.info.Source == CodexStored {
		return cx
	}
	warning := cx.stored
	if !cx.loaded {
		var c *codex.Codex
		c, warning = b.readStoredCodex()
		if c != nil {
			*cx = bookCodex{loaded: true, c: c, info: CodexInfo{Source: CodexStored, Path: b.codexPath(), Entries: c.Len()}}
			return cx
		}
	}
	b.deriveCodex(warning)
	return cx
}

// codexName is the file of a book's codex in its data.
const codexName = "codex.json"

// codexPath is where a book file's codex is ("" for a book in memory).
func (b *book) codexPath() string {
	if b.path == "" {
		return ""
	}
	return CodexPath(b.path)
}

// readStoredCodex reads a stored codex: nil and a warning when there is
// none or it cannot be read; a damaged file is set aside.
func (b *book) readStoredCodex() (*codex.Codex, string) {
	data, err := b.readData(codexName)
	switch {
	case err != nil:
		return nil, fmt.Sprintf("the stored codex (%s) could not be read: %v", b.dataWhere(codexName), err)
	case data == nil:
		return nil, ""
	}
	c, err := codex.Unmarshal(data)
	if err == nil {
		return c, ""
	}
	msg := fmt.Sprintf("the stored codex (%s) could not be read (%v)", b.dataWhere(codexName), err)
	if aside := b.setAside(codexName); aside != "" {
		msg += "; it was moved to " + aside
	}
	return nil, msg
}

// deriveCodex reads the codex from the cards. Caller holds the lock.
func (b *book) deriveCodex(warning string) {
	cx := &b.codex
	prev, matcher := cx.c, cx.matcher
	*cx = bookCodex{loaded: true, c: &codex.Codex{}, info: CodexInfo{Source: CodexNone, Warning: warning}, stored: warning}
	var side *codex.Codex
	if b.path != "" {
		data, err := os.ReadFile(CardsPath(b.path))
		switch {
		case err == nil:
			if side, err = codex.Unmarshal(data); err != nil {
				cx.info.Warning = joinWarning(cx.info.Warning, fmt.Sprintf("the reference cards %s: %v", CardsPath(b.path), err))
				side = nil
			}
		case !errors.Is(err, fs.ErrNotExist):
			cx.info.Warning = joinWarning(cx.info.Warning, fmt.Sprintf("the reference cards %s: %v", CardsPath(b.path), err))
		}
	}
	app := codex.FromAppendix(b.doc.Items())
	if merged := codex.MergeKinds(app, side); merged != nil {
		cx.c = merged
		cx.info.Source = CodexAppendix
		if side != nil {
			cx.info.Source, cx.info.Path = CodexCards, CardsPath(b.path)
		}
	}
	cx.info.Entries = cx.c.Len()
	if prev != nil && reflect.DeepEqual(prev, cx.c) {
		cx.c, cx.matcher, cx.forC = prev, matcher, prev // unchanged: keep its matcher
	}
}

func joinWarning(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// SetCodex checks and stores the book's codex: for a book file, atomically
// in its state directory; for a book in memory, in the session's
// DataStore (and the session). From then on the stored codex is the book's
// codex (the cards are no longer read).
func (s *Session) SetCodex(id string, c *codex.Codex) (CodexInfo, error) {
	if err := c.Validate(); err != nil {
		return CodexInfo{}, err
	}
	var info CodexInfo
	err := s.with(id, func(b *book) error {
		data, err := codex.Marshal(c)
		if err != nil {
			return err
		}
		if err := b.writeData(codexName, data); err != nil {
			return err
		}
		b.codex = bookCodex{loaded: true, c: c.Clone(), info: CodexInfo{Source: CodexStored, Path: b.codexPath(), Entries: c.Len()}}
		info = b.codex.info
		return nil
	})
	return info, err
}

// BuildCodex finds the book's characters and places without a model and
// merges them into its codex (codex.Build: the user's, a model's and
// imported entries are kept). The result is not stored; SetCodex stores
// it.
func (s *Session) BuildCodex(id string) (*codex.Codex, codex.BuildReport, error) {
	var c *codex.Codex
	var rep codex.BuildReport
	err := s.with(id, func(b *book) error {
		c, rep = codex.Build(b.doc.Items(), b.loadCodex().c)
		return nil
	})
	return c, rep, err
}

// codexMatcher returns the matcher of the book's codex. Caller holds the
// lock.
func (b *book) codexMatcher() *codex.Matcher {
	cx := b.loadCodex()
	if cx.matcher == nil || cx.forC != cx.c {
		cx.matcher, cx.forC = codex.NewMatcher(cx.c.Entries), cx.c
	}
	return cx.matcher
}

// EntryHits is what a search for an entry found.
type EntryHits struct {
	Entry   codex.Entry     `json:"entry"`
	Results []search.Result `json:"results"`
	// More is set when the limit cut the list.
	More bool `json:"more,omitempty"`
}

// FindEntry returns the items that mention an entry (named by its ID, name
// or an alias) by any of its names, in document order, with a snippet in
// which the names are marked; opt's filters and limit apply (Limit 0
// lists every item). The candidates come from the search index (every word
// of a name, in any of its forms) and each is checked with the codex's
// matcher (consecutive words, the longest name wins).
func (s *Session) FindEntry(id, ref string, opt search.Options) (EntryHits, error) {
	var out EntryHits
	err := s.with(id, func(b *book) error {
		e, err := b.loadCodex().c.Find(ref)
		if err != nil {
			return err
		}
		out.Entry = e.Clone()
		out.Results, out.More, err = b.findNames(e.Names(), b.codexMatcher(), e.ID, opt)
		return err
	})
	return out, err
}

// FindNames returns the items that mention any of the names (each word in
// any of its forms, consecutive), like FindEntry but for names that need
// not be in the codex, and without the codex's longest-name rule.
func (s *Session) FindNames(id string, names []string, opt search.Options) (results []search.Result, more bool, err error) {
	err = s.with(id, func(b *book) error {
		if len(names) == 0 {
			return fmt.Errorf("%w: no name to look for", search.ErrEmptyQuery)
		}
		m := codex.NewMatcher([]codex.Entry{{ID: "q", Name: names[0], Aliases: names[1:]}})
		results, more, err = b.findNames(names, m, "q", opt)
		return err
	})
	return results, more, err
}

// findNames lists the items where m finds entry among the items holding
// every word of one of the names. Caller holds the lock.
func (b *book) findNames(names []string, m *codex.Matcher, entry string, opt search.Options) ([]search.Result, bool, error) {
	all := opt.Limit == 0
	if all {
		opt.Limit = search.MaxLimit
	}
	keep, limit, err := search.Filter(b.doc, opt)
	if err != nil {
		return nil, false, err
	}
	ids := b.idx().ItemsMatching(names)
	slices.SortFunc(ids, func(x, y int) int { return b.doc.ByID(x).Index() - b.doc.ByID(y).Index() })
	var out []search.Result
	for _, itemID := range ids {
		it := b.doc.ByID(itemID)
		if it == nil || !keep(it) {
			continue
		}
		var spans []textnorm.Span
		for _, x := range m.Scan(it.Text) {
			if x.Entry == entry {
				spans = append(spans, textnorm.Span{Start: x.Start, End: x.End})
			}
		}
		if len(spans) == 0 {
			continue
		}
		if !all && len(out) == limit {
			return out, true, nil
		}
		out = append(out, search.NewResult(it, float64(len(spans)), len(spans), search.Snippet(it.Text, spans)))
	}
	return out, false, nil
}

// EntryCursor makes (or re-creates) a cursor that walks the items
// mentioning an entry, in document order: a search cursor whose items are
// fixed when it is made. spec gives the name, limits and the other
// filters.
func (s *Session) EntryCursor(id, ref string, spec cursor.Spec) (cursor.Info, error) {
	hits, err := s.FindEntry(id, ref, search.Options{IncludeHeadings: true})
	if err != nil {
		return cursor.Info{}, err
	}
	spec.Type, spec.Keywords, spec.IDs = cursor.Search, nil, make([]int, len(hits.Results))
	for i, r := range hits.Results {
		spec.IDs[i] = r.ID
	}
	if spec.Description == "" {
		spec.Description = fmt.Sprintf("the items naming %s (%s)", hits.Entry.Name, strings.Join(hits.Entry.Names(), ", "))
	}
	return s.CreateCursor(id, spec)
}

// EntryContext is an entry as an agent working on some items sees it: no
// private notes, and only the facts known by the last of those items.
type EntryContext struct {
	ID          string           `json:"id"`
	Kind        codex.Kind       `json:"kind"`
	Name        string           `json:"name"`
	Aliases     []string         `json:"aliases,omitempty"`
	Description string           `json:"description,omitempty"`
	Relations   []codex.Relation `json:"relations,omitempty"`
	Facts       []string         `json:"facts,omitempty"` // "text (evidence pointers)"
}

// CodexContext returns the entries mentioned in the given items (by item
// ID), in order of first mention, with the facts known as of the last of
// those items in the book: an agent rewriting an early chapter is not
// told what happens later. Style rules apply everywhere and are not
// included (the style guide is given whole). Unknown IDs are ignored.
func (s *Session) CodexContext(id string, itemIDs []int) ([]EntryContext, error) {
	var out []EntryContext
	err := s.with(id, func(b *book) error {
		cx := b.loadCodex()
		if cx.c.Len() == 0 {
			return nil
		}
		m := b.codexMatcher()
		last := -1
		var seen []string
		for _, itemID := range itemIDs {
			it := b.doc.ByID(itemID)
			if it == nil {
				continue
			}
			last = max(last, it.Index())
			for _, eid := range m.Entries(it.Text) {
				if !slices.Contains(seen, eid) {
					seen = append(seen, eid)
				}
			}
		}
		for _, eid := range seen {
			e, err := cx.c.Find(eid)
			if err != nil || e.Kind == codex.Style {
				continue
			}
			out = append(out, entryContext(b.doc, e, last))
		}
		return nil
	})
	return out, err
}

func entryContext(d *document.Document, e *codex.Entry, at int) EntryContext {
	v := EntryContext{ID: e.ID, Kind: e.Kind, Name: e.Name, Aliases: slices.Clone(e.Aliases), Description: e.Description,
		Relations: slices.Clone(e.Relations)}
	for _, f := range e.FactsAsOf(d, at) {
		if len(f.Evidence) == 0 {
			v.Facts = append(v.Facts, f.Text)
			continue
		}
		ptrs := make([]string, 0, len(f.Evidence))
		for _, p := range f.Evidence {
			if it, err := d.Resolve(p); err == nil {
				ptrs = append(ptrs, it.Pointer().String())
			}
		}
		v.Facts = append(v.Facts, fmt.Sprintf("%s (%s)", f.Text, strings.Join(ptrs, ", ")))
	}
	return v
}

// EntryUses is how the book uses an entry's names.
type EntryUses struct {
	// Items counts the items mentioning the entry (headings included).
	Items int `json:"items"`
	// First is the pointer of the first of them.
	First string `json:"first,omitempty"`
	// Forms counts each form of the names as the text writes it.
	Forms map[string]int `json:"forms,omitempty"`
}

// CodexUses reads the whole book once with the codex's matcher and
// returns, by entry ID, the items and forms that mention each entry.
func (s *Session) CodexUses(id string) (map[string]EntryUses, error) {
	out := map[string]EntryUses{}
	err := s.with(id, func(b *book) error {
		if b.loadCodex().c.Len() == 0 {
			return nil
		}
		m := b.codexMatcher()
		for _, it := range b.doc.Items() {
			var seen []string
			for _, x := range m.Scan(it.Text) {
				u := out[x.Entry]
				if u.Forms == nil {
					u.Forms = map[string]int{}
				}
				u.Forms[x.Text]++
				if !slices.Contains(seen, x.Entry) {
					seen = append(seen, x.Entry)
					u.Items++
					if u.First == "" {
						u.First = it.Pointer().String()
					}
				}
				out[x.Entry] = u
			}
		}
		return nil
	})
	return out, err
}

// FactsAsOf returns the facts of an entry known at the item a pointer
// names (codex.Entry.FactsAsOf) and that item's current pointer.
func (s *Session) FactsAsOf(id, ref, at string) ([]codex.Fact, string, error) {
	var facts []codex.Fact
	var ptr string
	err := s.with(id, func(b *book) error {
		e, err := b.loadCodex().c.Find(ref)
		if err != nil {
			return err
		}
		it, err := b.doc.Resolve(at)
		if err != nil {
			return err
		}
		facts, ptr = e.FactsAsOf(b.doc, it.Index()), it.Pointer().String()
		return nil
	})
	return facts, ptr, err
}

// CheckEvidence checks that every fact of e names items of the book and
// writes each evidence pointer as the item's current full pointer; a
// pointer that names nothing is the document's pointer error.
func (s *Session) CheckEvidence(id string, e *codex.Entry) error {
	return s.with(id, func(b *book) error {
		for i := range e.Facts {
			for j, p := range e.Facts[i].Evidence {
				it, err := b.doc.Resolve(p)
				if err != nil {
					return err
				}
				e.Facts[i].Evidence[j] = it.Pointer().String()
			}
		}
		return nil
	})
}
