//go:build !unix

package atomicfile

import "testing"

// TestRealCrash needs SIGKILL and is only run on unix.
func TestRealCrash(t *testing.T) {
	t.Skip("real-crash test needs unix signals")
}
