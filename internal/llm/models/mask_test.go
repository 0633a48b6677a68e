package models

import (
	"bytes"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMask(t *testing.T) {
	for in, want := range map[string]string{
		"":                             "",
		"short":                        "***",
		"fifteen-chars-x":              "***",
		"sixteen-chars-xy":             "six***xy",
		"sk-proj-abcdefghijklmnop1234": "sk-***34",
	} {
		require.Equal(t, want, Mask(in), in)
	}
}

func TestRedaction(t *testing.T) {
	h := map[string]string{"Authorization": "Bearer " + testKey, "X-Api-Key": testKey, "X-Team": "books"}
	red := RedactHeaders(h)
	require.Equal(t, "books", red["X-Team"])
	require.NotContains(t, red["Authorization"], testKey)
	require.NotContains(t, red["X-Api-Key"], testKey)
	require.Equal(t, testKey, h["X-Api-Key"], "the input is not modified")
	require.Nil(t, RedactHeaders(nil))

	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: ReplaceAttr}))
	log.Info("x", "apiKey", testKey, "authorization", "Bearer "+testKey, "token", 12345, "password", "pw",
		"client_secret", testKey, "headers", h, slog.Group("upstream", "api_key", testKey), "model", "gpt-4o-mini")
	out := buf.String()
	require.NotContains(t, out, testKey)
	require.NotContains(t, out, "12345")
	require.NotContains(t, out, "pw ")
	require.Contains(t, out, "model=gpt-4o-mini")
	require.Contains(t, out, "X-Team:books")
	require.Contains(t, out, "apiKey="+Mask(testKey))
}
