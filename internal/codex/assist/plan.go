package assist

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/aitexteditor/aite/internal/codex"
	"github.com/aitexteditor/aite/internal/editor"
)

// Plan is a model-assisted build: the entries to read, in order, with how
// far each got. It is saved after every entry, so an interrupted build goes
// on where it stopped.
type Plan struct {
	Format  string      `json:"format"`
	Version int         `json:"version"`
	Model   string      `json:"model"`
	Created time.Time   `json:"created"`
	Entries []PlanEntry `json:"entries"`
}

// PlanEntry is one entry of a build.
type PlanEntry struct {
	ID    string   `json:"id"`
	Name  string   `json:"name"`
	Names []string `json:"names"`
	Items int      `json:"items"` // items naming it when planned
	Bytes int      `json:"bytes"` // their Markdown
	// TaskID is the cursor-agent task of the collect pass (resumable).
	TaskID string `json:"taskId,omitempty"`
	Status Status `json:"status"`
	Note   string `json:"note,omitempty"` // what happened (merged into …, dropped, the error)
}

// Status of a plan entry.
type Status string

// Statuses.
const (
	Pending Status = "pending"
	Done    Status = "done"
	Merged  Status = "merged"  // merged into another entry by an earlier pass
	Dropped Status = "dropped" // the model said it is not an entry
	Failed  Status = "failed"  // the model's answer could not be used; the entry is as it was
)

// PlanFormat heads a plan file.
const PlanFormat = "aite-codex-build"

// Remaining counts the entries still to read.
func (p *Plan) Remaining() int {
	n := 0
	for _, e := range p.Entries {
		if e.Status == Pending {
			n++
		}
	}
	return n
}

// PlanStore keeps the plan of a build between runs: the command line
// keeps it in the book's state directory.
type PlanStore interface {
	// LoadPlan returns the saved plan, nil when there is none.
	LoadPlan() (*Plan, error)
	SavePlan(p *Plan) error
}

// MemPlans keeps a plan in memory.
type MemPlans struct{ p []byte }

// LoadPlan returns a copy of the saved plan.
func (m *MemPlans) LoadPlan() (*Plan, error) {
	if m.p == nil {
		return nil, nil
	}
	return DecodePlan(m.p)
}

// SavePlan keeps a copy of p.
func (m *MemPlans) SavePlan(p *Plan) error {
	b, err := EncodePlan(p)
	m.p = b
	return err
}

// EncodePlan encodes a plan as JSON.
func EncodePlan(p *Plan) ([]byte, error) {
	b, err := json.MarshalIndent(p, "", " ")
	return append(b, '\n'), err
}

// DecodePlan reads a plan; a damaged or foreign one is an error wrapping
// codex.ErrInvalid.
func DecodePlan(b []byte) (*Plan, error) {
	var p Plan
	if err := json.Unmarshal(b, &p); err != nil || p.Format != PlanFormat || p.Version != 1 {
		return nil, fmt.Errorf("%w: not a codex build plan", codex.ErrInvalid)
	}
	return &p, nil
}

// PlanFile is the name of a build's plan in a book's data (the state
// directory of a book file, the document store of the server).
const PlanFile = "codex-build.json"

// SessionPlans keeps the plan of a book's build with the book's data
// (editor.Session.LoadData, SaveData).
type SessionPlans struct {
	Session *editor.Session
	Book    string
}

// LoadPlan reads the plan; nil when there is none.
func (p SessionPlans) LoadPlan() (*Plan, error) {
	b, err := p.Session.LoadData(p.Book, PlanFile)
	if err != nil || b == nil {
		return nil, err
	}
	return DecodePlan(b)
}

// SavePlan writes the plan.
func (p SessionPlans) SavePlan(pl *Plan) error {
	b, err := EncodePlan(pl)
	if err != nil {
		return err
	}
	return p.Session.SaveData(p.Book, PlanFile, b)
}
