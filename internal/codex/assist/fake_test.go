package assist

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/aitexteditor/aite/internal/codex"
	"github.com/aitexteditor/aite/internal/cursoragent"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

// fakeModel plays both calls of a build: the cursor agent's decisions
// (every item of a batch matches, with a fact made from its first words)
// and the entry calls (answered by entry, from the entry message).
type fakeModel struct {
	mu      sync.Mutex
	entry   func(m entryMsg) Answer
	fail    func(call int, system string) error // a provider failure for this call, or nil
	broken  bool                                // entry calls answer prose, not JSON
	calls   int
	batches int
	entries []entryMsg
}

func (f *fakeModel) provider() *llmtest.Scripted {
	return llmtest.ScriptedFunc(func(req *llm.Request) llmtest.Reply {
		f.mu.Lock()
		f.calls++
		n := f.calls
		f.mu.Unlock()
		system := req.Messages[0].Content
		if f.fail != nil {
			if err := f.fail(n, system); err != nil {
				return llmtest.Fail(err)
			}
		}
		if system == cursoragent.SystemPrompt() {
			return f.decide(req)
		}
		if f.broken {
			return llmtest.Calls(llmtest.Call("codex_entry", "I think it is a character."))
		}
		var m entryMsg
		if err := json.Unmarshal([]byte(req.Messages[1].Content), &m); err != nil {
			return llmtest.Text("not json")
		}
		f.mu.Lock()
		f.entries = append(f.entries, m)
		f.mu.Unlock()
		b, _ := json.Marshal(f.entry(m))
		return llmtest.Calls(llmtest.Call("codex_entry", string(b)))
	})
}

// decide answers a cursor-agent step: every item of the batch is evidence.
func (f *fakeModel) decide(req *llm.Request) llmtest.Reply {
	var batch struct {
		Items []struct {
			Pointer  string `json:"pointer"`
			Markdown string `json:"markdown"`
		} `json:"items"`
	}
	for _, m := range req.Messages {
		if strings.Contains(m.Content, `"type":"batch"`) {
			_ = json.Unmarshal([]byte(m.Content), &batch)
		}
	}
	f.mu.Lock()
	f.batches++
	f.mu.Unlock()
	type ev struct {
		Pointer string `json:"pointer"`
		Excerpt string `json:"excerpt"`
		Reason  string `json:"reason"`
	}
	d := struct {
		Action          string   `json:"action"`
		BatchFound      bool     `json:"batchFound"`
		NewEvidence     []ev     `json:"newEvidence"`
		Progress        string   `json:"progress"`
		NeedMoreContext bool     `json:"needMoreContext"`
		ContextPointers []string `json:"contextPointers"`
	}{Action: "continue", NewEvidence: []ev{}, ContextPointers: []string{}}
	for _, it := range batch.Items {
		d.NewEvidence = append(d.NewEvidence, ev{Pointer: it.Pointer, Excerpt: "…", Reason: "fact of " + it.Pointer})
	}
	d.BatchFound = len(d.NewEvidence) > 0
	b, _ := json.Marshal(d)
	return llmtest.Calls(llmtest.Call("cursor_decision", string(b)))
}

// keepAll is an entry answer that confirms the entry as it is, with one
// fact from its first piece of evidence.
func keepAll(m entryMsg) Answer {
	a := Answer{Keep: true, Kind: m.Entry.Kind, Name: m.Entry.Names[0], Description: "about " + m.Entry.Names[0],
		SameAs: []string{}, Aliases: []string{}, Facts: []factOut{}, Relations: []relation{}}
	if len(m.Evidence) > 0 {
		a.Facts = append(a.Facts, factOut{Text: "first seen", Evidence: []string{m.Evidence[0].Pointer}})
	}
	return a
}

// newBuilder opens the sample book in a session with its text codex
// stored, and a builder over it using the fake.
func newBuilder(t *testing.T, src []byte, f *fakeModel) (*Builder, *editor.Session) {
	t.Helper()
	s := editor.New()
	s.Load("book", src)
	c, _, err := s.BuildCodex("book")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetCodex("book", c); err != nil {
		t.Fatal(err)
	}
	a := &cursoragent.Agent{Provider: f.provider(), Model: "fake", Session: s, Store: cursoragent.NewMemStore()}
	return &Builder{Agent: a, Book: "book", MaxEntries: 100}, s
}

// entryOf returns the codex entry that has a name.
func entryOf(t *testing.T, s *editor.Session, name string) codex.Entry {
	t.Helper()
	c, _, err := s.Codex("book")
	if err != nil {
		t.Fatal(err)
	}
	e, err := c.Find(name)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return *e
}

func idOf(t *testing.T, s *editor.Session, name string) string {
	t.Helper()
	return entryOf(t, s, name).ID
}
