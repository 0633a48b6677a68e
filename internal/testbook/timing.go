package testbook

import "time"

// Timing is what a piece of work took: wall-clock time and the CPU time of
// the whole process meanwhile (user + system, on every core; zero where
// the platform does not tell).
type Timing struct {
	Wall, CPU time.Duration
}

// Add returns the sum of two timings.
func (t Timing) Add(u Timing) Timing { return Timing{t.Wall + u.Wall, t.CPU + u.CPU} }

// Time runs f and returns what it took.
func Time(f func()) Timing {
	c0, t0 := cpuTime(), time.Now()
	f()
	return Timing{Wall: time.Since(t0), CPU: cpuTime() - c0}
}
