// Package cli holds the presentation side of aite's command-line interface:
// opening a book in an editor session (every read, edit, search, cursor,
// diff and save goes through internal/editor), the edit workflow (apply,
// diff, write), the agent commands and the reporting of errors with their
// exit codes. The reading commands (find, read, items, outline, cursor) and
// their output are internal/reading, over the session. The cobra commands
// in cmd/aite only parse flags and call into these packages.
//
// Every output function writes to an io.Writer it is given; nothing here
// touches os.Stdout or os.Stderr.
package cli

import "github.com/aitexteditor/aite/internal/reading"

// Exit codes of the aite command (internal/reading, which the reading
// commands share).
const (
	ExitOK    = reading.ExitOK
	ExitUsage = reading.ExitUsage
	ExitIO    = reading.ExitIO
)

// ExitHelp documents the exit codes; commands append it to their help.
const ExitHelp = reading.ExitHelp
