package server

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/server/auth"
)

// ownerEnv is a server with auth on over a chEngine whose runs stall until
// released, a data directory and chat image tokens.
type ownerEnv struct {
	*chEnv
	release chan struct{}
	tokens  *auth.Issuer
}

func newOwnerEnv(t *testing.T) *ownerEnv {
	t.Helper()
	verifier := ownerVerifier(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "fig.png"), []byte("PNG"), 0o644))
	o := &ownerEnv{release: make(chan struct{}), tokens: &auth.Issuer{Secret: "s3cret", Clock: time.Now}}
	t.Cleanup(func() { close(o.release) })
	o.chEnv = newChEnv(t, chStall(o.release), nil, func(opts *Options) {
		opts.Auth, opts.ChatTokens, opts.DataDir, opts.DataTokenValidation = verifier, o.tokens, dir, true
		opts.ChatFiles = func(context.Context, string) (map[string]bool, error) { return map[string]bool{"fig.png": true}, nil }
	})
	return o
}

// ownerVerifier verifies the tokens of bearer, with the admin scope
// aite:admin.
func ownerVerifier(t *testing.T) *auth.Verifier {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(&dtRSAKey().PublicKey)
	require.NoError(t, err)
	verifier, err := auth.NewVerifier(auth.Config{Enabled: true, AdminScope: "aite:admin",
		PublicKeyPEM: string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))}, nil, time.Now)
	require.NoError(t, err)
	return verifier
}

// bearer signs an RS256 token for subject with the given scope.
func bearer(t *testing.T, subject, scope string) string {
	t.Helper()
	claims := map[string]any{"sub": subject, "exp": time.Now().Add(time.Hour).Unix()}
	if scope != "" {
		claims["scope"] = scope
	}
	return signedBearer(t, claims)
}

// as sends a request as subject (scope may be "") and returns the status and
// the envelope, or for a stream its first bytes.
func (o *ownerEnv) as(subject, scope, method, path, body string) (int, string) {
	o.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp := o.do(ctx, method, path, body, http.Header{"Authorization": {"Bearer " + bearer(o.t, subject, scope)}})
	defer resp.Body.Close()
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		buf := make([]byte, 512)
		n, _ := resp.Body.Read(buf)
		return resp.StatusCode, string(buf[:n])
	}
	b, err := io.ReadAll(resp.Body)
	require.NoError(o.t, err)
	return resp.StatusCode, string(b)
}

// Issue 14: with auth on, a second user could read, cancel and post into
// someone else's chat. Chats, runs, documents and chat image tokens belong
// to the token's subject: another user gets 404 (an unmatched submit, empty
// lists); a token with the admin scope sees everything.
func TestOwnershipWithAuth(t *testing.T) {
	o := newOwnerEnv(t)
	const alice, bob, admin = "alice", "bob", "root"
	adminScope := "read aite:admin"

	status, body := o.as(alice, "", http.MethodPost, "/api/ap/documents", `{"name":"Alice's book","markdown":"# A\n\nText.\n"}`)
	require.Equal(t, 200, status, body)
	var doc struct {
		Data documentSummary `json:"data"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &doc))
	docID := doc.Data.DocumentID

	// Alice starts a run in a new chat on her book; it keeps running.
	s := o.open(http.MethodPost, "/api/ap/query", `{"message":"edit my book","agentKey":"alpha","params":{"documentId":"`+docID+`"}}`,
		http.Header{"Authorization": {"Bearer " + bearer(t, alice, "")}})
	require.Equal(t, 200, s.resp.StatusCode)
	var chatID, runID, token string
	for chatID == "" || runID == "" {
		f, ok := s.next()
		require.True(t, ok)
		ev := f.ev(t)
		if ev.Type == "chat.start" {
			ev.field(t, "chatId", &chatID)
			ev.field(t, "chatImageToken", &token)
		}
		if ev.Type == "run.start" {
			ev.field(t, "runId", &runID)
		}
	}

	notFound := func(status int, body, msg string) {
		t.Helper()
		require.Equal(t, 404, status, body)
		require.JSONEq(t, `{"code":404,"msg":"`+msg+`","data":{}}`, body)
	}
	// Bob sees nothing of it and can do nothing to it.
	_, body = o.as(bob, "", http.MethodGet, "/api/ap/chats", "")
	require.JSONEq(t, `{"code":0,"msg":"success","data":[]}`, body)
	_, body = o.as(bob, "", http.MethodGet, "/api/ap/documents", "")
	require.JSONEq(t, `{"code":0,"msg":"success","data":[]}`, body)
	_, body = o.as(bob, "", http.MethodGet, "/api/ap/runs", "")
	require.JSONEq(t, `{"code":0,"msg":"success","data":[]}`, body)
	status, body = o.as(bob, "", http.MethodGet, "/api/ap/chat?chatId="+chatID, "")
	notFound(status, body, "Chat not found: "+chatID)
	status, body = o.as(bob, "", http.MethodPost, "/api/ap/read", `{"chatId":"`+chatID+`"}`)
	notFound(status, body, "Chat not found: "+chatID)
	status, body = o.as(bob, "", http.MethodPost, "/api/ap/query", `{"message":"hijack","chatId":"`+chatID+`"}`)
	notFound(status, body, "Chat not found: "+chatID)
	status, body = o.as(bob, "", http.MethodPost, "/api/ap/query", `{"message":"read hers","params":{"documentId":"`+docID+`"}}`)
	require.Equal(t, 400, status, body)
	require.Contains(t, body, "Unknown documentId: "+docID)
	for _, p := range []string{"/api/ap/document", "/api/ap/document/items", "/api/ap/document/raw", "/api/ap/document/history"} {
		status, body = o.as(bob, "", http.MethodGet, p+"?documentId="+docID, "")
		notFound(status, body, "Document not found: "+docID)
	}
	status, body = o.as(bob, "", http.MethodGet, "/api/ap/run/stream?runId="+runID, "")
	notFound(status, body, "Run not found: "+runID)
	status, body = o.as(bob, "", http.MethodPost, "/api/ap/run/cancel", `{"runId":"`+runID+`"}`)
	notFound(status, body, "Run not found: "+runID)
	status, body = o.as(bob, "", http.MethodPost, "/api/ap/submit", `{"runId":"`+runID+`","toolId":"t1","params":{}}`)
	require.Equal(t, 200, status)
	require.Contains(t, body, `"status":"unmatched"`)

	// A chat image token belongs to its subject: one for Alice's chat
	// issued to Bob does not open her files; hers does.
	forged, err := o.tokens.Issue(chatID, bob)
	require.NoError(t, err)
	status, body = o.as(bob, "", http.MethodGet, "/api/ap/data?file=fig.png&t="+forged, "")
	require.Equal(t, 403, status, body)
	require.NotEmpty(t, token)
	status, body = o.as(alice, "", http.MethodGet, "/api/ap/data?file=fig.png&t="+token, "")
	require.Equal(t, 200, status, body)

	// The owner and an admin see it all; the admin may cancel it.
	status, body = o.as(alice, "", http.MethodGet, "/api/ap/chat?chatId="+chatID, "")
	require.Equal(t, 200, status, body)
	for _, p := range []string{"/api/ap/chats", "/api/ap/documents", "/api/ap/runs"} {
		_, body = o.as(admin, adminScope, http.MethodGet, p, "")
		require.Contains(t, body, map[string]string{"/api/ap/chats": chatID, "/api/ap/documents": docID, "/api/ap/runs": runID}[p], p)
	}
	status, body = o.as(admin, adminScope, http.MethodGet, "/api/ap/document/raw?documentId="+docID, "")
	require.Equal(t, 200, status, body)
	status, body = o.as(admin, adminScope, http.MethodPost, "/api/ap/run/cancel", `{"runId":"`+runID+`"}`)
	require.Equal(t, 200, status, body)
}
