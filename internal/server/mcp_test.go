package server

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/server/auth"
	"github.com/aitexteditor/aite/internal/store/memory"
)

// mcpEnv is a server with the sample book as a document, listening.
type mcpEnv struct {
	url  string
	docs *Documents
	st   *memory.Store
	id   string
}

func mcpServer(t *testing.T, verifier *auth.Verifier) *mcpEnv {
	t.Helper()
	st := memory.New()
	clock := func() time.Time { return dcNow }
	docs := NewDocuments(st, clock)
	sample, err := os.ReadFile(filepath.Join("..", "..", "examples", "zvezdochkin.md"))
	require.NoError(t, err)
	doc, err := docs.Create(context.Background(), "zvezdochkin", sample, 0)
	require.NoError(t, err)
	srv := httptest.NewServer(New(Options{Store: st, Documents: docs, Auth: verifier, Clock: clock}).Handler())
	t.Cleanup(srv.Close)
	return &mcpEnv{url: srv.URL + MCPPath, docs: docs, st: st, id: doc.ID}
}

// bearerTransport adds a Bearer token to every request.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func (e *mcpEnv) connect(t *testing.T, token, version string, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: e.url}
	if token != "" {
		tr.HTTPClient = &http.Client{Transport: bearerTransport{token}}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, copts).Connect(context.Background(), tr,
		&mcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func mcpCall(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (map[string]any, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err, name)
	var v map[string]any
	if !res.IsError {
		require.NoError(t, json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &v))
	}
	return v, res.IsError
}

// TestMCPEditIsARevision: find, propose and apply through /mcp; the edit
// is the document's next revision in the history, like a run's.
func TestMCPEditIsARevision(t *testing.T) {
	e := mcpServer(t, nil)
	cs := e.connect(t, "", "2025-11-25", nil)
	list, _ := mcpCall(t, cs, "list_documents", map[string]any{})
	require.Equal(t, e.id, list["documents"].([]any)[0].(map[string]any)["documentId"])
	found, _ := mcpCall(t, cs, "search-find", map[string]any{"documentId": e.id, "query": "телеграмма"})
	ptr := found["results"].([]any)[0].(map[string]any)["pointer"].(string)
	p, _ := mcpCall(t, cs, "propose_replace_text", map[string]any{"documentId": e.id, "pointer": ptr, "markdown": "Телеграмму отправили с почты."})
	doc, err := e.st.GetDocument(context.Background(), e.id)
	require.NoError(t, err)
	require.Zero(t, doc.Revision, "a proposal changes nothing")
	done, _ := mcpCall(t, cs, "apply_edit", map[string]any{"proposalId": p["proposalId"]})
	require.Equal(t, 1.0, done["revision"])
	require.Equal(t, ptr, done["pointerBefore"])
	edits, err := e.st.ListDocumentEdits(context.Background(), e.id, 0)
	require.NoError(t, err)
	require.Len(t, edits, 1)
	require.Equal(t, "mcp", edits[0].RunID)
	require.Equal(t, "Телеграмму отправили с почты.", edits[0].After)
	doc, err = e.st.GetDocument(context.Background(), e.id)
	require.NoError(t, err)
	require.Contains(t, doc.Markdown, "\nТелеграмму отправили с почты.\n")

	_, isErr := mcpCall(t, cs, "editor-read", map[string]any{"documentId": "9c1d0d6e-0000-4000-8000-000000000000", "pointer": "2"})
	require.True(t, isErr)
}

// TestMCPApprovalOverHTTP: a 2026-07-28 client that can elicit approves
// the edit (multi-round-trip over stateless HTTP) and it is a revision.
func TestMCPApprovalOverHTTP(t *testing.T) {
	e := mcpServer(t, nil)
	asked := 0
	cs := e.connect(t, "", "2026-07-28", &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked++
		return &mcp.ElicitResult{Action: "accept"}, nil
	}})
	done, isErr := mcpCall(t, cs, "editor-delete", map[string]any{"documentId": e.id, "pointer": "2"})
	require.False(t, isErr, "%v", done)
	require.Equal(t, 1, asked)
	require.Equal(t, 1.0, done["revision"])
}

// TestMCPAuth: with auth on, /mcp needs a Bearer token, and each subject
// has its own proposals.
func TestMCPAuth(t *testing.T) {
	der, err := x509.MarshalPKIXPublicKey(&dtRSAKey().PublicKey)
	require.NoError(t, err)
	verifier, err := auth.NewVerifier(auth.Config{Enabled: true,
		PublicKeyPEM: string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))}, nil, func() time.Time { return dtNow })
	require.NoError(t, err)
	e := mcpServer(t, verifier)

	resp, err := http.Post(e.url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	require.NoError(t, err)
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	_ = resp.Body.Close()

	// A document belongs to the subject that created it: another subject
	// neither lists it nor reaches it by its id (the sample book, created
	// without auth, belongs to nobody: admins only).
	own, err := e.docs.Create(auth.WithSubject(context.Background(), "alice"), "alice's", []byte("# A\n\nText.\n\nMore.\n"), 0)
	require.NoError(t, err)
	alice := e.connect(t, dtBearerFor(t, "alice"), "2025-11-25", nil)
	bob := e.connect(t, dtBearerFor(t, "bob"), "2025-11-25", nil)
	p, isErr := mcpCall(t, alice, "propose_delete", map[string]any{"documentId": own.ID, "pointer": "2"})
	require.False(t, isErr, "%v", p)
	_, isErr = mcpCall(t, bob, "apply_edit", map[string]any{"proposalId": p["proposalId"]})
	require.True(t, isErr, "bob cannot apply alice's proposal")
	_, isErr = mcpCall(t, alice, "apply_edit", map[string]any{"proposalId": p["proposalId"]})
	require.False(t, isErr)
	ids := func(cs *mcp.ClientSession) []string {
		got, _ := mcpCall(t, cs, "list_documents", map[string]any{})
		var out []string
		for _, d := range got["documents"].([]any) {
			out = append(out, d.(map[string]any)["documentId"].(string))
		}
		return out
	}
	require.Contains(t, ids(alice), own.ID)
	require.NotContains(t, ids(bob), own.ID)
	got, isErr := mcpCall(t, bob, "editor-read", map[string]any{"documentId": own.ID, "pointer": "1"})
	require.True(t, isErr, "bob cannot read alice's document: %v", got)
}

// TestMCPCrossOrigin: a browser request from another site is refused; one
// from no browser (no Origin) passes.
func TestMCPCrossOrigin(t *testing.T) {
	e := mcpServer(t, nil)
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	post := func(header http.Header) int {
		req, err := http.NewRequest(http.MethodPost, e.url, strings.NewReader(body))
		require.NoError(t, err)
		req.Header = header
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	require.Equal(t, http.StatusForbidden, post(http.Header{"Sec-Fetch-Site": {"cross-site"}, "Origin": {"https://evil.example"}}))
	require.Equal(t, http.StatusOK, post(http.Header{}))
}
