package eval

import (
	"fmt"
	"slices"
	"strings"
)

// Family names a kind of task.
type Family string

// The task families, in report order.
const (
	First   Family = "first"    // the first paragraph that mentions a name
	Nth     Family = "nth"      // the n-th paragraph that mentions a name
	Last    Family = "last"     // the last paragraph that mentions a name
	Count   Family = "count"    // how many paragraphs of a chapter mention a name
	Chapter Family = "chapter"  // which chapter mentions a name first
	Collect Family = "collect"  // every paragraph where two names both appear
	Walk    Family = "navigate" // the cursor agent alone: first/n-th/last/all paragraphs with two names
	Insert  Family = "insert"   // insert a sentence after the n-th paragraph that mentions a name
	Replace Family = "replace"  // replace the last sentence of a chapter's first paragraph
	Relay   Family = "relay"    // chained edit commands, each followed by its inverse
)

// Families lists every family in report order.
var Families = []Family{First, Nth, Last, Count, Chapter, Collect, Walk, Insert, Replace, Relay}

// ParseFamilies reads a comma-separated list of family names ("" or "all":
// every family), in report order without repeats.
func ParseFamilies(s string) ([]Family, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "all" {
		return slices.Clone(Families), nil
	}
	want := map[Family]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		if !slices.Contains(Families, Family(f)) {
			return nil, fmt.Errorf("unknown family %q; the families are %s", f, familyList())
		}
		want[Family(f)] = true
	}
	var out []Family
	for _, f := range Families {
		if want[f] {
			out = append(out, f)
		}
	}
	return out, nil
}

func familyList() string {
	s := make([]string, len(Families))
	for i, f := range Families {
		s[i] = string(f)
	}
	return strings.Join(s, ", ")
}

// edits reports whether tasks of the family change the book.
func (f Family) edits() bool { return f == Insert || f == Replace || f == Relay }

// Task is one generated task: what the agent is asked, the parameters it
// was made from, and its gold.
type Task struct {
	ID     string `json:"id"` // family#k
	Family Family `json:"family"`
	// Prompt is the command for the command agent (empty for Walk tasks).
	Prompt string `json:"prompt,omitempty"`
	// Walk is the cursor-agent task of the Walk family.
	Walk   *WalkSpec `json:"walk,omitempty"`
	Params Params    `json:"params"`
	Gold   Gold      `json:"gold"`
	// Steps are the commands of a relay, forward and inverse in turn.
	Steps []Step `json:"steps,omitempty"`
}

// WalkSpec is a cursor-agent task: walk the items holding Keywords (headings
// left out) and find what Goal describes.
type WalkSpec struct {
	Goal     string   `json:"goal"`
	Keywords []string `json:"keywords"`
	Mode     string   `json:"mode"` // first, nth, last or collect (the names of `aite navigate --mode`)
	N        int      `json:"n,omitempty"`
}

// Params are what a task was made from, for reports and for test oracles
// that play a model.
type Params struct {
	Name         string `json:"name,omitempty"`  // the name the task is about
	Other        string `json:"other,omitempty"` // the second name of collect and navigate tasks
	N            int    `json:"n,omitempty"`     // the ordinal (nth, insert, navigate nth)
	Mode         string `json:"mode,omitempty"`  // first, nth, last or collect (navigate)
	Chapter      string `json:"chapter,omitempty"`
	ChapterTitle string `json:"chapterTitle,omitempty"`
	ChapterLevel int    `json:"chapterLevel,omitempty"`
	Target       string `json:"target,omitempty"`      // the item a relay step edits
	Text         string `json:"text,omitempty"`        // the text to insert, or the new last sentence
	Word         string `json:"word,omitempty"`        // the word a relay step replaces
	Replacement  string `json:"replacement,omitempty"` // what replaces it
	Original     string `json:"original,omitempty"`    // the sentence an inverse step puts back
	Op           string `json:"op,omitempty"`          // a relay step's kind (see Step)
}

// Gold is the known answer of a task: pointers (in document order), a count,
// or the edit whose result the book must be.
type Gold struct {
	Pointers []string `json:"pointers,omitempty"`
	Count    *int     `json:"count,omitempty"`
	Edit     *EditOp  `json:"edit,omitempty"`
}

// EditOp is a domain operation (document.Op names) on a pointer.
type EditOp struct {
	Op       string `json:"op"`
	Pointer  string `json:"pointer"`
	Markdown string `json:"markdown,omitempty"`
}

// Step is one command of a relay. A forward step's gold is its edit applied
// to the book as it was before the step; an inverse step's gold is the book
// as it was before the forward step it undoes.
type Step struct {
	Prompt  string `json:"prompt"`
	Params  Params `json:"params"`
	Inverse bool   `json:"inverse,omitempty"`
	Edit    EditOp `json:"edit"` // the forward edit (for an inverse step: the edit it undoes)
}

// Relay step kinds.
const (
	StepWord     = "word"     // replace one word of a paragraph, then put it back
	StepSentence = "sentence" // replace a paragraph's last sentence, then put it back
	StepInsert   = "insert"   // insert a paragraph after an item, then delete it
)

// Plan is every task of one evaluation of a book.
type Plan struct {
	Book   string `json:"book"` // the file's base name
	Bytes  int    `json:"bytes"`
	SHA256 string `json:"sha256"`
	// Tokens is llm.EstimateTokens of the whole book: what one prompt with
	// the book would cost in input tokens.
	Tokens       int      `json:"tokens"`
	Language     string   `json:"language"` // "ru" or "en": the book's majority script
	Seed         uint64   `json:"seed"`
	PerFamily    int      `json:"perFamily"`
	RelayPairs   int      `json:"relayPairs"`
	Families     []Family `json:"families"`
	ChapterLevel int      `json:"chapterLevel,omitempty"`
	Tasks        []Task   `json:"tasks"`
	// Notes say why a family has fewer tasks than asked.
	Notes []string `json:"notes,omitempty"`
}

// commands returns the number of agent runs a task takes.
func (t Task) commands() int {
	if t.Family == Relay {
		return len(t.Steps)
	}
	return 1
}
