// Package cursoragent is the cursor sub-agent of BOOK_CORE § 7: a loop
// that walks one cursor batch by batch and asks a model, in a fresh
// conversation each step, which items of the batch match a navigation
// task. The memory of the task (evidence, progress, position) lives in the
// runtime and is persisted as a TaskState, so a task can be resumed. The
// model only judges matches: ordinals ("first", "n-th", "last") are picked
// in code from the ordered evidence, and the evidence text is always the
// item's own Markdown, never the model's.
package cursoragent

import (
	"github.com/aitexteditor/aite/internal/cursor"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/pointer"
)

// Mode is what a task returns.
type Mode string

// The modes of § 7.
const (
	FirstMatch Mode = "FirstMatch"
	Nth        Mode = "Nth"
	Last       Mode = "Last"
	Collect    Mode = "CollectToTargetSet"
	Aggregate  Mode = "AggregateSummary"
)

// Limits bound a task. Zero values take the defaults.
type Limits struct {
	MaxSteps         int `json:"maxSteps,omitempty"`         // batches per run; default 128, at most 512
	EvidenceKept     int `json:"evidenceKept,omitempty"`     // evidence in the result; default 20
	SnapshotPointers int `json:"snapshotPointers,omitempty"` // recent pointers shown; default 5
	SummaryChars     int `json:"summaryChars,omitempty"`     // default 500
	ExcerptChars     int `json:"excerptChars,omitempty"`     // default 1000
	Retries          int `json:"retries,omitempty"`          // corrective turns per batch; default 2
}

// Default and maximum limits.
const (
	DefaultSteps    = 128
	MaxSteps        = 512
	DefaultEvidence = 20
	DefaultSnapshot = 5
	DefaultSummary  = 500
	DefaultExcerpt  = 1000
	DefaultRetries  = 2
)

// Task is one navigation task.
type Task struct {
	// ID names the task in the store; generated when empty.
	ID string `json:"taskId,omitempty"`
	// Book is the editor session's book ID.
	Book string `json:"book"`
	// Cursor is the spec of the cursor to walk (the task walks a private
	// copy; Last walks it backward).
	Cursor  cursor.Spec `json:"cursor"`
	Goal    string      `json:"goal"`
	Context string      `json:"context,omitempty"`
	Mode    Mode        `json:"mode"`
	// N is the ordinal of an Nth task (1-based).
	N int `json:"n,omitempty"`
	// MaxEvidence stops a Collect task early once that many matches are found
	// (0: collect all). It is shown to the model as a hint in every mode.
	MaxEvidence int `json:"maxEvidenceCount,omitempty"`
	// TargetSet names the set a Collect task fills (generated when empty).
	TargetSet string `json:"targetSet,omitempty"`
	// Select, when set, asks the finaliser to choose among all the evidence
	// the one item that best satisfies it ("the most formal line").
	Select string `json:"select,omitempty"`
	Limits Limits `json:"limits"`
}

// Evidence is one matching item, in document order within the task.
type Evidence struct {
	Pointer  pointer.Pointer `json:"pointer"`
	Kind     document.Kind   `json:"kind"`
	Index    int             `json:"index"`
	Markdown string          `json:"markdown"`
	Reason   string          `json:"reason,omitempty"`
}

// Usage counts what a task spent.
type Usage struct {
	Calls        int `json:"calls"`
	InputTokens  int `json:"inputTokens"`
	OutputTokens int `json:"outputTokens"`
	Batches      int `json:"batches"`
	Items        int `json:"items"`
	Bytes        int `json:"bytes"`
	// Corrective counts the corrective turns among Calls.
	Corrective int `json:"corrective"`
}

// Result is what a task returns (§ 7).
type Result struct {
	TaskID           string     `json:"taskId"`
	Success          bool       `json:"success"`
	Summary          string     `json:"summary"`
	Pointer          string     `json:"pointer,omitempty"`
	Excerpt          string     `json:"excerpt,omitempty"`
	WhyThis          string     `json:"whyThis,omitempty"`
	Evidence         []Evidence `json:"evidence"`
	EvidenceCount    int        `json:"evidenceCount"`
	TargetSet        string     `json:"targetSet,omitempty"`
	NextAfterPointer string     `json:"nextAfterPointer,omitempty"`
	CursorComplete   bool       `json:"cursorComplete"`
	StepsUsed        int        `json:"stepsUsed"`
	// StoppedBy says why the walk ended: found, cursor_complete,
	// step_limit, evidence_limit or model_stop.
	StoppedBy string `json:"stoppedBy"`
	Usage     Usage  `json:"usage"`
	// Dropped counts evidence pointers the model gave that were not in
	// the batch (or repeated); Skipped lists batches that failed at first
	// and were read again in smaller batches.
	Dropped  int      `json:"droppedPointers"`
	Skipped  []string `json:"skippedBatches,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
	// Incomplete is set when the answer may be wrong or partial because
	// not everything was read and judged: items that could not be judged
	// even when read again (Unjudged), or a walk stopped by its step limit
	// (StoppedBy "step_limit"; Resume continues it from NextAfterPointer).
	// An incomplete result is never a success.
	Incomplete bool    `json:"incomplete"`
	Unjudged   []Range `json:"unjudgedRanges,omitempty"`
}

// Range is a run of consecutive items of the walk, by pointer.
type Range struct {
	First string `json:"first"`
	Last  string `json:"last"`
	Items int    `json:"items"`
	// foundBefore is how many matches were found before the range in the
	// walk: a pick at or after it could be preceded by an unjudged match.
	FoundBefore int `json:"foundBefore"`
}

// Progress is reported after every batch.
type Progress struct {
	TaskID   string `json:"taskId"`
	Batch    int    `json:"batch"`
	First    string `json:"first"`
	Last     string `json:"last"`
	Items    int    `json:"items"`
	Evidence int    `json:"evidence"`
	Calls    int    `json:"calls"`
	HasMore  bool   `json:"hasMore"`
	// Estimated is the expected number of batches in all (read so far
	// plus what remains at the current batch size).
	Estimated int `json:"estimatedBatches"`
}
