package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

func TestChatKeepsHistoryUndoesSavesAndQuits(t *testing.T) {
	var sawHistory bool
	drive := func(r llmtest.Request, turn int) llmtest.Response {
		ms := messagesOf(r)
		last := ms[len(ms)-1]
		switch {
		case last.Role == "user" && strings.Contains(text(last), "shorten"):
			return callTool("editor-replace_text", map[string]any{"pointer": "2:1.p1", "markdown": "Короткое вступление."})
		case last.Role == "user" && strings.Contains(text(last), "again"):
			for _, m := range ms {
				if m.Role == "user" && strings.Contains(text(m), "shorten") {
					sawHistory = true
				}
			}
			return callTool("editor-replace_text", map[string]any{"pointer": "2:1.p1", "markdown": "Совсем короткое."})
		}
		return say("Done: 2:1.p1.")
	}
	w := newWorld(t, drive, nil)
	before, _ := os.ReadFile(w.book)
	in := strings.Join([]string{"shorten the intro", "/diff", "/undo", "/diff", "and again, shorter", "/save", "/quit"}, "\n") + "\n"
	var out, errb bytes.Buffer
	code := execute([]string{"chat", w.book}, strings.NewReader(in), &out, &errb)
	require.Equal(t, 0, code, errb.String())
	require.True(t, sawHistory, "the second turn sees the first")
	o := out.String()
	require.Contains(t, o, "+Короткое вступление.", "/diff shows the unsaved edit")
	require.Contains(t, o, "(no unsaved edits)", "/undo took it back")
	require.Contains(t, errb.String(), "↶ replace")
	require.Contains(t, errb.String(), "wrote "+w.book)
	after, _ := os.ReadFile(w.book)
	require.Equal(t, strings.Replace(string(before), string(firstParagraph(t, before)), "Совсем короткое.", 1), string(after))

	// /quit with unsaved edits asks once; end of input drops them with a note.
	w2 := newWorld(t, drive, nil)
	in = "shorten the intro\n/quit\n"
	out.Reset()
	errb.Reset()
	require.Equal(t, 0, execute([]string{"chat", w2.book}, strings.NewReader(in), &out, &errb))
	require.Contains(t, errb.String(), "are not written")
	unchanged, _ := os.ReadFile(w2.book)
	require.Equal(t, before, unchanged)
}

// firstParagraph returns the Markdown of the paragraph under the title.
func firstParagraph(t *testing.T, book []byte) []byte {
	parts := bytes.SplitN(book, []byte("\n\n"), 3)
	require.Len(t, parts, 3)
	return parts[1]
}
