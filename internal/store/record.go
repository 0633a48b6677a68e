package store

import (
	"encoding/json"
	"slices"
	"time"
)

// Chat is one conversation. A chat stays bound to the agent of its first run.
type Chat struct {
	ID             string // lowercase canonical UUID
	Name           string
	AgentKey       string
	DocumentID     string // optional: the document the chat works on
	CreatedAt      time.Time
	UpdatedAt      time.Time
	LastRunID      string // empty until a run has ended
	LastRunContent string // the last run's content text, else its user message
	ReadStatus     int    // 0 unread, 1 read
	ReadAt         *time.Time
	// Owner is the subject (JWT sub) the chat belongs to, with its runs; ""
	// for a chat created without auth. Set at creation, never changed.
	Owner string
}

// RunStatus is the state of a run: running, or one of the terminal states.
type RunStatus string

// The run states.
const (
	RunRunning   RunStatus = "running"
	RunCompleted RunStatus = "completed"
	RunTimeout   RunStatus = "timeout"
	RunError     RunStatus = "error"
)

// Valid reports whether s is one of the four run states.
func (s RunStatus) Valid() bool { return s == RunRunning || s.Terminal() }

// Terminal reports whether s ends a run (completed, timeout or error).
func (s RunStatus) Terminal() bool { return s == RunCompleted || s == RunTimeout || s == RunError }

// Run is one request processed by an agent inside a chat.
type Run struct {
	ID           string // base36 epoch ms; sorts in time order
	ChatID       string
	RequestID    string
	AgentKey     string
	Query        json.RawMessage // the request, optional
	Status       RunStatus
	FinishReason string // run.complete finishReason (stop, timeout)
	ErrorCode    string // run.error code (model_error, run_aborted, …)
	StartedAt    time.Time
	EndedAt      *time.Time // nil while running
}

// Message is one complete model-context message of a run (OpenAI style plus extension keys).
// Ord numbers the messages of a run from 1 and is assigned by the store.
type Message struct {
	RunID  string
	Ord    int
	Stage  string
	TaskID string
	MsgID  string
	Body   json.RawMessage
}

// SystemSnapshot is what a run sent as system context for a model call ({model, messages,
// tools, stream}); Ord numbers the snapshots of a run from 1 and is assigned by the store.
type SystemSnapshot struct {
	RunID string
	Ord   int
	Stage string
	Body  json.RawMessage
}

// Event is one SSE event of a run's live log. Body is the JSON exactly as it was sent.
type Event struct {
	RunID     string
	Seq       int64 // per-run ordinal from 1, strictly increasing
	Type      string
	Timestamp int64 // epoch milliseconds
	Body      json.RawMessage
}

// Plan is the task list of a plan (plan_{runId}); RunID is the run that saved it last.
type Plan struct {
	ID        string
	ChatID    string
	RunID     string
	Tasks     json.RawMessage
	UpdatedAt time.Time
}

// Document is a Markdown book with its current text. Revision counts the applied edits (a new
// document has revision 0); SizeBytes is len(Markdown) and is computed by the store.
//
// ItemIDs and NextItemID record the item IDs of the text (document.Document.ItemIDs), so
// that pointers keep naming the same items when the text is parsed again after a restart:
// ItemIDs holds the IDs in document order and NextItemID the ID the next new item gets.
// NextItemID 0 means not recorded: ItemIDs is then empty and the IDs are 1..ItemCount. When
// recorded, ItemIDs has ItemCount entries, each positive, unique and below NextItemID
// (ValidateItemIDs). An empty ItemIDs is always returned as nil.
type Document struct {
	ID         string
	Name       string
	Markdown   string // empty in ListDocuments results
	Revision   int
	ItemCount  int
	ItemIDs    []int // nil in ListDocuments results
	NextItemID int   // 0 in ListDocuments results
	SizeBytes  int
	CreatedAt  time.Time
	UpdatedAt  time.Time
	// Owner is the subject (JWT sub) the document belongs to; "" for a
	// document created without auth (or the sample book). Set at creation.
	Owner string
}

// DocumentContent is what an edit leaves a document with: its text, its item count and
// its item IDs (as in Document; NextItemID 0 means not recorded).
type DocumentContent struct {
	Markdown   string
	ItemCount  int
	ItemIDs    []int
	NextItemID int
	// Later, when set, gives the content instead of the fields above, and is called only
	// when the store writes the document's snapshot (SnapshotDue): an edit that records its
	// change (Replayable) then costs what it changed, not the size of the document.
	Later func() DocumentContent
}

// Now returns the content: c, or what c.Later gives.
func (c DocumentContent) Now() DocumentContent {
	if c.Later != nil {
		return c.Later()
	}
	return c
}

// DocumentEdit is one applied edit of a document, the row behind a document.edit event.
type DocumentEdit struct {
	DocumentID string
	Revision   int // the document revision this edit produced
	RunID      string
	ToolID     string
	Op         string // replace, insert_before, insert_after, delete, …
	Pointer    string // target or anchor
	NewPointer string // absent for delete
	Before     string // old Markdown, optional
	After      string // new Markdown, optional
	At         time.Time
	// Splice is the change the edit made to the document's text, so that
	// earlier revisions can be rebuilt from the current text; nil when not
	// recorded (edits stored before splices were kept).
	Splice *Splice
	// IDs is the change the edit made to the document's item IDs; nil when
	// not recorded. With Splice it lets the store keep the edit instead of
	// the document's content (see journal.go).
	IDs *IDSplice
	// RevertedTo is, for an edit of op "revert", the revision whose text it
	// restored; nil for every other edit.
	RevertedTo *int
}

// Splice is a change of a text: the bytes Old at byte offset At of the text
// before became New. Applying it the other way round (New at At back to
// Old) restores the text before.
type Splice struct {
	At       int
	Old, New string
}

// TaskState is the persisted state of a cursor-agent task; Body is opaque JSON.
type TaskState struct {
	ID        string
	Body      json.RawMessage
	UpdatedAt time.Time
}

// StoredTime returns t as every backend keeps it: UTC with millisecond precision.
func StoredTime(t time.Time) time.Time { return time.UnixMilli(t.UnixMilli()).UTC() }

// StoredTimePtr is StoredTime for optional times; nil stays nil.
func StoredTimePtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	s := StoredTime(*t)
	return &s
}

// StoredIDs returns item IDs as every backend hands them out (Document.ItemIDs): a copy
// that shares no slice with the caller or the store, nil when empty.
func StoredIDs(ids []int) []int {
	if len(ids) == 0 {
		return nil
	}
	return slices.Clone(ids)
}

// DocumentDatum is one value of a document's data (DocumentData).
type DocumentDatum struct {
	DocumentID string
	Name       string
	Data       []byte
	UpdatedAt  time.Time
}
