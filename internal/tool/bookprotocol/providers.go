package bookprotocol

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/tool/booktools"
)

// Provider is a protocol.context provider: the messages it returns are put
// into the agent's frozen context at run start (§ 5.1).
type Provider = func(ctx context.Context) ([]agentctx.Message, error)

// The provider names of the reference cards and the data kinds they fill.
const (
	ProviderCharacters = "book.characters"
	ProviderGlossary   = "book.glossary"
	ProviderStyleGuide = "book.styleGuide"

	KindCharacters = "characters"
	KindGlossary   = "glossary"
	KindStyleGuide = "styleGuide"
)

// CardsSuffix names the sidecar file of a book's reference cards:
// novel.md → novel.cards.json, beside the book.
const CardsSuffix = ".cards.json"

// card describes one reference card: its kind, the appendix titles that
// hold it and the description of its message.
type card struct {
	kind, description string
	titles            []string
}

var cards = map[string]card{
	ProviderCharacters: {KindCharacters, "Reference card of the book: its characters (name → who they are).",
		[]string{"characters", "cast", "cast of characters", "dramatis personae", "персонажи", "действующие лица"}},
	ProviderGlossary: {KindGlossary, "Reference card of the book: its glossary (term → meaning).",
		[]string{"glossary", "глоссарий", "словарь терминов"}},
	ProviderStyleGuide: {KindStyleGuide, "Reference card of the book: its style guide; follow it when you write.",
		[]string{"style guide", "style sheet", "руководство по стилю", "правила стиля", "стилевые правила"}},
}

// Providers returns the reference-card providers of the book in env:
// book.characters, book.glossary and book.styleGuide, each giving at most
// one `data` message of kind characters, glossary or styleGuide.
//
// A card comes from, in this order:
//
//  1. the sidecar file beside the book file (novel.md → novel.cards.json), a
//     JSON object with the keys characters, glossary and styleGuide whose
//     values are taken as they are (books without a file, such as the
//     server's stored documents, have no sidecar);
//  2. an appendix section of the book: a heading titled "Characters",
//     "Glossary" or "Style guide" (or "Персонажи", "Глоссарий", "Руководство
//     по стилю", … at any level, case and ё/е ignored, a trailing colon
//     allowed). Characters and glossary become an object entry → text: a
//     list item or paragraph "Name: text" (or "Name — text") is one entry,
//     a sub-heading starts an entry whose text is the items under it; text
//     without a name goes to "notes". The style guide becomes {rules:[…]}, one
//     rule per item.
//
// A card found in neither gives no message and no error; an unreadable or
// malformed sidecar is an error naming the file.
func Providers(env booktools.Env) map[string]Provider {
	out := map[string]Provider{}
	for name, c := range cards {
		out[name] = func(ctx context.Context) ([]agentctx.Message, error) {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			v, err := cardValue(env, name, c)
			if err != nil || v == nil {
				return nil, err
			}
			return []agentctx.Message{{Type: agentctx.TypeData, Kind: c.kind, Value: v, HasValue: true, Description: c.description}}, nil
		}
	}
	return out
}

// cardValue finds one card: sidecar first, then the appendix.
func cardValue(env booktools.Env, name string, c card) (any, error) {
	if env.Session == nil {
		return nil, nil
	}
	side, err := sidecar(env)
	if err != nil {
		return nil, err
	}
	if side != nil {
		if v, ok := side.Get(c.kind); ok && v != nil {
			return v, nil
		}
	}
	return appendix(env, name, c)
}

// sidecar reads the book's sidecar cards file; nil when there is none.
func sidecar(env booktools.Env) (*agentctx.Object, error) {
	path := ""
	for _, b := range env.Session.Books() {
		if b.ID == env.Book {
			path = b.Path
		}
	}
	if path == "" {
		return nil, nil
	}
	file := strings.TrimSuffix(path, filepath.Ext(path)) + CardsSuffix
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reference cards %s: %w", file, err)
	}
	v, err := agentctx.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("reference cards %s: not JSON: %w", file, err)
	}
	obj, ok := v.(*agentctx.Object)
	if !ok {
		return nil, fmt.Errorf("reference cards %s: expected a JSON object with characters, glossary and styleGuide", file)
	}
	return obj, nil
}

// appendix reads a card from the book's appendix section; nil when the book
// has none.
func appendix(env booktools.Env, name string, c card) (any, error) {
	heads, err := env.Session.Items(env.Book, "", 1<<20, []document.Kind{document.Heading})
	if err != nil {
		return nil, cardError(err)
	}
	for _, h := range heads.Items {
		if !isTitle(h.Text, c.titles) {
			continue
		}
		items, err := section(env, h)
		if err != nil {
			return nil, err
		}
		if name == ProviderStyleGuide {
			return styleRules(items), nil
		}
		return entries(items), nil
	}
	return nil, nil
}

// cardError keeps I/O failures and reports the rest as unreadable cards.
func cardError(err error) error {
	if errors.Is(err, editor.ErrUnknownBook) {
		return nil
	}
	return fmt.Errorf("reference cards: %w", err)
}

// section returns the items under heading h, up to the next heading of the
// same or a higher level.
func section(env booktools.Env, h editor.ItemView) ([]editor.ItemView, error) {
	var out []editor.ItemView
	from := h.Pointer.String()
	for first := true; from != ""; first = false {
		v, err := env.Session.Items(env.Book, from, 200, nil)
		if err != nil {
			return nil, cardError(err)
		}
		items := v.Items
		if first && len(items) > 0 {
			items = items[1:] // the heading itself
		}
		for _, it := range items {
			if it.Kind == document.Heading && it.Level <= h.Level {
				return out, nil
			}
			out = append(out, it)
		}
		from = v.Next
	}
	return out, nil
}

// isTitle compares a heading's text with the card titles: case, ё/е, a
// trailing colon and surrounding space ignored.
func isTitle(text string, titles []string) bool {
	t := normTitle(text)
	for _, s := range titles {
		if t == s {
			return true
		}
	}
	return false
}

func normTitle(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.TrimSpace(strings.TrimSuffix(s, ":"))
	return strings.ReplaceAll(s, "ё", "е")
}

// entryPattern splits "Name: text" and "Name — text" (also "–" and " - ").
var entryPattern = regexp.MustCompile(`^\s*([^:—–]{1,80}?)\s*(?::|\s[—–-]\s)\s*(.+)$`)

// entries turns a characters or glossary section into an object.
func entries(items []editor.ItemView) any {
	out := &agentctx.Object{}
	add := func(key, text string) {
		key, text = strings.TrimSpace(key), strings.TrimSpace(text)
		if key == "" || text == "" {
			return
		}
		if old, ok := out.Get(key); ok {
			text = old.(string) + "\n" + text
		}
		out.Set(key, text)
	}
	current := "" // the entry a sub-heading opened
	for _, it := range items {
		text := strings.TrimSpace(it.Text)
		switch {
		case it.Kind == document.Heading:
			current = text
		case current != "":
			add(current, text)
		default:
			if m := entryPattern.FindStringSubmatch(text); m != nil {
				add(m[1], m[2])
			} else {
				add("notes", text)
			}
		}
	}
	if out.Len() == 0 {
		return nil
	}
	return out
}

// styleRules turns a style-guide section into {rules:[…]}.
func styleRules(items []editor.ItemView) any {
	var rules []any
	for _, it := range items {
		if t := strings.TrimSpace(it.Text); t != "" && it.Kind != document.Heading {
			rules = append(rules, t)
		}
	}
	if len(rules) == 0 {
		return nil
	}
	return agentctx.NewObject("rules", rules)
}
