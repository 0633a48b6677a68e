package server

import (
	"strconv"
	"sync"
	"time"
)

// RunIDs issues runIds (§ 1.3): epoch milliseconds in lowercase base36,
// process-wide monotonic (a candidate ≤ the last issued value becomes
// last + 1 ms), so ids never collide in one process and sort in time order.
type RunIDs struct {
	clock func() time.Time
	mu    sync.Mutex
	last  int64
}

// NewRunIDs returns a run id source over clock (time.Now when nil).
func NewRunIDs(clock func() time.Time) *RunIDs {
	if clock == nil {
		clock = time.Now
	}
	return &RunIDs{clock: clock}
}

// Next returns a new run id.
func (g *RunIDs) Next() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	ms := g.clock().UnixMilli()
	if ms <= g.last {
		ms = g.last + 1
	}
	g.last = ms
	return strconv.FormatInt(ms, 36)
}

// Observe makes later ids greater than id (a stored run id from a previous
// process, whose clock may have been ahead).
func (g *RunIDs) Observe(id string) {
	ms, err := strconv.ParseInt(id, 36, 64)
	if err != nil {
		return
	}
	g.mu.Lock()
	if ms > g.last {
		g.last = ms
	}
	g.mu.Unlock()
}
