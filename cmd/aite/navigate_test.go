package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

func TestNavigate(t *testing.T) {
	truth := paragraphsMentioning(t, filepath.Join("..", "..", "examples", "zvezdochkin.md"), "Варя")
	w := newWorld(t, func(llmtest.Request, int) llmtest.Response { return say("unused") }, truth)
	var out, errb bytes.Buffer
	code := execute([]string{"navigate", w.book, "a paragraph about Varya", "--keywords", "Варя", "--mode", "nth", "--n", "2"},
		strings.NewReader(""), &out, &errb)
	require.Equal(t, 0, code, errb.String())
	require.Contains(t, out.String(), "5:1.1.p2")
	require.Contains(t, errb.String(), "batch 1 of ~")
	require.Contains(t, errb.String(), "model calls")

	out.Reset()
	code = execute([]string{"--json", "navigate", w.book, "a paragraph about Varya", "--keywords", "Варя", "--mode", "last"},
		strings.NewReader(""), &out, &errb)
	require.Equal(t, 0, code)
	var res struct {
		Success bool   `json:"success"`
		Pointer string `json:"pointer"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &res))
	require.True(t, res.Success)
	require.NotEmpty(t, res.Pointer)
}

func TestAgentCommandsWithoutAModel(t *testing.T) {
	t.Setenv("AITE_MODEL", "")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, args := range [][]string{{"ask", "x.md", "hi"}, {"chat", "x.md"}, {"navigate", "x.md", "task"}} {
		var out, errb bytes.Buffer
		code := execute(args, strings.NewReader(""), &out, &errb)
		require.Equal(t, 1, code, args)
		require.Contains(t, errb.String(), "no model is configured")
		require.Contains(t, errb.String(), "AITE_MODEL")
	}
}

func TestAskRejectsBadMaxSteps(t *testing.T) {
	var out, errb bytes.Buffer
	code := execute([]string{"ask", "x.md", "hi", "--max-steps", "0"}, strings.NewReader(""), &out, &errb)
	require.Equal(t, 1, code)
	require.Contains(t, errb.String(), "--max-steps must be between 1 and 100")
}
