package openai_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if a test leaves goroutines behind (a stream or a
// connection that was not released).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
