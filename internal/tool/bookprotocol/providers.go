package bookprotocol

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/codex"
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
const CardsSuffix = editor.CardsSuffix

// card describes one reference card: its kind and the description of its
// message.
type card struct {
	kind, description string
}

var cards = map[string]card{
	ProviderCharacters: {KindCharacters, "Reference card of the book: its characters (name → who they are)."},
	ProviderGlossary:   {KindGlossary, "Reference card of the book: its glossary (term → meaning), places, objects and events."},
	ProviderStyleGuide: {KindStyleGuide, "Reference card of the book: its style guide; follow it when you write."},
}

// Providers returns the reference-card providers of the book in env:
// book.characters, book.glossary and book.styleGuide, each giving at most
// one `data` message of kind characters, glossary or styleGuide, made from
// the book's codex (editor.Session.Codex: the stored codex, or until one
// is stored the sidecar file novel.cards.json and the book's appendix
// sections "Characters", "Glossary", "Style guide", …):
//
//   - characters: {name: text} of the character entries, the text being the
//     description and the other names ("also: …");
//   - glossary: {name: text} of the terms, and of the places, objects and
//     events with their kind before the text;
//   - styleGuide: {rules: […]}, one rule per style entry.
//
// Facts are not in the cards: they depend on the point of the book (the
// read tool and the targets carry the entries of their items with the
// facts known there). A card without entries gives no message and no
// error; a codex or sidecar file that cannot be read is an error naming
// the file.
func Providers(env booktools.Env) map[string]Provider {
	out := map[string]Provider{}
	for name, c := range cards {
		out[name] = func(ctx context.Context) ([]agentctx.Message, error) {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			v, err := cardValue(env, name)
			if err != nil || v == nil {
				return nil, err
			}
			return []agentctx.Message{{Type: agentctx.TypeData, Kind: c.kind, Value: v, HasValue: true, Description: c.description}}, nil
		}
	}
	return out
}

// cardValue makes one card from the book's codex; nil when it has no
// entries for it.
func cardValue(env booktools.Env, name string) (any, error) {
	if env.Session == nil {
		return nil, nil
	}
	c, info, err := env.Session.Codex(env.Book)
	switch {
	case errors.Is(err, editor.ErrUnknownBook):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reference cards: %w", err)
	case info.Warning != "":
		return nil, fmt.Errorf("reference cards: %s", info.Warning)
	}
	switch name {
	case ProviderStyleGuide:
		var rules []any
		for _, e := range c.OfKind(codex.Style) {
			rules = append(rules, ruleText(e))
		}
		if len(rules) == 0 {
			return nil, nil
		}
		return agentctx.NewObject("rules", rules), nil
	case ProviderCharacters:
		return entriesCard(c.OfKind(codex.Character), false), nil
	}
	var es []codex.Entry
	for _, k := range []codex.Kind{codex.Term, codex.Place, codex.Object, codex.Event} {
		es = append(es, c.OfKind(k)...)
	}
	return entriesCard(es, true), nil
}

// entriesCard turns entries into {name: text}; nil when there are none.
func entriesCard(es []codex.Entry, withKind bool) any {
	if len(es) == 0 {
		return nil
	}
	out := &agentctx.Object{}
	for _, e := range es {
		text := strings.TrimSpace(e.Description)
		if len(e.Aliases) > 0 {
			text = strings.TrimSpace(text + " (also: " + strings.Join(e.Aliases, ", ") + ")")
		}
		if withKind && e.Kind != codex.Term {
			text = strings.TrimSpace(string(e.Kind) + ": " + text)
		}
		out.Set(e.Name, text)
	}
	return out
}

// ruleText is a style entry as a rule: its description, or its name.
func ruleText(e codex.Entry) string {
	if d := strings.TrimSpace(e.Description); d != "" {
		return d
	}
	return e.Name
}
