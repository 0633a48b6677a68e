package main

import (
	"os"
	"testing"
)

// execAsAite makes the test binary run as aite itself when it is started
// with this variable set, so tests can hand a real aite command to another
// program (an MCP client that starts `aite mcp BOOK.md`).
const execAsAite = "AITE_TEST_EXEC_AS_AITE"

func TestMain(m *testing.M) {
	if os.Getenv(execAsAite) == "1" {
		main()
	}
	os.Exit(m.Run())
}
