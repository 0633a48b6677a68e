package agent

import (
	"sync"
	"time"
)

// deadline is the run deadline (budget.runTimeoutMs). It can be paused
// while the run waits for a /submit (§ 4.1 step 2), so that time does not
// count. A zero duration means no deadline.
type deadline struct {
	mu        sync.Mutex
	remaining time.Duration
	since     time.Time
	timer     *time.Timer
	fire      func()
}

// startDeadline starts a deadline that calls fire once d has run out.
func startDeadline(d time.Duration, fire func()) *deadline {
	dl := &deadline{remaining: d, fire: fire}
	if d > 0 {
		dl.resume()
	}
	return dl
}

// pause stops the clock, keeping the time left.
func (d *deadline) pause() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.timer == nil {
		return
	}
	if d.timer.Stop() {
		d.remaining -= time.Since(d.since)
	} else {
		d.remaining = 0 // already fired
	}
	d.timer = nil
}

// resume restarts the clock with the time left.
func (d *deadline) resume() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.timer != nil || d.fire == nil || d.remaining <= 0 {
		return
	}
	d.since = time.Now()
	d.timer = time.AfterFunc(d.remaining, d.fire)
}

// stop ends the deadline for good.
func (d *deadline) stop() {
	d.pause()
	d.mu.Lock()
	d.fire = nil
	d.mu.Unlock()
}
