//go:build !unix

package server_test

import "time"

// processCPU is not measured here: the CPU figures of the load benchmark
// read 0.
func processCPU() time.Duration { return 0 }
