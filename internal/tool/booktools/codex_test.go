package booktools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/codex"
	"github.com/aitexteditor/aite/internal/cursoragent"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

func TestCodexTools(t *testing.T) {
	e := env(t)
	r := Registry(e)
	res, v := call(t, r, ToolCodexLookup, `{}`)
	require.False(t, res.IsError)
	require.Equal(t, "none", v["source"])
	require.Empty(t, v["entries"])

	res, v = call(t, r, ToolCodexBuild, `{}`)
	require.False(t, res.IsError, res.Text)
	require.EqualValues(t, 10, v["entries"])
	res, v = call(t, r, ToolCodexBuild, `{"withModel": true}`)
	require.False(t, res.IsError)
	require.Contains(t, v["model"], "no model is configured", "says so instead of pretending")

	res, v = call(t, r, ToolCodexLookup, `{"kind": "place"}`)
	require.False(t, res.IsError)
	require.Len(t, v["entries"], 3) // Верхние Ключи, Тверь, Нижней (улицы)
	res, v = call(t, r, ToolCodexLookup, `{"entry": "аркадий львович"}`)
	require.False(t, res.IsError)
	require.Equal(t, "Звёздочкин", v["name"])
	require.EqualValues(t, 27, v["items"])
	res, _ = call(t, r, ToolCodexLookup, `{"entry": "Раскольников"}`)
	require.True(t, res.IsError)
	require.Equal(t, "not_found", res.Code)
	require.Contains(t, res.Text, "no such entry")

	// Facts as of a point, in the lookup and in what editor-read brings.
	c, _, err := e.Session.Codex(e.Book)
	require.NoError(t, err)
	zv, err := c.Find("Звёздочкин")
	require.NoError(t, err)
	zv.Facts = []codex.Fact{{Text: "arrives", Evidence: []string{"9"}}, {Text: "leaves", Evidence: []string{"106"}}}
	zv.Notes = "private"
	_, err = e.Session.SetCodex(e.Book, c)
	require.NoError(t, err)
	res, v = call(t, r, ToolCodexLookup, `{"entry": "Звёздочкин", "at": "20"}`)
	require.False(t, res.IsError)
	require.Len(t, v["facts"], 1)
	require.NotContains(t, res.Text, "private", "notes never reach a model")
	res, v = call(t, r, "editor-read", `{"pointer": "9"}`)
	require.False(t, res.IsError)
	cx, _ := json.Marshal(v["codex"])
	require.Contains(t, string(cx), `"facts":["arrives (9:1.1.p6)"]`)
	require.NotContains(t, string(cx), "leaves", "no spoilers")
	res, v = call(t, r, "editor-read", `{"pointer": "75"}`)
	require.False(t, res.IsError)
	require.Nil(t, v["codex"], "an item naming nobody (a thematic break) brings no codex")

	res, v = call(t, r, "cursor-create_keyword_cursor", `{"entry": "Ф. К. Штейн"}`)
	require.False(t, res.IsError, res.Text)
	require.EqualValues(t, 4, v["items"])
	res, v = call(t, r, "cursor-read_cursor_batch", `{"cursorName": "`+v["cursorName"].(string)+`"}`)
	require.False(t, res.IsError)
	require.Len(t, v["items"], 4)
	for _, bad := range []string{`{}`, `{"entry": "Штейн", "keywords": ["x"]}`, `{"entry": "Раскольников"}`} {
		res, _ = call(t, r, "cursor-create_keyword_cursor", bad)
		require.True(t, res.IsError, bad)
	}
}

func TestCursorAgentWalksAnEntry(t *testing.T) {
	e := env(t)
	c, _, err := e.Session.BuildCodex(e.Book)
	require.NoError(t, err)
	_, err = e.Session.SetCodex(e.Book, c)
	require.NoError(t, err)
	var walked []string
	p := llmtest.ScriptedFunc(func(req *llm.Request) llmtest.Reply {
		var batch struct {
			Items []struct {
				Pointer string `json:"pointer"`
			} `json:"items"`
		}
		for _, m := range req.Messages {
			if strings.Contains(m.Content, `"type":"batch"`) {
				_ = json.Unmarshal([]byte(m.Content), &batch)
			}
		}
		ev := []map[string]string{}
		for _, it := range batch.Items {
			walked = append(walked, it.Pointer)
			ev = append(ev, map[string]string{"pointer": it.Pointer, "excerpt": "…", "reason": "names him"})
		}
		b, _ := json.Marshal(map[string]any{"action": "continue", "batchFound": len(ev) > 0, "newEvidence": ev, "progress": "",
			"needMoreContext": false, "contextPointers": []string{}})
		return llmtest.Calls(llmtest.Call("cursor_decision", string(b)))
	})
	e.Agent = &cursoragent.Agent{Provider: p, Model: "fake", Session: e.Session}
	r := Registry(e)
	res, v := call(t, r, ToolRunCursorAgent, `{"entry": "Штейн", "taskDescription": "the master", "mode": "Last"}`)
	require.False(t, res.IsError, res.Text)
	require.Equal(t, "89:1.4.p10", v["pointer"])
	require.Equal(t, []string{"89:1.4.p10", "82:1.4.p3", "79:1.4", "52:1.2.p17"}, walked, "only the items naming him, backward, in one batch")
	require.Len(t, p.Requests(), 1)
	for _, bad := range []string{`{"taskDescription": "x"}`, `{"cursorName": "CUR_WHOLE_BOOK_FORWARD", "entry": "Штейн", "taskDescription": "x"}`} {
		res, _ = call(t, r, ToolRunCursorAgent, bad)
		require.True(t, res.IsError, bad)
		require.Contains(t, res.Text, "either cursorName or entry")
	}
}
