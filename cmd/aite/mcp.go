package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/aitexteditor/aite/internal/cli"
)

func newMCPCmd() *cobra.Command {
	f := &agentFlags{}
	cmd := &cobra.Command{
		Use:   "mcp BOOK.md",
		Short: "Serve a book's tools to an MCP client (Claude Desktop, Cursor, VS Code, …) over stdio",
		Long: helpText(`Serve one book to an MCP client over standard input and output: the book
tools the agents use (cursors, search, read, edits by pointer, target sets),
the book's outline and items as resources, and read_more for results longer
than 16 KB. The client's model does the thinking; with a configured model
(see 'aite models') the cursor agent tool is offered too.

Every edit is shown to the user as a diff before it is applied: a client that
can ask its user (MCP elicitation) asks for approval; for one that cannot,
propose_* tools return the diff and apply_edit applies it. An applied edit is
written to the book at once, atomically, keeping the previous version as
BOOK.md.bak and journaled so that 'aite undo BOOK.md' takes it back. If the
file is changed by something else meanwhile, the next call reads it again and
says so.

Client configuration (Claude Desktop, Cursor, VS Code):
  {"command": "aite", "args": ["mcp", "/path/book.md"]}`),
		Example: `  aite mcp book.md
  npx @modelcontextprotocol/inspector aite mcp book.md`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return cli.ServeMCP(cmd.Context(), cli.MCPRequest{Book: args[0], Model: f.model, Config: f.config,
				In: io.NopCloser(cmd.InOrStdin()), Out: nopCloser{cmd.OutOrStdout()}, Log: cmd.ErrOrStderr()})
		},
	}
	f.register(cmd, false)
	return cmd
}

// nopCloser is an io.WriteCloser whose Close does nothing: the process's
// standard output outlives the MCP session.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
