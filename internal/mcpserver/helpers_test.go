package mcpserver

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/editor"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// testIO opens and saves like the command line: the session's own open and
// its save with a backup and an undo-journal entry.
var testIO = FileIO{
	Open: func(path string) (*editor.Session, string, error) {
		s := editor.New()
		info, err := s.Open(path)
		return s, info.ID, err
	},
	Save: func(s *editor.Session, id, label string) error {
		_, err := s.Save(id, editor.SaveOptions{Backup: true, Record: label})
		return err
	},
}

// sampleBook copies the sample book into a fresh directory.
func sampleBook(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "zvezdochkin.md"))
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "zvezdochkin.md")
	require.NoError(t, os.WriteFile(path, src, 0o644))
	return path
}

func fileLibrary(t *testing.T) (*FileLibrary, string) {
	t.Helper()
	path := sampleBook(t)
	lib, err := OpenFile(path, testIO, nil)
	require.NoError(t, err)
	return lib, path
}

// testState numbers IDs ID1, ID2, … and runs on a clock the test moves.
func testState() (*State, *time.Time) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var n atomic.Int64
	return NewState(func() time.Time { return now }, func() string { return fmt.Sprintf("ID%d", n.Add(1)) }), &now
}

// connect serves lib in memory and connects a client of the given
// protocol version ("" = the newest).
func connect(t *testing.T, lib Library, opts Options, copts *mcp.ClientOptions, version string) *mcp.ClientSession {
	t.Helper()
	if opts.State == nil {
		opts.State, _ = testState()
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := New(lib, opts).Connect(ctx, st, nil)
	require.NoError(t, err)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, copts).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
	})
	return cs
}

// accepting is a client that approves every edit (and keeps the requests).
func accepting(asked *[]*mcp.ElicitParams, action string, content map[string]any) *mcp.ClientOptions {
	return &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		*asked = append(*asked, req.Params)
		return &mcp.ElicitResult{Action: action, Content: content}, nil
	}}
}

// call calls a tool; a protocol error fails the test (tool failures are
// results).
func call(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err, "%s: failures must be isError results, not protocol errors", name)
	require.LessOrEqual(t, len(textOf(res)), MaxResultText, "%s: result text over the bound", name)
	return res
}

// object is a result's text as a JSON object; its structured content must
// be the same object.
func object(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(textOf(res)), &v), textOf(res))
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	require.JSONEq(t, textOf(res), string(b), "the text is a copy of the structured content")
	return v
}

// failureOf is the code and text of an error result.
func failureOf(t *testing.T, res *mcp.CallToolResult) (code, text string) {
	t.Helper()
	require.True(t, res.IsError, "want an error result, got %s", textOf(res))
	require.Nil(t, res.StructuredContent, "an error result is a sentence, not structured")
	code, _ = res.Meta[ErrorCodeMeta].(string)
	require.NotEmpty(t, code)
	return code, textOf(res)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}
