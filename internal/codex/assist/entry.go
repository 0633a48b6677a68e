package assist

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aitexteditor/aite/internal/codex"
	"github.com/aitexteditor/aite/internal/cursoragent"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/search"
)

//go:embed entry.md
var entryPrompt string

// EntryPrompt returns the system prompt of the entry call.
func EntryPrompt() string { return entryPrompt }

// answerSchema is the entry call's answer.
var answerSchema = json.RawMessage(`{
 "type": "object",
 "properties": {
  "keep": {"type": "boolean"},
  "kind": {"type": "string", "enum": ["character", "place", "object", "term", "event"]},
  "name": {"type": "string"},
  "description": {"type": "string"},
  "sameAs": {"type": "array", "items": {"type": "string"}},
  "aliases": {"type": "array", "items": {"type": "string"}},
  "facts": {"type": "array", "items": {"type": "object", "properties": {
    "text": {"type": "string"}, "evidence": {"type": "array", "items": {"type": "string"}}},
    "required": ["text", "evidence"], "additionalProperties": false}},
  "relations": {"type": "array", "items": {"type": "object", "properties": {
    "type": {"type": "string"}, "target": {"type": "string"}},
    "required": ["type", "target"], "additionalProperties": false}}
 },
 "required": ["keep", "kind", "name", "description", "sameAs", "aliases", "facts", "relations"],
 "additionalProperties": false
}`)

// Answer is the model's judgement of one entry.
type Answer struct {
	Keep        bool       `json:"keep"`
	Kind        string     `json:"kind"`
	Name        string     `json:"name"`
	Description string     `json:"description"`
	SameAs      []string   `json:"sameAs"`
	Aliases     []string   `json:"aliases"`
	Facts       []factOut  `json:"facts"`
	Relations   []relation `json:"relations"`
}

type factOut struct {
	Text     string   `json:"text"`
	Evidence []string `json:"evidence"`
}

type relation struct {
	Type   string `json:"type"`
	Target string `json:"target"`
}

// entryMsg is what the entry call reads.
type entryMsg struct {
	Type     string        `json:"type"`
	Entry    entryView     `json:"entry"`
	Evidence []evidenceMsg `json:"evidence"`
	Excerpts []excerptMsg  `json:"excerpts"`
	Others   []entryView   `json:"otherEntries"`
}

type entryView struct {
	ID    string   `json:"id"`
	Kind  string   `json:"kind"`
	Names []string `json:"names"`
}

type evidenceMsg struct {
	Pointer string `json:"pointer"`
	Fact    string `json:"fact"`
}

type excerptMsg struct {
	Pointer  string `json:"pointer"`
	Markdown string `json:"markdown"`
}

// Limits of what one entry call reads.
const (
	maxEvidence  = 200 // facts shown (spread over the book)
	maxExcerpts  = 3
	excerptChars = 600
	maxOthers    = 300
)

// errUnusable marks an entry call whose answer could not be used.
var errUnusable = errors.New("the model's answer could not be used")

// ask makes the entry call (with one corrective turn).
func (b *Builder) ask(ctx context.Context, c *codex.Codex, e *codex.Entry, ev []cursoragent.Evidence, rep *Report) (Answer, error) {
	msg := entryMsg{Type: "entry", Entry: viewOf(*e), Evidence: []evidenceMsg{}, Excerpts: []excerptMsg{}, Others: []entryView{}}
	for _, x := range spread(ev, maxEvidence) {
		msg.Evidence = append(msg.Evidence, evidenceMsg{Pointer: x.Pointer.String(), Fact: x.Reason})
	}
	for _, x := range ev[:min(len(ev), maxExcerpts)] {
		msg.Excerpts = append(msg.Excerpts, excerptMsg{Pointer: x.Pointer.String(), Markdown: clip(x.Markdown, excerptChars)})
	}
	for _, o := range c.Entries {
		if o.ID != e.ID && o.Kind != codex.Style && len(msg.Others) < maxOthers {
			msg.Others = append(msg.Others, viewOf(o))
		}
	}
	body, err := json.Marshal(msg)
	if err != nil {
		return Answer{}, err
	}
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: entryPrompt}, {Role: llm.RoleUser, Content: string(body)}}
	var last error
	for attempt := 0; attempt < 2; attempt++ {
		raw, resp, err := b.Agent.Structured(ctx, msgs, answerStructure(b.Agent.JSONSchema))
		rep.Calls++
		rep.Usage.InputTokens += orEstimate(resp.Usage.InputTokens, msgs)
		rep.Usage.OutputTokens += max(resp.Usage.OutputTokens, llm.EstimateTokens(string(raw)))
		var se *llm.SchemaError
		switch {
		case errors.As(err, &se):
			last = err
			msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: se.Raw},
				llm.Message{Role: llm.RoleUser, Content: "Return only one JSON object of the requested shape. " + se.Error()})
			continue
		case err != nil:
			return Answer{}, err
		}
		var a Answer
		if err := json.Unmarshal(raw, &a); err != nil {
			last = err
			continue
		}
		return a, nil
	}
	return Answer{}, fmt.Errorf("%w: %v", errUnusable, last)
}

func orEstimate(n int, msgs []llm.Message) int {
	if n > 0 {
		return n
	}
	for _, m := range msgs {
		n += llm.EstimateTokens(m.Content) + 4
	}
	return n
}

func viewOf(e codex.Entry) entryView {
	return entryView{ID: e.ID, Kind: string(e.Kind), Names: e.Names()}
}

// spread picks at most n of the evidence, evenly over the book.
func spread(ev []cursoragent.Evidence, n int) []cursoragent.Evidence {
	if len(ev) <= n {
		return ev
	}
	out := make([]cursoragent.Evidence, n)
	for i := range out {
		out[i] = ev[i*len(ev)/n]
	}
	return out
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// applied says what an answer changed.
type applied struct {
	merged  []string // IDs merged into the entry
	dropped bool
	note    string
}

// apply checks the answer and writes what holds into c.
func (b *Builder) apply(c *codex.Codex, id string, a Answer, ev []cursoragent.Evidence) applied {
	var res applied
	var notes []string
	if !a.Keep {
		if _, err := c.Remove(id); err == nil {
			res.dropped = true
			res.note = "not an entry of the book, says the model"
		}
		return res
	}
	for _, other := range a.SameAs {
		o, err := c.Find(other)
		if err != nil || o.ID == id || o.Kind == codex.Style {
			notes = append(notes, fmt.Sprintf("ignored sameAs %q", other))
			continue
		}
		oid := o.ID
		if _, err := c.Merge(id, oid); err == nil {
			res.merged = append(res.merged, oid)
		}
	}
	e, err := c.Find(id)
	if err != nil {
		return res
	}
	for _, al := range a.Aliases {
		if b.occurs(al) {
			e.AddAlias(al)
		} else {
			notes = append(notes, fmt.Sprintf("ignored alias %q (not in the book)", al))
		}
	}
	if n := strings.TrimSpace(a.Name); n != "" && n != e.Name && (e.HasName(n) || b.occurs(n)) {
		old := e.Name
		e.Name = n
		e.RemoveAlias(n)
		e.AddAlias(old)
	}
	if k, err := codex.ParseKind(a.Kind); err == nil {
		e.Kind = k
	}
	if d := strings.TrimSpace(a.Description); d != "" && e.Origin != codex.FromUser {
		e.Description = d
	}
	dropped := 0
	for _, f := range a.Facts {
		fact, ok := checkFact(f, ev)
		if !ok {
			dropped++
			continue
		}
		if !slices.ContainsFunc(e.Facts, func(x codex.Fact) bool { return x.Text == fact.Text }) {
			e.Facts = append(e.Facts, fact)
		}
	}
	if dropped > 0 {
		notes = append(notes, fmt.Sprintf("%d facts without evidence from the pass dropped", dropped))
	}
	for _, r := range a.Relations {
		if strings.TrimSpace(r.Type) == "" || strings.TrimSpace(r.Target) == "" {
			continue
		}
		target := strings.TrimSpace(r.Target)
		if t, err := c.Find(target); err == nil {
			target = t.ID
		}
		rel := codex.Relation{Type: strings.TrimSpace(r.Type), Target: target}
		if target != e.ID && !slices.Contains(e.Relations, rel) {
			e.Relations = append(e.Relations, rel)
		}
	}
	if e.Origin != codex.FromUser {
		e.Origin = codex.FromModel
	}
	e.Confirmed = true
	if len(res.merged) > 0 {
		notes = append([]string{"merged " + strings.Join(res.merged, ", ")}, notes...)
	}
	res.note = strings.Join(notes, "; ")
	return res
}

// occurs reports whether a name occurs in the book.
func (b *Builder) occurs(name string) bool {
	res, _, err := b.Agent.Session.FindNames(b.Book, []string{name}, search.Options{Limit: 1, IncludeHeadings: true})
	return err == nil && len(res) > 0
}

// checkFact keeps a fact whose evidence names items of the collect pass,
// with their pointers as the pass saw them.
func checkFact(f factOut, ev []cursoragent.Evidence) (codex.Fact, bool) {
	out := codex.Fact{Text: strings.TrimSpace(f.Text), Origin: codex.FromModel}
	if out.Text == "" {
		return out, false
	}
	for _, p := range f.Evidence {
		for _, x := range ev {
			if samePointer(p, x) && !slices.Contains(out.Evidence, x.Pointer.String()) {
				out.Evidence = append(out.Evidence, x.Pointer.String())
			}
		}
	}
	return out, len(out.Evidence) > 0
}

// samePointer matches a pointer the model wrote with a piece of evidence:
// the whole pointer, or its ID.
func samePointer(p string, x cursoragent.Evidence) bool {
	p = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(p), "."))
	if p == x.Pointer.String() {
		return true
	}
	id, _, _ := strings.Cut(p, ":")
	return id == fmt.Sprint(x.Pointer.ID)
}

// answerStructure is the structured reply an entry is asked for: native
// structured output when the model has it, else one forced tool call;
// validated against answerSchema either way.
func answerStructure(jsonSchema bool) llm.Structure {
	s := llm.Structure{Name: "codex_entry", Schema: answerSchema, Via: llm.ViaTool, Validate: true}
	if jsonSchema {
		s.Via = llm.ViaJSONSchema
	}
	return s
}
