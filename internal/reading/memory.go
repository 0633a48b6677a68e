package reading

import (
	"math"
	"os"
	"runtime/debug"
)

// Memory for a command on a book: opening a book aite has no cache of
// (parse, index, cache written beside it), or building the index a cache
// lacks, holds about two to three times the book at the peak; without a
// limit, Go's collector lets the heap grow to twice what is live first. A
// soft limit near the peak makes it collect as it goes instead (a little
// more time on a big book), so the whole process stays under four times
// the book (issue 21; cmd/aite BenchmarkCLI and BenchmarkCLIFirstRun
// report the peak). Under the floor (a book of up to about 40 MB) the
// collector does not run in proportion to the heap at all, only near the
// limit: a first command on a 5.6 MB book allocates well under it, and
// collecting as it goes cost about a tenth of its time.
const (
	memoryHalves = 5         // the limit is memoryHalves/2 times the book ...
	memoryBase   = 24 << 20  // ... and this much more ...
	memoryFloor  = 128 << 20 // ... but never less: a small book needs no hurry
)

// A command on a book of at least hugePagesFrom bytes has its heap backed
// by huge pages (preferHugePages) for what a first command allocates
// before it: about six times the book (its bytes, the parser's tree, the
// items, the cache's encoding) and a few megabytes more, never more than
// half its heap limit (memory mapped for the heap counts in the limit).
// On a smaller book the faults it would save cost less than the
// collection that sets it up.
const (
	hugePagesFrom  = 1 << 20
	hugePagesTimes = 6
	hugePagesExtra = 8 << 20
)

// LimitMemory sets that soft limit on the Go heap for a command on the
// book at path (unless GOMEMLIMIT or a caller already set one) and returns
// what restores the previous limit. The command's heap is backed by huge
// pages where that pays (preferHugePages).
func LimitMemory(path string) func() { return limitMemory(path, 0, true) }

// LimitMemoryMapped is LimitMemory for a command that also holds mapped
// bytes (the book and its cache mapped into memory, internal/quick): they
// count in the process's memory but not in the Go heap, so the heap's
// limit is that much lower (never below memoryBase). Such a command reads
// its items from the mapped cache and allocates little unless it builds
// the index, so its heap is left as it is: setting huge pages up would
// cost a cached read more than it saves.
func LimitMemoryMapped(path string, mapped int64) func() { return limitMemory(path, mapped, false) }

// limitMemory is LimitMemoryMapped, with huge pages for the heap when huge.
func limitMemory(path string, mapped int64, huge bool) func() {
	fi, err := os.Stat(path)
	if err != nil || debug.SetMemoryLimit(-1) != math.MaxInt64 {
		return func() {}
	}
	proportional := memoryBase + memoryHalves*fi.Size()/2
	limit := max(memoryBase, max(memoryFloor, proportional)-mapped)
	prev := debug.SetMemoryLimit(limit)
	if huge && fi.Size() >= hugePagesFrom {
		preferHugePages(min(hugePagesTimes*fi.Size()+hugePagesExtra, limit/2))
	}
	if proportional > memoryFloor {
		return func() { debug.SetMemoryLimit(prev) }
	}
	// A book so small that the floor applies: all the command allocates
	// fits under it, so the collector need not run at all (about a tenth
	// of a first command's time); the limit still makes it run should
	// the heap come near.
	gc := debug.SetGCPercent(-1)
	return func() {
		debug.SetGCPercent(gc)
		debug.SetMemoryLimit(prev)
	}
}
