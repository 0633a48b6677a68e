package server

import (
	"context"
	"crypto"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/server/auth"
	"github.com/aitexteditor/aite/internal/store"
	"github.com/aitexteditor/aite/internal/store/memory"
)

const dtChatID = "0b4c3f4e-8a39-4c57-9a0e-6e0f5f2a9d11"

// dtNow is the fixed time of the data tests.
var dtNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// dtFiles are the files below the data directory.
var dtFiles = map[string]string{
	"img/a.png":       "PNG-BYTES",
	"doc.pdf":         "%PDF-1.7",
	"t.csv":           "a,b\n1,2\n",
	"data/x.png":      "X",
	"secret.png":      "SECRET",
	"img/linked.png":  "", // replaced by a symbolic link below
	"folder/keep.txt": "k",
}

// dtSetup writes the data directory and a chat whose query references
// img/a.png (as a /data URL), whose answer links doc.pdf, t.csv, data/x.png,
// a missing file and the link, and whose user message names secret.png.
func dtSetup(t *testing.T) (string, store.Store) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range dtFiles {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		if strings.HasSuffix(name, "linked.png") {
			require.NoError(t, os.Symlink(filepath.Join(dir, "secret.png"), p))
			continue
		}
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	st := memory.New()
	ctx := context.Background()
	require.NoError(t, st.CreateChat(ctx, store.Chat{ID: dtChatID, Name: "c", CreatedAt: dtNow, UpdatedAt: dtNow}))
	query := `{"message": "look at secret.png", "references": [{"id": "r1", "url": "/api/ap/data?file=img%2Fa.png&t=x"}]}`
	require.NoError(t, st.CreateRun(ctx, store.Run{ID: "run1", ChatID: dtChatID, Query: json.RawMessage(query), StartedAt: dtNow}))
	require.NoError(t, st.AppendMessages(ctx, "run1",
		store.Message{Body: json.RawMessage(`{"role": "user", "content": [{"type": "text", "text": "![s](secret.png)"}]}`)},
		store.Message{Body: json.RawMessage(`{"role": "assistant", "content": [{"type": "text",
			"text": "See ![chart](doc.pdf?v=2) and [table](</t.csv#top>), [x](/data/x.png), [gone](missing.png), ![l](img/linked.png), [web](https://e.com/folder/keep.txt)"}]}`)}))
	return dir, st
}

// dtIssuer issues tokens with the current secret "now-secret"; "old-secret"
// is still accepted.
func dtIssuer(clock func() time.Time) *auth.Issuer {
	return &auth.Issuer{Secret: "now-secret", PreviousSecrets: []string{"old-secret"}, Clock: clock}
}

func dtToken(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	tok, err := (&auth.Issuer{Secret: secret, Clock: func() time.Time { return at }}).Issue(dtChatID, "user-1")
	require.NoError(t, err)
	return tok
}

// dtRaw is a raw (non-envelope) response.
type dtRaw struct {
	status int
	header http.Header
	body   string
}

func dtFetch(t *testing.T, h http.Handler, target string, header http.Header) dtRaw {
	t.Helper()
	req := localRequest(http.MethodGet, target, nil)
	for k, v := range header {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	body, err := io.ReadAll(rec.Result().Body)
	require.NoError(t, err)
	return dtRaw{status: rec.Code, header: rec.Header(), body: string(body)}
}

func dtDataServer(t *testing.T, validation bool) (http.Handler, string) {
	dir, st := dtSetup(t)
	clock := func() time.Time { return dtNow }
	h := New(Options{Store: st, DataDir: dir, ChatTokens: dtIssuer(clock), DataTokenValidation: validation, Clock: clock}).Handler()
	return h, dir
}

func TestDataServesFiles(t *testing.T) {
	h, _ := dtDataServer(t, true)
	// Row 79: images inline, other types as attachments, download=true forces one.
	for _, tc := range []struct{ file, ctype, disposition, body string }{
		{"img/a.png", "image/png", "inline; filename*=UTF-8''a.png", "PNG-BYTES"},
		{"/img/a.png&download=false", "image/png", "inline; filename*=UTF-8''a.png", "PNG-BYTES"},
		{"img/a.png&download=true", "image/png", "attachment; filename*=UTF-8''a.png", "PNG-BYTES"},
		{"doc.pdf", "application/pdf", "attachment; filename*=UTF-8''doc.pdf", "%PDF-1.7"},
		{"t.csv", "text/csv; charset=utf-8", "attachment; filename*=UTF-8''t.csv", "a,b\n1,2\n"},
	} {
		r := dtFetch(t, h, "/api/ap/data?file="+tc.file, nil)
		require.Equal(t, http.StatusOK, r.status, tc.file)
		require.Equal(t, tc.body, r.body, tc.file)
		require.Equal(t, tc.ctype, r.header.Get("Content-Type"), tc.file)
		require.Equal(t, tc.disposition, r.header.Get("Content-Disposition"), tc.file)
		require.Equal(t, "no-store", r.header.Get("Cache-Control"), tc.file)
	}
}

func TestDataRejectsBadPaths(t *testing.T) {
	h, _ := dtDataServer(t, true)
	// Row 78.
	for _, file := range []string{"../x", "..", "%2e%2e%2fx", "a%5Cb", "", "%20", "img/../a.png", "/"} {
		env := mtGet(t, h, "/api/ap/data?file="+file)
		mtFail(t, env, http.StatusBadRequest, "Invalid file parameter", `{}`)
	}
	mtFail(t, mtGet(t, h, "/api/ap/data"), http.StatusBadRequest, "Invalid file parameter", `{}`)
	for _, path := range []string{"/api/ap/data/x.png", "/data/x.png"} {
		mtFail(t, mtGet(t, h, path), http.StatusNotFound, "Not found", `{}`)
	}
	// Step 4: missing files, directories and symbolic links do not exist.
	for _, file := range []string{"missing.png", "img", "img/linked.png"} {
		mtFail(t, mtGet(t, h, "/api/ap/data?file="+file), http.StatusNotFound, "File not found", `{}`)
	}
	// Without a data directory no file exists.
	noDir := New(Options{Store: memory.New()}).Handler()
	mtFail(t, mtGet(t, noDir, "/api/ap/data?file=doc.pdf"), http.StatusNotFound, "File not found", `{}`)
}

func TestDataChatImageToken(t *testing.T) {
	h, _ := dtDataServer(t, true)
	valid := dtToken(t, "now-secret", dtNow)
	// Rows 75 and 80: a valid token, also one signed with a previous secret.
	for _, tok := range []string{valid, dtToken(t, "old-secret", dtNow)} {
		for _, file := range []string{"img/a.png", "doc.pdf", "t.csv", "data/x.png"} {
			r := dtFetch(t, h, "/api/ap/data?file="+file+"&t="+tok, nil)
			require.Equal(t, http.StatusOK, r.status, file+": "+r.body)
		}
	}
	// Row 76: invalid and expired tokens.
	forbidden := func(target, msg, code string) {
		t.Helper()
		mtFail(t, mtGet(t, h, target), http.StatusForbidden, msg, `{"errorCode": "`+code+`"}`)
	}
	forbidden("/api/ap/data?file=img/a.png&t=garbage", "Chat image token invalid", "CHAT_IMAGE_TOKEN_INVALID")
	forbidden("/api/ap/data?file=img/a.png&t="+valid[:len(valid)-2]+"xx", "Chat image token invalid", "CHAT_IMAGE_TOKEN_INVALID")
	forbidden("/api/ap/data?file=img/a.png&t="+dtToken(t, "other-secret", dtNow), "Chat image token invalid", "CHAT_IMAGE_TOKEN_INVALID")
	expired := dtToken(t, "now-secret", dtNow.Add(-48*time.Hour))
	forbidden("/api/ap/data?file=img/a.png&t="+expired, "Chat image token expired", "CHAT_IMAGE_TOKEN_EXPIRED")
	// Step 3 comes before step 4: a bad token on a missing file is 403.
	forbidden("/api/ap/data?file=nothing.png&t=garbage", "Chat image token invalid", "CHAT_IMAGE_TOKEN_INVALID")
	// Row 77: files the chat does not reference (the user message, a web
	// link and a link target do not count), and a referenced missing file.
	for _, file := range []string{"secret.png", "folder/keep.txt"} {
		forbidden("/api/ap/data?file="+file+"&t="+valid, "Chat image token does not cover this file", "CHAT_IMAGE_TOKEN_INVALID")
	}
	mtFail(t, mtGet(t, h, "/api/ap/data?file=missing.png&t="+valid), http.StatusNotFound, "File not found", `{}`)
	mtFail(t, mtGet(t, h, "/api/ap/data?file=img/linked.png&t="+valid), http.StatusNotFound, "File not found", `{}`)
	// Without validation the token is not checked.
	off, _ := dtDataServer(t, false)
	r := dtFetch(t, off, "/api/ap/data?file=secret.png&t=garbage", nil)
	require.Equal(t, http.StatusOK, r.status)
	require.Equal(t, "SECRET", r.body)
}

func TestDataTokenWithoutIssuer(t *testing.T) {
	dir, st := dtSetup(t)
	h := New(Options{Store: st, DataDir: dir, DataTokenValidation: true}).Handler()
	mtFail(t, mtGet(t, h, "/api/ap/data?file=img/a.png&t="+dtToken(t, "now-secret", time.Now())), http.StatusForbidden,
		"Chat image token invalid", `{"errorCode": "CHAT_IMAGE_TOKEN_INVALID"}`)
}

func TestDataTokenClaims(t *testing.T) {
	// Row 80: the claims are exactly e, c, u and the HMAC key is SHA-256(secret).
	tok := dtToken(t, "now-secret", dtNow)
	parts := strings.Split(tok, ".")
	require.Len(t, parts, 3)
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	require.NoError(t, err)
	var claims map[string]any
	require.NoError(t, json.Unmarshal(payload, &claims))
	require.Equal(t, map[string]any{"e": float64(dtNow.Add(24 * time.Hour).Unix()), "c": dtChatID, "u": "user-1"}, claims)
	key := sha256.Sum256([]byte("now-secret"))
	mac := hmac.New(sha256.New, key[:])
	mac.Write([]byte(parts[0] + "." + parts[1]))
	require.Equal(t, base64.RawURLEncoding.EncodeToString(mac.Sum(nil)), parts[2])
}

func TestDataChatFilesOption(t *testing.T) {
	dir, st := dtSetup(t)
	clock := func() time.Time { return dtNow }
	files := func(_ context.Context, chatID string) (map[string]bool, error) {
		require.Equal(t, dtChatID, chatID)
		return map[string]bool{"secret.png": true}, nil
	}
	h := New(Options{Store: st, DataDir: dir, ChatTokens: dtIssuer(clock), DataTokenValidation: true, Clock: clock,
		ChatFiles: files}).Handler()
	tok := dtToken(t, "now-secret", dtNow)
	require.Equal(t, http.StatusOK, dtFetch(t, h, "/api/ap/data?file=secret.png&t="+tok, nil).status)
	require.Equal(t, http.StatusForbidden, dtFetch(t, h, "/api/ap/data?file=img/a.png&t="+tok, nil).status)

	broken := New(Options{Store: st, DataDir: dir, ChatTokens: dtIssuer(clock), DataTokenValidation: true, Clock: clock,
		ChatFiles: func(context.Context, string) (map[string]bool, error) {
			return nil, errors.New("database is locked: SELECT * FROM runs")
		}}).Handler()
	env := mtGet(t, broken, "/api/ap/data?file=img/a.png&t="+tok)
	mtFail(t, env, http.StatusInternalServerError, "Internal server error", `{}`)
	require.NotContains(t, env.Body, "SELECT")
}

// dtRSAKey is generated once: RSA generation is slow under -race.
var dtRSAKey = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
})

// dtBearer signs an RS256 API token for subject "user-1".
func dtBearer(t *testing.T) string {
	t.Helper()
	return dtBearerFor(t, "user-1")
}

// dtBearerFor signs an RS256 API token for a subject.
func dtBearerFor(t *testing.T, subject string) string {
	t.Helper()
	return signedBearer(t, map[string]any{"sub": subject, "exp": dtNow.Add(time.Hour).Unix()})
}

// signedBearer signs claims as an RS256 JWT with dtRSAKey.
func signedBearer(t *testing.T, claims map[string]any) string {
	t.Helper()
	enc := func(v any) string {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	input := enc(map[string]string{"alg": "RS256", "typ": "JWT"}) + "." + enc(claims)
	digest := sha256.Sum256([]byte(input))
	sig, err := rsa.SignPKCS1v15(rand.Reader, dtRSAKey(), crypto.SHA256, digest[:])
	require.NoError(t, err)
	return input + "." + base64.RawURLEncoding.EncodeToString(sig)
}

func TestDataTokenWithAuth(t *testing.T) {
	der, err := x509.MarshalPKIXPublicKey(&dtRSAKey().PublicKey)
	require.NoError(t, err)
	clock := func() time.Time { return dtNow }
	verifier, err := auth.NewVerifier(auth.Config{Enabled: true,
		PublicKeyPEM: string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))}, nil, clock)
	require.NoError(t, err)
	dir, st := dtSetup(t)
	server := func(validation bool) http.Handler {
		return New(Options{Store: st, DataDir: dir, Auth: verifier, ChatTokens: dtIssuer(clock),
			DataTokenValidation: validation, Clock: clock}).Handler()
	}
	tok := dtToken(t, "now-secret", dtNow)
	bearer := http.Header{"Authorization": {"Bearer " + dtBearer(t)}}
	// Row 75: with validation on, a valid t replaces the Bearer token.
	on := server(true)
	r := dtFetch(t, on, "/api/ap/data?file=img/a.png&t="+tok, nil)
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, "PNG-BYTES", r.body)
	mtFail(t, mtGet(t, on, "/api/ap/data?file=img/a.png"), http.StatusUnauthorized, "unauthorized", `{}`)
	// With validation off, t neither bypasses the Bearer check nor is checked.
	off := server(false)
	mtFail(t, mtGet(t, off, "/api/ap/data?file=img/a.png&t="+tok), http.StatusUnauthorized, "unauthorized", `{}`)
	r = dtFetch(t, off, "/api/ap/data?file=secret.png&t=garbage", bearer)
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, "SECRET", r.body)
}
