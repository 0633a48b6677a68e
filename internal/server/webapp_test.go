package server

import (
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/server/auth"
	"github.com/aitexteditor/aite/internal/store/memory"
)

// waStub is a web app serving / and /assets/….
type waStub struct{}

func (waStub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = w.Write([]byte("app " + r.URL.Path))
}
func (waStub) Serves(p string) bool { return p == "/" || len(p) > 8 && p[:8] == "/assets/" }

func TestWebAppBesideTheAPI(t *testing.T) {
	der, err := x509.MarshalPKIXPublicKey(&dtRSAKey().PublicKey)
	require.NoError(t, err)
	verifier, err := auth.NewVerifier(auth.Config{Enabled: true,
		PublicKeyPEM: string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))}, nil, func() time.Time { return dtNow })
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		auth *auth.Verifier
	}{{"auth off", nil}, {"auth on", verifier}} {
		t.Run(tc.name, func(t *testing.T) {
			h := New(Options{Store: memory.New(), Auth: tc.auth, Web: waStub{}}).Handler()
			for path, want := range map[string]string{"/": "app /", "/assets/app.css": "app /assets/app.css"} {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, localRequest(http.MethodGet, path, nil))
				require.Equal(t, http.StatusOK, rec.Code, path)
				require.Equal(t, want, rec.Body.String(), "the app's pages need no token")
			}
			// Everything else is the API, with its envelopes and its auth.
			mtFail(t, mtGet(t, h, "/nope"), map[bool]int{true: 401, false: 404}[tc.auth != nil],
				map[bool]string{true: "unauthorized", false: "Not found"}[tc.auth != nil], `{}`)
			req := localRequest(http.MethodPost, "/", nil)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			require.NotEqual(t, http.StatusOK, rec.Code, "only GET and HEAD reach the app")
		})
	}
	// Without a web app, / is the 404 envelope as before.
	mtFail(t, mtGet(t, New(Options{Store: memory.New()}).Handler(), "/"), http.StatusNotFound, "Not found", `{}`)
}
