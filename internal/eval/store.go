package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/aitexteditor/aite/internal/atomicfile"
)

// Store keeps the results of one evaluation (one model, one plan) in a
// directory, so that an interrupted evaluation goes on where it stopped
// and a finished one is reported again without calling the model:
//
//	plan.json      the model and the plan of the last run
//	results.jsonl  one line per finished task and per relay step
//	logs/ID.log    what each task's runs showed (tool calls, batches, edits)
//	relay-K/       the relay's working copy of the book, kept at the end
//
// A line that cannot be read (a write cut short) is ignored.
type Store struct {
	Dir   string
	tasks map[string]TaskResult
	steps map[string][]StepResult
}

// record is one line of results.jsonl.
type record struct {
	Task  *TaskResult `json:"task,omitempty"`
	Step  *StepResult `json:"step,omitempty"`
	Reset string      `json:"resetRelay,omitempty"` // a relay started over
}

// storeHeader is plan.json.
type storeHeader struct {
	Format string    `json:"format"`
	Model  ModelInfo `json:"model"`
	Plan   *Plan     `json:"plan"`
}

const storeFormat = "aite-eval-1"

// StoreKey names the directory of an evaluation under a root: the model
// (key and model ID), the book (its SHA-256) and what generates the tasks
// (seed, tasks per family, relay pairs). The families are not part of it:
// each family's tasks depend on nothing else, so a run of some families
// reuses what a run of all of them kept, and the other way round.
func StoreKey(m ModelInfo, p *Plan) string {
	id := fmt.Sprintf("%s\n%s\n%s\n%s\n%d\n%d\n%d", storeFormat, m.Key, m.ModelID, p.SHA256, p.Seed, p.PerFamily, p.RelayPairs)
	safe := strings.Map(func(r rune) rune {
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '.') {
			return r
		}
		return '_'
	}, m.Key)
	return safe + "-" + digest([]byte(id))[:12]
}

// OpenStore opens (or creates) the store of an evaluation under root and
// reads the results recorded so far. fresh discards them first.
func OpenStore(root string, m ModelInfo, p *Plan, fresh bool) (*Store, error) {
	s := &Store{Dir: filepath.Join(root, StoreKey(m, p)), tasks: map[string]TaskResult{}, steps: map[string][]StepResult{}}
	if fresh {
		if err := os.RemoveAll(s.Dir); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(filepath.Join(s.Dir, "logs"), 0o755); err != nil {
		return nil, err
	}
	head, err := json.MarshalIndent(storeHeader{Format: storeFormat, Model: m, Plan: p}, "", " ")
	if err != nil {
		return nil, err
	}
	if err := atomicfile.Write(filepath.Join(s.Dir, "plan.json"), append(head, '\n'), atomicfile.Options{}); err != nil {
		return nil, err
	}
	return s, s.load()
}

func (s *Store) load() error {
	f, err := os.Open(filepath.Join(s.Dir, "results.jsonl"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var r record
		if json.Unmarshal(sc.Bytes(), &r) != nil {
			continue
		}
		switch {
		case r.Task != nil:
			s.tasks[r.Task.ID] = *r.Task
		case r.Step != nil:
			s.steps[r.Step.Task] = append(s.steps[r.Step.Task], *r.Step)
		case r.Reset != "":
			delete(s.steps, r.Reset)
		}
	}
	return sc.Err()
}

// Done returns the recorded result of a task, provided it was recorded for
// this very task (the same prompt).
func (s *Store) Done(t Task) (TaskResult, bool) {
	r, ok := s.tasks[t.ID]
	return r, ok && r.Prompt == taskPrompt(t)
}

// Steps returns the recorded steps of a relay, in order.
func (s *Store) Steps(id string) []StepResult { return s.steps[id] }

// Count returns the number of recorded tasks and relay steps.
func (s *Store) Count() (tasks, steps int) {
	for _, st := range s.steps {
		steps += len(st)
	}
	return len(s.tasks), steps
}

// SaveTask records a finished task.
func (s *Store) SaveTask(r TaskResult) error {
	s.tasks[r.ID] = r
	return s.append(record{Task: &r})
}

// SaveStep records a finished relay step.
func (s *Store) SaveStep(r StepResult) error {
	s.steps[r.Task] = append(s.steps[r.Task], r)
	return s.append(record{Step: &r})
}

// ResetRelay forgets the steps of a relay that starts over.
func (s *Store) ResetRelay(id string) error {
	delete(s.steps, id)
	return s.append(record{Reset: id})
}

// append writes one line and syncs it, so a result once reported is kept.
func (s *Store) append(r record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(s.Dir, "results.jsonl"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Log opens the log of a task, to be appended to.
func (s *Store) Log(id string) (io.WriteCloser, string, error) {
	path := filepath.Join(s.Dir, "logs", fileName(id)+".log")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	return f, path, err
}

// RelayDir is where a relay keeps its working copy of the book.
func (s *Store) RelayDir(id string) string { return filepath.Join(s.Dir, fileName(id)) }

// fileName turns a task ID (family#k) into a file name (family-k).
func fileName(id string) string { return strings.ReplaceAll(id, "#", "-") }

// LoadReport reads a report written with --json.
func LoadReport(path string) (*Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Report
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%s is not a report of aite eval --json: %w", path, err)
	}
	if r.Model == "" || r.Families == nil {
		return nil, fmt.Errorf("%s is not a report of aite eval --json: no model or families", path)
	}
	return &r, nil
}
