package web_test

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/aitexteditor/aite/examples"
)

// rs256 signs claims with k as a compact RS256 JWT.
func rs256(t testing.TB, k *rsa.PrivateKey, claims map[string]any) string {
	t.Helper()
	enc := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return base64.RawURLEncoding.EncodeToString(b)
	}
	input := enc(map[string]string{"alg": "RS256", "typ": "JWT"}) + "." + enc(claims)
	digest := sha256.Sum256([]byte(input))
	sig, err := rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, digest[:])
	if err != nil {
		t.Fatal(err)
	}
	return input + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// mapPNG is a small picture the agent shows from the data directory.
func mapPNG(t testing.TB) string {
	img := image.NewRGBA(image.Rect(0, 0, 40, 24))
	for x := range 40 {
		for y := range 24 {
			img.Set(x, y, color.RGBA{R: uint8(60 + x*4), G: 120, B: uint8(200 - y*5), A: 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// With auth on, the app asks for the API token, works with it, and shows
// the chat's pictures from /data with the chat image token.
func TestBrowserSignInAndChatImages(t *testing.T) {
	needBrowser(t)
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	a := startApp(t, appOptions{
		flags: map[string]string{"auth.enabled": "true", "auth.publicKeyPem": string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})),
			"chatImageToken.secret": "a secret for the tests"},
		files: map[string]string{"data/map.png": mapPNG(t)},
	})
	token := rs256(t, key, map[string]any{"sub": "writer@example.org", "exp": time.Now().Add(time.Hour).Unix()})
	resp, err := client.Get(a.base + "/api/ap/documents")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("the API without a token: %d", resp.StatusCode)
	}

	// With auth on, documents belong to their uploader: the sample book,
	// registered at the first start without a subject, is for admins only,
	// so the writer brings their own copy of it (through the API, as a
	// script would; the app's upload is tested in the library test).
	body, err := json.Marshal(map[string]string{"name": "zvezdochkin", "markdown": string(examples.Zvezdochkin)})
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, a.base+"/api/ap/documents", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	if resp, err = client.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("uploading the writer's book: %d", resp.StatusCode)
	}

	tb := newTab(t)
	tb.allow("status of 401") // the first request, before signing in
	tb.open(a.base, "/")
	tb.waitJS("the sign-in form", `!!document.querySelector('.signin-card .token')`, 20*time.Second)
	tb.typeInto(".signin-card .token", "not a token")
	tb.click(`.signin-card button[type="submit"]`)
	tb.waitJS("the refusal", `!!document.querySelector('.signin-card .error-text')`, 10*time.Second)
	tb.shot("signin")
	tb.typeInto(".signin-card .token", token)
	tb.click(`.signin-card button[type="submit"]`)
	tb.waitJS("the library", `document.querySelector('.lib-table .doc-link')?.textContent === 'zvezdochkin'`, 20*time.Second)
	if evalJS[string](tb, `sessionStorage.getItem('aite.token')`) != token {
		t.Error("the token is not kept for the tab")
	}

	// A picture in an answer is loaded with the chat image token.
	tb.click(".lib-table .doc-link")
	tb.waitJS("the reading pane", itemVisible(0), 20*time.Second)
	tb.ask(imageCommand)
	imgLoaded := `(() => { const img = document.querySelector('.content img'); return !!img && img.complete && img.naturalWidth === 40 && new URL(img.src).searchParams.get('t')?.length > 20 })()`
	tb.waitJS("the picture", imgLoaded, 20*time.Second)
	src := evalJS[string](tb, `document.querySelector('.content img').getAttribute('src')`)
	if !strings.HasPrefix(src, "/api/ap/data?file=map.png&t=") {
		t.Errorf("picture src %q", src)
	}
	// The token is what lets the picture in: without it, no picture.
	resp, err = client.Get(a.base + "/api/ap/data?file=map.png")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("/data without a token: %d", resp.StatusCode)
	}
	tb.shot("chat-image")

	// After a reload the replayed chat shows the picture too (the token of
	// the chat's history).
	tb.run("reload", chromedp.Reload())
	tb.waitJS("the replayed picture", imgLoaded, 20*time.Second)
}
