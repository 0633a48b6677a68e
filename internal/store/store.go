package store

import (
	"context"
	"encoding/json"
	"io"
	"time"
)

// Chats stores conversations.
type Chats interface {
	// CreateChat stores a new chat (ErrExists if the id is taken).
	CreateChat(ctx context.Context, c Chat) error
	// GetChat returns one chat or ErrNotFound.
	GetChat(ctx context.Context, id string) (Chat, error)
	// ListChats returns every chat, most recently updated first, ties by id ascending.
	ListChats(ctx context.Context) ([]Chat, error)
	// UpdateChatAfterRun records the end of a run of the chat: LastRunID, LastRunContent and
	// UpdatedAt are set, the chat becomes unread (ReadStatus 0, ReadAt nil). The run must
	// belong to the chat (else ErrNotFound).
	UpdateChatAfterRun(ctx context.Context, chatID, runID, content string, at time.Time) error
	// MarkRead sets ReadStatus 1 and ReadAt.
	MarkRead(ctx context.Context, chatID string, at time.Time) error
	// SetChatBinding binds the chat to an agent and a document (documentID "" means none):
	// AgentKey, DocumentID and UpdatedAt are set, nothing else changes. ErrNotFound for an
	// unknown chat.
	SetChatBinding(ctx context.Context, chatID, agentKey, documentID string, at time.Time) error
}

// Runs stores the runs of chats.
type Runs interface {
	// CreateRun stores a new, running run of an existing chat. Status must be empty or
	// running and EndedAt nil (else ErrInvalid); ErrExists if the id is taken.
	CreateRun(ctx context.Context, r Run) error
	// GetRun returns one run or ErrNotFound.
	GetRun(ctx context.Context, id string) (Run, error)
	// ListRuns returns the runs of a chat in run id order.
	ListRuns(ctx context.Context, chatID string) ([]Run, error)
	// FinishRun moves a running run to a terminal status (ErrConflict if it already ended).
	FinishRun(ctx context.Context, runID string, status RunStatus, finishReason, errorCode string, at time.Time) error
	// RunningRuns returns every run still marked running, in run id order (at startup these
	// are the runs the previous process left interrupted).
	RunningRuns(ctx context.Context) ([]Run, error)
}

// Messages stores the model-context messages of runs.
type Messages interface {
	// AppendMessages appends complete messages to a run in one transaction; their Ord is
	// assigned in argument order after the run's last one. RunID and Ord of msgs are ignored
	// unless RunID names another run (ErrInvalid).
	AppendMessages(ctx context.Context, runID string, msgs ...Message) error
	// ListMessages returns the messages of a run in Ord order.
	ListMessages(ctx context.Context, runID string) ([]Message, error)
	// RecentMessages returns the messages of the last k runs of the chat (by run id), in run
	// id order then Ord order; k <= 0 gives none.
	RecentMessages(ctx context.Context, chatID string, k int) ([]Message, error)
}

// Systems stores the system snapshots of runs.
type Systems interface {
	// AppendSystem stores a snapshot only when its stage or its body bytes differ from the
	// run's previous snapshot; stored reports whether a row was written.
	AppendSystem(ctx context.Context, runID, stage string, body json.RawMessage) (stored bool, err error)
	// ListSystems returns the snapshots of a run in Ord order.
	ListSystems(ctx context.Context, runID string) ([]SystemSnapshot, error)
}

// Events stores the live event logs of runs.
type Events interface {
	// AppendEvents appends a batch in one transaction: either every event is stored or none.
	// Seqs must be >= 1 and strictly increase, within the batch and above the run's last
	// seq (else ErrConflict; duplicates included).
	AppendEvents(ctx context.Context, runID string, events ...Event) error
	// AppendEventLogs appends the events of several runs in one transaction (a group
	// commit): either every event is stored or none. Each event names its run (RunID, else
	// ErrInvalid); the events of one run keep their order and follow AppendEvents' rules.
	AppendEventLogs(ctx context.Context, events ...Event) error
	// ListEvents returns the run's events with seq > afterSeq in ascending seq order.
	ListEvents(ctx context.Context, runID string, afterSeq int64) ([]Event, error)
	// LastSeq returns the run's highest stored seq, 0 if none.
	LastSeq(ctx context.Context, runID string) (int64, error)
}

// Plans stores the plans of chats.
type Plans interface {
	// SavePlan inserts or replaces the plan with p.ID; its chat and run must exist.
	SavePlan(ctx context.Context, p Plan) error
	// GetPlan returns one plan or ErrNotFound.
	GetPlan(ctx context.Context, id string) (Plan, error)
	// LatestPlan returns the chat's most recently updated plan (ties: greatest id), or
	// ErrNotFound if the chat has none.
	LatestPlan(ctx context.Context, chatID string) (Plan, error)
}

// Documents stores Markdown documents and their edit journals.
type Documents interface {
	// CreateDocument stores a new document at revision 0 (d.Revision must be 0) with its
	// item IDs, if recorded, and returns it as stored.
	CreateDocument(ctx context.Context, d Document) (Document, error)
	// GetDocument returns one document with its Markdown and item IDs, or ErrNotFound.
	GetDocument(ctx context.Context, id string) (Document, error)
	// ListDocuments returns every document without its Markdown and item IDs, most
	// recently updated first, ties by id ascending.
	ListDocuments(ctx context.Context) ([]Document, error)
	// ApplyDocumentEdit atomically makes c the document's Markdown, item count and item
	// IDs (item IDs not recorded in c are cleared), sets UpdatedAt to e.At and appends e
	// to the journal. e.Revision must be the current revision + 1 (else ErrConflict); it
	// becomes the document's revision. An edit that records its change (Replayable) is
	// kept as that change, and c is written (c.Later called) only when a snapshot is due
	// (SnapshotDue; see journal.go). It returns the document without its Markdown and
	// item IDs, as ListDocuments does.
	ApplyDocumentEdit(ctx context.Context, docID string, c DocumentContent, e DocumentEdit) (Document, error)
	// ListDocumentEdits returns the edits with revision > afterRevision in ascending order.
	ListDocumentEdits(ctx context.Context, docID string, afterRevision int) ([]DocumentEdit, error)
}

// DocumentData stores what aite derives from a document and keeps beside
// it, by name: its codex ("codex.json"), its vector index ("vectors.bin"),
// the plan of an interrupted codex build ("codex-build.json"). A value is
// opaque bytes, replaced whole.
type DocumentData interface {
	// PutDocumentData stores (or replaces) the value called name of an
	// existing document (else ErrNotFound); name must be 1..64 characters
	// of letters, digits, '.', '-' and '_' (else ErrInvalid).
	PutDocumentData(ctx context.Context, docID, name string, data []byte, at time.Time) error
	// GetDocumentData returns the value called name of the document, or
	// ErrNotFound when the document or the value does not exist.
	GetDocumentData(ctx context.Context, docID, name string) (DocumentDatum, error)
}

// Tasks stores cursor-agent task states.
type Tasks interface {
	// SaveTask inserts or replaces the state of task id.
	SaveTask(ctx context.Context, id string, body json.RawMessage, at time.Time) error
	// LoadTask returns the state of task id or ErrNotFound.
	LoadTask(ctx context.Context, id string) (TaskState, error)
}

// Store is a complete backend.
type Store interface {
	Chats
	Runs
	Messages
	Systems
	Events
	Plans
	Documents
	DocumentData
	Tasks
	io.Closer
}
