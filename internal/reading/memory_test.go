package reading

import (
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"
)

// A command on a book small enough for the floor runs without the
// proportional collector, under the floor; on a bigger one the collector
// runs as set, under a limit in proportion to the book; both are restored
// after; GOMEMLIMIT or a caller's limit is left alone.
func TestLimitMemory(t *testing.T) {
	if debug.SetMemoryLimit(-1) != math.MaxInt64 {
		t.Skip("a memory limit is set (GOMEMLIMIT)")
	}
	dir := t.TempDir()
	small, big := filepath.Join(dir, "small.md"), filepath.Join(dir, "big.md")
	require.NoError(t, os.WriteFile(small, []byte("# A\n\ntext\n"), 0o644))
	require.NoError(t, os.WriteFile(big, nil, 0o644))
	require.NoError(t, os.Truncate(big, 100<<20)) // sparse: no disk used
	gc := debug.SetGCPercent(-1)
	debug.SetGCPercent(gc)

	restore := LimitMemory(small)
	require.Equal(t, int64(memoryFloor), debug.SetMemoryLimit(-1))
	require.Equal(t, -1, debug.SetGCPercent(-1), "no proportional collection under the floor")
	restore()
	require.Equal(t, int64(math.MaxInt64), debug.SetMemoryLimit(-1))
	require.Equal(t, gc, debug.SetGCPercent(gc))

	restore = LimitMemory(big)
	require.Equal(t, int64(memoryBase+memoryHalves*(100<<20)/2), debug.SetMemoryLimit(-1))
	require.Equal(t, gc, debug.SetGCPercent(gc), "the collector runs as set on a big book")
	restore()
	require.Equal(t, int64(math.MaxInt64), debug.SetMemoryLimit(-1))

	// Bytes mapped outside the heap (internal/quick) lower the heap's
	// limit by as much, never below memoryBase.
	restore = LimitMemoryMapped(small, 10<<20)
	require.Equal(t, int64(memoryFloor-10<<20), debug.SetMemoryLimit(-1))
	require.Equal(t, -1, debug.SetGCPercent(-1))
	restore()
	restore = LimitMemoryMapped(big, 1<<40)
	require.Equal(t, int64(memoryBase), debug.SetMemoryLimit(-1))
	restore()
	require.Equal(t, int64(math.MaxInt64), debug.SetMemoryLimit(-1))
	require.Equal(t, gc, debug.SetGCPercent(gc))

	debug.SetMemoryLimit(1 << 30)
	defer debug.SetMemoryLimit(math.MaxInt64)
	restore = LimitMemory(small)
	require.Equal(t, int64(1<<30), debug.SetMemoryLimit(-1), "a limit already set is kept")
	require.Equal(t, gc, debug.SetGCPercent(gc))
	restore()
}
