package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// mcpClientDir holds the independent MCP client (the official TypeScript
// SDK, pinned by its package-lock.json); `bash .ci/run` installs it.
var mcpClientDir = filepath.Join("..", "..", ".ci", "mcp-client")

// TestMCPWithTheTypeScriptClient runs the TypeScript SDK's client against
// `aite mcp BOOK.md` over stdio and `aite serve`'s /mcp over HTTP: tools,
// find → propose → apply, an approval and a refusal by elicitation,
// paging, resources, bad arguments (see .ci/mcp-client/check.mjs).
func TestMCPWithTheTypeScriptClient(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the TypeScript MCP client check needs Node.js 20 or later")
	}
	if _, err := os.Stat(filepath.Join(mcpClientDir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Skip("the TypeScript MCP client is not installed: run npm ci --prefix .ci/mcp-client (bash .ci/run does)")
	}
	check, err := filepath.Abs(filepath.Join(mcpClientDir, "check.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "zvezdochkin.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := modelsEnv(t, execAsAite, "1") // no model: and the command line runs as aite
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	book := filepath.Join(dir, "zvezdochkin.md")
	mustWrite(t, book, string(src))
	runNode(ctx, t, node, check, "stdio", self, "mcp", book)
	if readFile(t, book) == string(src) {
		t.Error("the stdio check left the book unchanged")
	}

	url := startServe(ctx, t, self, filepath.Join(dir, "data"))
	runNode(ctx, t, node, check, "http", url+"/mcp")
}

func runNode(ctx context.Context, t *testing.T, node, check string, args ...string) {
	t.Helper()
	out, err := exec.CommandContext(ctx, node, append([]string{check}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("node check.mjs %s: %v\n%s", args[0], err, out)
	}
	t.Logf("%s", out)
}

var serveURL = regexp.MustCompile(`aite server: (http://\S+)/api/ap`)

// startServe starts `aite serve` on a free port and returns its URL.
func startServe(ctx context.Context, t *testing.T, self, data string) string {
	t.Helper()
	cmd := exec.CommandContext(ctx, self, "serve", "--addr", "127.0.0.1:0", "--data", data, "--log-level", "warn")
	cmd.Env = append(os.Environ(), execAsAite+"=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	m := serveURL.FindStringSubmatch(line)
	if err != nil || m == nil {
		t.Fatalf("aite serve did not start: %v %q\n%s", err, line, stderr.String())
	}
	return m[1]
}
