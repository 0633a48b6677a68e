package bookprotocol

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/agent/protocol"
	"github.com/aitexteditor/aite/internal/codex"
)

// paragraphs returns the pointers and markdown of the book's first n
// paragraphs.
func paragraphs(t *testing.T, acts map[string]protocol.Activity, n int) (ptrs, mds []string) {
	t.Helper()
	c := mustRun(t, acts, CreateFilteredCursor, `{"filterDescription":"paragraphs","kinds":["Paragraph"],"maxElements":`+itoa(n)+`}`, nil)
	b := mustRun(t, acts, ReadCursorBatch, `{"cursorName":"`+c["cursorName"].(string)+`"}`, nil)
	for _, it := range items(b) {
		ptrs = append(ptrs, it["pointer"].(string))
		mds = append(mds, it["markdown"].(string))
	}
	require.Len(t, ptrs, n)
	return ptrs, mds
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestCreateTargetsMakesOneInstancePerTarget(t *testing.T) {
	env := sampleEnv(t)
	acts := Activities(env)
	ptrs, mds := paragraphs(t, acts, 3)
	label := func(p string) string { return p[strings.Index(p, ":")+1:] }
	res, err := run(t, acts, CreateTargets, `{"label":"professor lines","pointers":["`+label(ptrs[0])+`","`+ptrs[1]+`","`+ptrs[2]+`"]}`, nil)
	require.NoError(t, err)
	require.Nil(t, res.Value)
	require.Len(t, res.Messages, 4)
	for i, m := range res.Messages[:3] {
		require.Equal(t, agentctx.TypeState, m.Type)
		require.Equal(t, "t"+itoa(i+1), m.Instance)
		require.False(t, m.IsWrite(), "a target is a plain state message")
		require.Equal(t, map[string]any{"pointer": ptrs[i], "markdown": mds[i]}, plain(t, m.Value))
	}
	g := res.Messages[3]
	require.Equal(t, "", g.Instance)
	require.True(t, g.IsWrite())
	require.Equal(t, "targets", g.Path)
	require.Equal(t, map[string]any{"label": "professor lines", "count": float64(3), "instances": []any{"t1", "t2", "t3"}}, plain(t, g.Value))
	for _, m := range res.Messages {
		_, err := agentctx.MessageFromObject(m.Object())
		require.NoError(t, err, "every message is a valid context message")
	}

	// No leak (IN5): an instance's scoped view holds its own paragraph only.
	ctx := agentctx.Context(res.Messages)
	require.Equal(t, []string{"t1", "t2", "t3"}, ctx.Instances())
	for i, id := range []string{"t1", "t2", "t3"} {
		view := protocol.Scope(ctx, id, []string{"†state.pointer", "†state.markdown"})
		require.Len(t, view, 1)
		got := plain(t, view[0].Value)
		require.Equal(t, map[string]any{"pointer": ptrs[i], "markdown": mds[i]}, got)
		for j, md := range mds {
			if j != i {
				require.NotContains(t, string(mustEncode(t, view[0].Value)), md[:20])
			}
		}
	}
	sets, err := env.Session.TargetSets(env.Book)
	require.NoError(t, err)
	require.Len(t, sets, 1, "the set is stored in the session too")

	// A second set goes on numbering after the first (read from †state.targets).
	res2, err := run(t, acts, CreateTargets, `{"label":"again","pointers":["`+ptrs[2]+`","`+ptrs[2]+`"]}`, scopedOf(res.Messages, "", "†state.targets"))
	require.NoError(t, err)
	require.Len(t, res2.Messages, 2, "a repeated item is kept once")
	require.Equal(t, "t4", res2.Messages[0].Instance)
	summary := plain(t, res2.Messages[1].Value)
	require.Equal(t, []any{"t4"}, summary["instances"])
	require.Len(t, summary["warnings"], 1)
	require.Contains(t, summary["warnings"].([]any)[0], "same item")
}

func mustEncode(t *testing.T, v any) []byte {
	t.Helper()
	b, err := agentctx.Encode(v)
	require.NoError(t, err)
	return b
}

func TestCreateTargetsWithABadPointerCreatesNothing(t *testing.T) {
	env := sampleEnv(t)
	acts := Activities(env)
	ptrs, _ := paragraphs(t, acts, 2)
	res, err := run(t, acts, CreateTargets, `{"label":"x","pointers":["`+ptrs[0]+`","9.9.p99","`+ptrs[1]+`"]}`, nil)
	msg := modelError(t, err, "not_found")
	require.Contains(t, msg, `"9.9.p99"`)
	require.Contains(t, msg, "created nothing")
	require.Empty(t, res.Messages)
	sets, err := env.Session.TargetSets(env.Book)
	require.NoError(t, err)
	require.Empty(t, sets)
	_, err = run(t, acts, CreateTargets, `{"label":"x","pointers":[]}`, nil)
	modelError(t, err, "invalid_arguments")
	_, err = run(t, acts, CreateTargets, `{"label":"","pointers":["`+ptrs[0]+`"]}`, nil)
	modelError(t, err, "invalid_arguments")
}

func TestTargetsCarryTheCodexKnownAtThem(t *testing.T) {
	env := sampleEnv(t)
	c := &codex.Codex{}
	_, err := c.Add(codex.Entry{Name: "Звёздочкин", Aliases: []string{"Аркадий Львович"}, Description: "профессор", Notes: "private",
		Facts: []codex.Fact{{Text: "приезжает поездом", Evidence: []string{"9"}}, {Text: "уезжает в понедельник", Evidence: []string{"106"}}}})
	require.NoError(t, err)
	_, err = c.Add(codex.Entry{Kind: codex.Place, Name: "Верхние Ключи", Description: "городок"})
	require.NoError(t, err)
	_, err = env.Session.SetCodex(env.Book, c)
	require.NoError(t, err)
	acts := Activities(env)
	res, err := run(t, acts, CreateTargets, `{"label":"l","pointers":["9","2"]}`, nil)
	require.NoError(t, err)
	ctx := agentctx.Context(res.Messages)
	view := protocol.Scope(ctx, "t1", []string{KindCharacters, KindGlossary})
	require.Len(t, view, 1, "t1 names the professor only")
	got := string(mustEncode(t, view[0].Value))
	require.Contains(t, got, "приезжает поездом (9:1.1.p6)")
	require.NotContains(t, got, "уезжает", "nothing later than the target")
	require.NotContains(t, got, "private")
	view = protocol.Scope(ctx, "t2", []string{KindCharacters, KindGlossary})
	require.Len(t, view, 1)
	require.Equal(t, KindGlossary, view[0].Kind)
	require.Contains(t, string(mustEncode(t, view[0].Value)), "place: городок")
	for _, m := range res.Messages {
		_, err := agentctx.MessageFromObject(m.Object())
		require.NoError(t, err)
	}
}
