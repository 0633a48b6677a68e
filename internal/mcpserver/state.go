package mcpserver

import (
	"crypto/rand"
	"sync"
	"time"
)

// Limits of what State keeps between calls.
const (
	proposalTTL   = time.Hour
	maxProposals  = 256
	pagesTTL      = 30 * time.Minute
	maxPagedCalls = 64
)

// State is what the server keeps between tool calls: proposals waiting
// for apply_edit and the pages of long results waiting for read_more. It
// lives in the process: the HTTP handler shares one State among the
// per-request servers, so a proposal or a continuation must come back to
// the process that made it (see docs/mcp.md). Entries are kept per scope
// (the caller's subject), so one caller never reaches another's.
type State struct {
	clock     func() time.Time
	newID     func() string
	proposals *store[proposal]
	pages     *store[paged]
}

// NewState returns an empty State; clock and newID may be nil (time.Now
// and random IDs).
func NewState(clock func() time.Time, newID func() string) *State {
	if clock == nil {
		clock = time.Now
	}
	if newID == nil {
		newID = rand.Text
	}
	return &State{clock: clock, newID: newID,
		proposals: newStore[proposal](maxProposals, proposalTTL),
		pages:     newStore[paged](maxPagedCalls, pagesTTL)}
}

// store is a bounded map of entries that expire: when full, the oldest
// entry goes.
type store[V any] struct {
	mu    sync.Mutex
	max   int
	ttl   time.Duration
	items map[string]entry[V]
	order []string // insertion order, oldest first
}

type entry[V any] struct {
	scope string
	at    time.Time
	v     V
}

func newStore[V any](max int, ttl time.Duration) *store[V] {
	return &store[V]{max: max, ttl: ttl, items: map[string]entry[V]{}}
}

func (s *store[V]) put(id, scope string, now time.Time, v V) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire(now)
	for len(s.order) >= s.max {
		delete(s.items, s.order[0])
		s.order = s.order[1:]
	}
	s.items[id] = entry[V]{scope: scope, at: now, v: v}
	s.order = append(s.order, id)
}

// get returns the entry of id if it exists for scope and has not expired.
func (s *store[V]) get(id, scope string, now time.Time) (V, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire(now)
	e, ok := s.items[id]
	if !ok || e.scope != scope {
		var zero V
		return zero, false
	}
	return e.v, true
}

func (s *store[V]) remove(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.items, id)
	for i, o := range s.order {
		if o == id {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
}

// expire drops the entries older than the TTL (they are at the front).
func (s *store[V]) expire(now time.Time) {
	n := 0
	for n < len(s.order) {
		e, ok := s.items[s.order[n]]
		if ok && now.Sub(e.at) < s.ttl {
			break
		}
		delete(s.items, s.order[n])
		n++
	}
	s.order = s.order[n:]
}
