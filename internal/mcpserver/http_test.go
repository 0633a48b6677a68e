package mcpserver

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// twoBooks is a library of two book files, found by their names.
type twoBooks map[string]*FileLibrary

func (l twoBooks) Documents(ctx context.Context) ([]Document, error) {
	var out []Document
	for _, name := range []string{"a.md", "b.md"} {
		d, _ := l[name].Documents(ctx)
		out = append(out, d...)
	}
	return out, nil
}

func (l twoBooks) Open(_ context.Context, id string) (Book, error) {
	if b, ok := l[id]; ok {
		return b, nil
	}
	return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
}

func httpSession(t *testing.T, version string, copts *mcp.ClientOptions) (*mcp.ClientSession, twoBooks) {
	t.Helper()
	lib := twoBooks{}
	for _, name := range []string{"a.md", "b.md"} {
		path := sampleBook(t)
		l, err := OpenFile(path, testIO, nil)
		require.NoError(t, err)
		l.name = name
		lib[name] = l
	}
	st, _ := testState()
	srv := httptest.NewServer(HTTPHandler(func(r *http.Request) (Library, Options) {
		return lib, Options{Scope: r.Header.Get("X-Test-Subject")}
	}, st, nil))
	t.Cleanup(srv.Close)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, copts).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: srv.URL}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs, lib
}

// TestHTTPApprovalIsStateless: over stateless HTTP a 2026-07-28 client
// approves through multi-round-trip requests (each round an independent
// HTTP request), on the document it names.
func TestHTTPApprovalIsStateless(t *testing.T) {
	var asked []*mcp.ElicitParams
	cs, lib := httpSession(t, "2026-07-28", accepting(&asked, "accept", nil))
	tools, _ := listTools(t, cs)
	names := map[string]bool{}
	for _, tl := range tools {
		names[tl.Name] = true
	}
	require.True(t, names["editor-replace_text"] && names[ToolListDocuments] && !names[ToolApplyEdit])

	docs := object(t, call(t, cs, ToolListDocuments, map[string]any{}))
	require.Len(t, docs["documents"], 2)
	code, _ := failureOf(t, call(t, cs, ToolListDocuments, map[string]any{"filter": "a"}))
	require.Equal(t, "invalid_arguments", code)
	found := object(t, call(t, cs, "search-find", map[string]any{"documentId": "b.md", "query": "телеграмма"}))
	require.NotEmpty(t, found["results"])
	got := object(t, call(t, cs, "editor-replace_text", map[string]any{"documentId": "b.md", "pointer": "2", "markdown": "Новое."}))
	require.Equal(t, true, got["applied"])
	require.Len(t, asked, 1)
	require.Contains(t, readFile(t, lib["b.md"].path), "\nНовое.\n")
	require.Contains(t, readFile(t, lib["a.md"].path), intro, "the other document is untouched")

	code, _ = failureOf(t, call(t, cs, "editor-read", map[string]any{"pointer": "2"}))
	require.Equal(t, "invalid_arguments", code)
	code, text := failureOf(t, call(t, cs, "editor-read", map[string]any{"documentId": "c.md", "pointer": "2"}))
	require.Equal(t, "not_found", code)
	require.Contains(t, text, "a.md (a.md), b.md (b.md)")
}

// TestHTTPLegacyClientProposes: a client of an earlier protocol cannot be
// asked over stateless HTTP (the server cannot send it requests), so it
// proposes and applies.
func TestHTTPLegacyClientProposes(t *testing.T) {
	var asked []*mcp.ElicitParams
	cs, lib := httpSession(t, "2025-11-25", accepting(&asked, "accept", nil))
	tools, _ := listTools(t, cs)
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	require.Contains(t, names, ToolApplyEdit)
	require.NotContains(t, names, "editor-replace_text")
	p := object(t, call(t, cs, "propose_delete", map[string]any{"documentId": "a.md", "pointer": "4"}))
	require.Contains(t, readFile(t, lib["a.md"].path), "Поезд из губернского города")
	done := object(t, call(t, cs, ToolApplyEdit, map[string]any{"proposalId": p["proposalId"]}))
	require.Equal(t, "4:1.1.p1", done["pointerBefore"])
	require.NotContains(t, readFile(t, lib["a.md"].path), "Поезд из губернского города")
	require.Empty(t, asked)

	list, err := cs.ListResources(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, list.Resources, 2)
}
