// Package cli holds the presentation side of aite's command-line interface:
// opening a book in an editor session (every read, edit, search, cursor,
// diff and save goes through internal/editor), the JSON shapes and text
// layouts of items, outlines, reads, search results and cursor portions,
// the edit workflow (apply, diff, write) and the reporting of errors with
// their exit codes. The cobra commands in cmd/aite only parse flags and
// call into this package.
//
// Every output function writes to an io.Writer it is given; nothing here
// touches os.Stdout or os.Stderr.
package cli

// Exit codes of the aite command.
const (
	// ExitOK is success.
	ExitOK = 0
	// ExitUsage is a usage error or bad input: bad flags or arguments, a
	// pointer that names no item, an edit the document refused.
	ExitUsage = 1
	// ExitIO is an I/O error: the book (or a text file, or standard input)
	// is missing or unreadable, or the output cannot be written.
	ExitIO = 2
)

// ExitHelp documents the exit codes; commands append it to their help.
const ExitHelp = `Exit status:
  0  success
  1  usage error or bad input (bad flags or arguments, a pointer that names
     no item, an edit the document refused); nothing is written
  2  I/O error (the book or a text file is missing, unreadable or
     unwritable)`
