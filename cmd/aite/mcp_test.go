package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPCommand drives `aite mcp BOOK.md` in process with the Go SDK's
// client over its standard input and output: the edit proposed and
// applied over MCP is written like every command's edit, so `aite undo`
// takes it back.
func TestMCPCommand(t *testing.T) {
	modelsEnv(t)
	path := writeBook(t)
	before := readFile(t, path)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	go func() {
		done <- executeContext(ctx, []string{"mcp", path}, inR, outW, &stderr)
		_ = outW.Close()
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx,
		&mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	callTool := func(name string, args map[string]any) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	found := decodeObject(t, callTool("search-find", map[string]any{"query": "last paragraph", "mode": "exact"}))
	ptr := found["results"].([]any)[0].(map[string]any)["pointer"].(string)
	proposal := decodeObject(t, callTool("propose_replace_text", map[string]any{"pointer": ptr, "markdown": "The very last paragraph."}))
	if readFile(t, path) != before {
		t.Fatal("a proposal wrote the book")
	}
	applied := decodeObject(t, callTool("apply_edit", map[string]any{"proposalId": proposal["proposalId"]}))
	if applied["pointerBefore"] != "14:1.2.p1" || applied["pointerAfter"] != "14:1.2.p1" {
		t.Errorf("pointers %v → %v", applied["pointerBefore"], applied["pointerAfter"])
	}
	if got := readFile(t, path); !strings.Contains(got, "The very last paragraph.\n") || readFile(t, path+".bak") != before {
		t.Fatalf("the book or its backup is not as expected:\n%s", got)
	}
	_ = cs.Close()
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("aite mcp: exit %d\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "no model is configured") {
		t.Errorf("stderr: %s", stderr.String())
	}
	r := mustRun(t, "undo", path)
	if readFile(t, path) != before {
		t.Fatalf("aite undo did not restore the book: %s", r.stderr)
	}
}

func TestMCPCommandErrors(t *testing.T) {
	modelsEnv(t)
	wantFail(t, 2, []string{"does not exist"}, "mcp", "nope.md")
	wantFail(t, 1, []string{"takes 1 argument"}, "mcp")
}
