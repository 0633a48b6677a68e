package codex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Format and Version head a codex file. A file of another format or a
// higher version is refused by Unmarshal.
const (
	Format  = "aite-codex"
	Version = 1
)

// file is the JSON form of a codex.
type file struct {
	Format   string   `json:"format"`
	Version  int      `json:"version"`
	Entries  []Entry  `json:"entries"`
	Rejected []string `json:"rejected,omitempty"`
}

// Marshal encodes the codex as indented JSON (the format of the book's
// state directory and of `aite codex export --format json`).
func Marshal(c *Codex) ([]byte, error) {
	entries := c.Entries
	if entries == nil {
		entries = []Entry{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(file{Format: Format, Version: Version, Entries: entries, Rejected: c.Rejected}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Unmarshal reads a codex: the codex format (Marshal), a bare
// {"entries": […]}, or the reference-cards sidecar format
// {"characters": {name: text}, "glossary": {term: text}, "styleGuide":
// {"rules": […]}}. The entries are checked (Validate); entries without an
// ID get one.
func Unmarshal(b []byte) (*Codex, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, fmt.Errorf("%w: not a JSON object: %w", ErrInvalid, err)
	}
	if _, ok := probe["entries"]; !ok {
		if _, cards := probe["format"]; !cards {
			return fromCards(probe)
		}
	}
	var f file
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if f.Format != "" && f.Format != Format {
		return nil, fmt.Errorf("%w: format %q is not %s", ErrInvalid, f.Format, Format)
	}
	if f.Version > Version {
		return nil, fmt.Errorf("%w: version %d is newer than this aite reads (%d); update aite", ErrInvalid, f.Version, Version)
	}
	c := &Codex{Rejected: f.Rejected}
	for _, e := range f.Entries {
		if _, err := c.Add(e); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// fromCards converts the sidecar reference-cards format.
func fromCards(obj map[string]json.RawMessage) (*Codex, error) {
	c := &Codex{}
	known := false
	for _, sec := range []struct {
		key  string
		kind Kind
	}{{"characters", Character}, {"places", Place}, {"glossary", Term}} {
		raw, ok := obj[sec.key]
		if !ok {
			continue
		}
		known = true
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("%w: %s: expected an object of name → text: %w", ErrInvalid, sec.key, err)
		}
		names := make([]string, 0, len(m))
		for n := range m {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if _, err := c.Add(Entry{Kind: sec.kind, Name: n, Description: cardText(m[n]), Origin: FromImport}); err != nil {
				return nil, err
			}
		}
	}
	if raw, ok := obj["styleGuide"]; ok {
		known = true
		for _, r := range styleRulesOf(raw) {
			if _, err := c.Add(Entry{Kind: Style, Name: ruleName(r), Description: r, Origin: FromImport}); err != nil {
				return nil, err
			}
		}
	}
	if !known {
		return nil, fmt.Errorf("%w: neither a codex (format %q) nor reference cards (characters, glossary, styleGuide)", ErrInvalid, Format)
	}
	return c, nil
}

// cardText turns a card value into a description: a string as it is, an
// object's "description" or "text", anything else as compact JSON.
func cardText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o map[string]json.RawMessage
	if json.Unmarshal(raw, &o) == nil {
		for _, k := range []string{"description", "text"} {
			if json.Unmarshal(o[k], &s) == nil && s != "" {
				return s
			}
		}
	}
	return strings.TrimSpace(string(raw))
}

// styleRulesOf reads {"rules": [...]}, a list, or a string.
func styleRulesOf(raw json.RawMessage) []string {
	var o struct {
		Rules []json.RawMessage `json:"rules"`
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &o) == nil && o.Rules != nil {
		list = o.Rules
	} else if json.Unmarshal(raw, &list) != nil {
		list = []json.RawMessage{raw}
	}
	var out []string
	for _, r := range list {
		if t := strings.TrimSpace(cardText(r)); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// ruleName names a style rule by its first words.
func ruleName(rule string) string {
	words := strings.Fields(rule)
	if len(words) > 6 {
		return strings.Join(words[:6], " ") + "…"
	}
	return strings.Join(words, " ")
}
