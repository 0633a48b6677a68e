package mcpserver

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ToolReadMore is the tool that returns the next page of a long result.
const ToolReadMore = "read_more"

//go:embed read_more.md
var readMoreDoc string

// pageTrailerRoom is kept free on every page for the line that says how to
// read on.
const pageTrailerRoom = 200

// pageInfo is the structured content of a paged result.
type pageInfo struct {
	Page         int    `json:"page"`
	Pages        int    `json:"pages"`
	Continuation string `json:"continuation,omitempty"`
}

// bounded returns res itself when its text fits MaxResultText, else its
// first page, keeping the others for read_more.
func (s *server) bounded(res *mcp.CallToolResult) *mcp.CallToolResult {
	text := textOf(res)
	if len(text) <= MaxResultText {
		return res
	}
	p := paged{pages: split(text, MaxResultText-pageTrailerRoom), isError: res.IsError, meta: res.Meta}
	id := s.state.newID()
	s.state.pages.put(id, s.opts.Scope, s.state.clock(), p)
	return pageResult(id, p, 1)
}

// paged is a result cut into pages.
type paged struct {
	pages   []string
	isError bool
	meta    mcp.Meta // an error's code
}

// pageResult is page n (1-based) of a paged result.
func pageResult(id string, p paged, n int) *mcp.CallToolResult {
	pages := p.pages
	info := pageInfo{Page: n, Pages: len(pages)}
	text := pages[n-1]
	if n < len(pages) {
		info.Continuation = id + "." + strconv.Itoa(n+1)
		text += fmt.Sprintf("\n\n[page %d of %d; the rest: call %s with {\"continuation\": %q}]", n, len(pages), ToolReadMore, info.Continuation)
	} else {
		text += fmt.Sprintf("\n\n[page %d of %d, the last]", n, len(pages))
	}
	return &mcp.CallToolResult{IsError: p.isError, Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: info, Meta: p.meta}
}

// split cuts text into pages of at most size bytes. A JSON text is indented
// first, so pages end at line ends; a line longer than a page is cut at a
// character boundary.
func split(text string, size int) []string {
	var buf bytes.Buffer
	if json.Valid([]byte(text)) && json.Indent(&buf, []byte(text), "", " ") == nil {
		text = buf.String()
	}
	var pages []string
	var cur strings.Builder
	for line := range strings.SplitAfterSeq(text, "\n") {
		for len(line) > 0 {
			room := size - cur.Len()
			if len(line) <= room {
				cur.WriteString(line)
				break
			}
			if cur.Len() > 0 && len(line) <= size {
				pages = append(pages, cur.String())
				cur.Reset()
				continue
			}
			cut := runeCut(line, room)
			cur.WriteString(line[:cut])
			line = line[cut:]
			pages = append(pages, cur.String())
			cur.Reset()
		}
	}
	if cur.Len() > 0 || len(pages) == 0 {
		pages = append(pages, cur.String())
	}
	return pages
}

// runeCut returns the largest cut ≤ n of s that falls on a character
// boundary (at least one character, so progress is always made).
func runeCut(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if cut == 0 {
		_, size := utf8.DecodeRuneInString(s)
		return size
	}
	return cut
}

type readMoreParams struct {
	Continuation string `json:"continuation" jsonschema:"the continuation a paged result named"`
}

// readMore returns the page a continuation names.
func (s *server) readMore(_ context.Context, in readMoreParams) *mcp.CallToolResult {
	id, n, ok := parseContinuation(in.Continuation)
	p, found := s.state.pages.get(id, s.opts.Scope, s.state.clock())
	switch {
	case !ok:
		return errorResult("invalid_arguments", fmt.Sprintf("%q is not a continuation: pass the continuation of a paged result as it was given (like \"ABC.2\")", in.Continuation))
	case !found:
		return errorResult("not_found", "This continuation has expired (pages are kept for 30 minutes) or was made by another server process: call the tool again.")
	case n < 1 || n > len(p.pages):
		return errorResult("invalid_arguments", fmt.Sprintf("this result has pages 1 to %d, not %d", len(p.pages), n))
	}
	return pageResult(id, p, n)
}

func parseContinuation(c string) (id string, n int, ok bool) {
	i := strings.LastIndexByte(c, '.')
	if i <= 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(c[i+1:])
	return c[:i], n, err == nil
}
