// Command aite edits large Markdown books with an LLM through semantic
// pointers. It reads a book, lists its outline and items, finds things with
// cursors and search, applies domain edits by pointer, and runs the command
// agent (`aite ask`, `aite chat`) over a configured model, writing the book
// atomically with a backup. See `aite --help`.
package main

import (
	"context"
	"os"
	"os/signal"

	// The reading commands on a book with a valid cache are answered
	// before the rest of the program initialises (see the package).
	_ "github.com/aitexteditor/aite/internal/quick"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := executeContext(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
