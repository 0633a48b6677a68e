package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm"
)

// TestPaging reads the whole sample book (about 45 KB of JSON) in one
// editor-read: it comes in pages of at most MaxResultText bytes, each
// naming the next, and the pages together are the result.
func TestPaging(t *testing.T) {
	lib, _ := fileLibrary(t)
	cs := connect(t, lib, Options{}, nil, "")
	args := map[string]any{"pointer": "1", "after": 200}

	var whole bytes.Buffer
	direct, err := lib.Call(context.Background(), "editor-read", mustJSON(t, args), nil)
	require.NoError(t, err)
	require.Greater(t, len(direct.Text), 2*MaxResultText, "the sample must need several pages")
	require.NoError(t, json.Indent(&whole, []byte(direct.Text), "", " "))

	res := call(t, cs, "editor-read", args)
	var got strings.Builder
	for page := 1; ; page++ {
		require.False(t, res.IsError)
		var info pageInfo
		b, _ := json.Marshal(res.StructuredContent)
		require.NoError(t, json.Unmarshal(b, &info))
		require.Equal(t, page, info.Page)
		text := textOf(res)
		require.True(t, utf8.ValidString(text), "pages are cut between characters")
		body, trailer, ok := strings.Cut(text, "\n\n[page ")
		require.True(t, ok, "every page says where it is")
		got.WriteString(body)
		if info.Continuation == "" {
			require.Contains(t, trailer, "the last")
			require.Equal(t, info.Pages, page)
			break
		}
		require.Contains(t, trailer, info.Continuation)
		res = call(t, cs, ToolReadMore, map[string]any{"continuation": info.Continuation})
	}
	require.Equal(t, whole.String(), got.String())

	code, _ := failureOf(t, call(t, cs, ToolReadMore, map[string]any{"continuation": "ID1.99"}))
	require.Equal(t, "invalid_arguments", code)
	code, _ = failureOf(t, call(t, cs, ToolReadMore, map[string]any{"continuation": "ID404.2"}))
	require.Equal(t, "not_found", code)
}

func TestPagesExpireAndStayWithTheirScope(t *testing.T) {
	lib, _ := fileLibrary(t)
	st, now := testState()
	alice := connect(t, lib, Options{Scope: "alice", State: st}, nil, "")
	bob := connect(t, lib, Options{Scope: "bob", State: st}, nil, "")
	first := call(t, alice, "editor-read", map[string]any{"pointer": "1", "after": 200})
	next := first.StructuredContent.(map[string]any)["continuation"]
	code, _ := failureOf(t, call(t, bob, ToolReadMore, map[string]any{"continuation": next}))
	require.Equal(t, "not_found", code, "another caller's pages are not there")
	require.False(t, call(t, alice, ToolReadMore, map[string]any{"continuation": next}).IsError)
	*now = now.Add(pagesTTL + time.Second)
	code, _ = failureOf(t, call(t, alice, ToolReadMore, map[string]any{"continuation": next}))
	require.Equal(t, "not_found", code, "pages expire")
}

func TestSplit(t *testing.T) {
	long := strings.Repeat("ё", 100) // 200 bytes, one line
	for _, tc := range []struct {
		name, text string
		size       int
	}{
		{"short", "abc", 10},
		{"lines", "one\ntwo\nthree\nfour\n", 9},
		{"long line", "a\n" + long + "\nb", 31},
		{"one huge character run", long, 3},
		{"json", `{"items":[{"markdown":"` + long + `"},{"markdown":"x"}]}`, 64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pages := split(tc.text, tc.size)
			for _, p := range pages {
				require.LessOrEqual(t, len(p), tc.size)
				require.True(t, utf8.ValidString(p))
				require.NotEmpty(t, p)
			}
			joined := strings.Join(pages, "")
			if json.Valid([]byte(tc.text)) {
				var a, b any
				require.NoError(t, json.Unmarshal([]byte(joined), &a))
				require.NoError(t, json.Unmarshal([]byte(tc.text), &b))
				require.Equal(t, b, a)
				return
			}
			require.Equal(t, tc.text, joined)
		})
	}
}

func TestStoreBounds(t *testing.T) {
	at := time.Unix(0, 0)
	s := newStore[int](2, time.Minute)
	s.put("a", "", at, 1)
	s.put("b", "", at, 2)
	s.put("c", "", at, 3)
	_, ok := s.get("a", "", at)
	require.False(t, ok, "the oldest goes when full")
	v, ok := s.get("c", "", at)
	require.True(t, ok)
	require.Equal(t, 3, v)
	s.remove("c")
	_, ok = s.get("c", "", at)
	require.False(t, ok)
	_, ok = s.get("b", "", at.Add(time.Minute))
	require.False(t, ok, "entries expire")
}

// TestToolListBudget keeps what a client pays for the tool list on every
// turn in sight: the bytes of the tools/list result, and an estimate of
// its tokens (the figures are logged; see docs/mcp.md).
func TestToolListBudget(t *testing.T) {
	lib, _ := fileLibrary(t)
	var asked []*mcp.ElicitParams
	for _, tc := range []struct {
		name   string
		opts   Options
		client *mcp.ClientOptions
		max    int
	}{
		// The codex tools (codex-lookup, codex-build) and the entry and
		// meaning-search parameters added about 2.5 KB (issue 18).
		{"stdio, elicitation", Options{}, accepting(&asked, "accept", nil), 13_500},
		{"stdio, propose", Options{}, nil, 15_500},
		{"http, propose", Options{Multi: true}, nil, 17_000},
		{"stdio, elicitation, cursor agent", Options{CursorAgent: true}, accepting(&asked, "accept", nil), 16_000},
	} {
		tools, _ := listTools(t, connect(t, lib, tc.opts, tc.client, ""))
		b, err := json.Marshal(tools)
		require.NoError(t, err)
		t.Logf("%s: %d tools, %d bytes of JSON, about %d tokens (llm.EstimateTokens)", tc.name, len(tools), len(b), llm.EstimateTokens(string(b)))
		require.LessOrEqual(t, len(b), tc.max, "%s: the tool list grew; check what it costs a client per turn", tc.name)
	}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}
