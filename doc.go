// Package aite is the module root of aite, a tool for editing large Markdown
// books with an LLM through semantic pointers. The command is cmd/aite; the
// packages are under internal/ (see README.md for the layout). This package
// holds only the repository-wide architecture test.
package aite
