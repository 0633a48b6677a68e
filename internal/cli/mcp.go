package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/aitexteditor/aite/internal/cursoragent"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/llm/models"
	"github.com/aitexteditor/aite/internal/mcpserver"
	"github.com/aitexteditor/aite/internal/reading"
)

// MCPRequest is one `aite mcp BOOK.md`.
type MCPRequest struct {
	Book string
	// Model and Config choose the cursor agent's model like `aite ask`
	// does; without a configured model the cursor agent is not offered.
	Model, Config string
	In            io.ReadCloser
	Out           io.WriteCloser
	Log           io.Writer
}

// ServeMCP serves one book file to an MCP client over standard input and
// output until the client disconnects or ctx ends. Every approved edit is
// written at once, like the edits of the other commands (fileIO).
func ServeMCP(ctx context.Context, req MCPRequest) error {
	agent, err := mcpCursorAgent(req)
	if err != nil {
		return err
	}
	lib, err := mcpserver.OpenFile(req.Book, fileIO(optionalEmbeddings(req.Config)), agent)
	if err != nil {
		return err
	}
	fmt.Fprintf(req.Log, "aite mcp: serving %s over standard input and output; approved edits are written at once (with %s.bak; `aite undo %s` takes the last one back)\n",
		req.Book, req.Book, req.Book)
	if err := mcpserver.ServeStdio(ctx, lib, mcpserver.Options{CursorAgent: agent != nil}, req.In, req.Out); err != nil && ctx.Err() == nil {
		return &reading.IOError{Err: err}
	}
	return nil
}

// mcpCursorAgent is the cursor agent on the configured model, or nil when
// no model is configured and none was asked for.
func mcpCursorAgent(req MCPRequest) (*cursoragent.Agent, error) {
	m, err := LoadModel(req.Model, req.Config)
	switch {
	case err == nil:
		return &cursoragent.Agent{Provider: m.Provider, Model: m.Info.ModelID, JSONSchema: m.Info.SupportsJSONSchema}, nil
	case req.Model == "" && errors.Is(err, models.ErrNoModel):
		fmt.Fprintln(req.Log, "aite mcp: no model is configured, so the cursor agent tool is not offered (see 'aite models')")
		return nil, nil
	}
	return nil, err
}

// fileIO is how the MCP server opens and writes a book file: the command
// line's own OpenBook (searching by meaning when an embedding model is
// configured), and the save of `aite ask` and `aite chat` (atomic, with a
// .bak and an entry in the journal `aite undo` reads). It is the one place
// to change when the command line's book files change.
func fileIO(emb *editor.Embeddings) mcpserver.FileIO {
	return mcpserver.FileIO{Open: func(path string) (*editor.Session, string, error) {
		b, err := OpenBook(path)
		if err != nil {
			return nil, "", err
		}
		b.s.SetEmbeddings(emb)
		return b.Session(), b.ID(), nil
	}, Save: saveBookFile}
}

// saveBookFile writes a book file like `aite ask` does.
func saveBookFile(s *editor.Session, id, label string) error {
	_, err := s.Save(id, editor.SaveOptions{Backup: true, Record: label})
	return err
}
