package evaltest

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/eval"
	"github.com/aitexteditor/aite/internal/llm"
)

func TestChapterLabel(t *testing.T) {
	require.Equal(t, "1.2.3", chapterLabel("77:1.2.3.p12", 3, 0))
	require.Equal(t, "1.2.4", chapterLabel("77:1.2.3.p12", 3, 1))
	require.Equal(t, "1.2", chapterLabel("80:1.2.4.1.p2", 2, 0))
	require.Equal(t, "1.p3", chapterLabel("5:1.p3", 2, 0), "not in a chapter: the label itself")
}

// batchRequest is a cursor-agent request for a goal over items.
func batchRequest(goal string, items map[string]string, forced bool) *llm.Request {
	task, _ := json.Marshal(map[string]any{"type": "task", "goal": goal})
	var list []map[string]string
	for _, p := range []string{"1:p1", "2:p2", "3:p3"} {
		if md, ok := items[p]; ok {
			list = append(list, map[string]string{"pointer": p, "markdown": md})
		}
	}
	batch, _ := json.Marshal(map[string]any{"type": "batch", "items": list})
	req := &llm.Request{Messages: []llm.Message{{Role: llm.RoleSystem, Content: "judge"},
		{Role: llm.RoleUser, Content: string(task)}, {Role: llm.RoleUser, Content: string(batch)}}}
	if forced {
		req.ToolChoice = llm.ToolChoice{Mode: llm.ToolChoiceTool, Name: "decide"}
	}
	return req
}

func evidenceOf(t *testing.T, r llm.Response) []string {
	t.Helper()
	text := r.Message.Content
	if len(r.Message.ToolCalls) > 0 {
		text = r.Message.ToolCalls[0].Arguments
	}
	var d struct {
		NewEvidence []struct {
			Pointer string `json:"pointer"`
		} `json:"newEvidence"`
	}
	require.NoError(t, json.Unmarshal([]byte(text), &d), text)
	var out []string
	for _, e := range d.NewEvidence {
		out = append(out, e.Pointer)
	}
	return out
}

func TestJudge(t *testing.T) {
	p := eval.Params{Name: "Варя", Other: "Ерофеич", Mode: "first"}
	goal := "a paragraph that mentions «Ерофеич» as well (any form of the name); every paragraph of this walk mentions «Варя»"
	plan := &eval.Plan{Tasks: []eval.Task{{ID: "navigate#1", Family: eval.Walk, Params: p, Walk: &eval.WalkSpec{Goal: goal}}}}
	items := map[string]string{"1:p1": "Варя ушла.", "2:p2": "Ерофеич позвал Варю.", "3:p3": "Варе сказал Ерофеичу."}
	collect := func(o *Oracle, forced bool) llm.Response {
		r, err := llm.Collect(o.Provider().Stream(t.Context(), batchRequest(goal, items, forced)))
		require.NoError(t, err)
		return r
	}
	require.Equal(t, []string{"2:p2", "3:p3"}, evidenceOf(t, collect(New(Perfect, plan), false)), "every form of both names")
	require.Equal(t, []string{"2:p2", "3:p3"}, evidenceOf(t, collect(New(Perfect, plan), true)), "as the forced tool call")
	require.Equal(t, []string{"1:p1"}, evidenceOf(t, collect(New(Wrong, plan), false)), "the items without the second name")
	broken := collect(New(Broken, plan), false)
	require.False(t, json.Valid([]byte(broken.Message.Content)))
}
