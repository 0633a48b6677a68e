package store

import "errors"

// ErrNotFound means the chat, run, plan, document or task named does not exist (also when the
// parent of a listing or of an appended row is unknown).
var ErrNotFound = errors.New("store: not found")

// ErrExists means a record with the same id was already created.
var ErrExists = errors.New("store: already exists")

// ErrConflict means the write does not fit the current state: an event seq that is not above
// the run's last one (duplicates included), a document edit whose revision is not current+1,
// or finishing a run that has already finished.
var ErrConflict = errors.New("store: conflict")

// ErrInvalid means the arguments break a record rule (empty id, malformed JSON, unknown
// status, …); nothing was written.
var ErrInvalid = errors.New("store: invalid argument")

// ErrNotOwner means the run belongs to another node sharing the store
// (Leases): this node's lease had expired and another node claimed the run,
// or this node's lease expired (StartRun).
var ErrNotOwner = errors.New("store: the run belongs to another node")
