// Command aite edits large Markdown books with an LLM through semantic
// pointers. It reads a book, lists its outline and items, reads items with
// their neighbours and applies one domain edit at a time, writing the book
// atomically with a backup. See `aite --help`.
package main

import "os"

func main() {
	os.Exit(execute(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
