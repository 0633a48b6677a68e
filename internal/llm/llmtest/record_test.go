package llmtest_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

func TestCanonicalKey(t *testing.T) {
	a := ask("q")
	a.Tools = []llm.Tool{{Name: "f", Parameters: json.RawMessage(`{"type":"object", "properties":{"b":{},"a":{}}}`)}}
	b := ask("q")
	b.Tools = []llm.Tool{{Name: "f", Parameters: json.RawMessage(`{"properties":{"a":{},"b":{}},"type":"object"}`)}}
	ka, err := llmtest.Key(a)
	require.NoError(t, err)
	kb, err := llmtest.Key(b)
	require.NoError(t, err)
	require.Equal(t, ka, kb, "whitespace and key order do not change the key")
	require.Len(t, ka, 64)
	canon, err := llmtest.CanonicalJSON(a)
	require.NoError(t, err)
	require.Equal(t, `{"messages":[{"content":"q","role":"user"}],"model":"m","tools":[{"name":"f","parameters":{"properties":{"a":{},"b":{}},"type":"object"}}]}`, string(canon))
	kc, err := llmtest.Key(ask("other"))
	require.NoError(t, err)
	require.NotEqual(t, ka, kc)
}

func TestRecordThenReplay(t *testing.T) {
	dir := t.TempDir()
	boom := &llm.Error{Kind: llm.RateLimited, Status: 429, Message: "slow down"}
	live := llmtest.NewScripted(
		llmtest.Join(llmtest.Reasoning("hm"), llmtest.Chunks("he", "llo")).WithUsage(llm.Usage{InputTokens: 3, OutputTokens: 2}),
		llmtest.Calls(llmtest.Call("f", `{"x":1}`)),
		llmtest.Text("x").FailAfter(1, boom),
	)
	rec := llmtest.NewRecorder(live, dir)
	ctx := context.Background()
	var want [][]llm.Event
	for _, q := range []string{"one", "two"} {
		evs, err := drain(rec.Stream(ctx, ask(q)))
		require.NoError(t, err)
		want = append(want, evs)
	}
	_, err := drain(rec.Stream(ctx, ask("three")))
	require.ErrorIs(t, err, boom)
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	require.Len(t, files, 3)

	rep := llmtest.NewReplayer(dir)
	for i, q := range []string{"one", "two"} {
		evs, err := drain(rep.Stream(ctx, ask(q)))
		require.NoError(t, err)
		require.Equal(t, want[i], evs)
	}
	evs, err := drain(rep.Stream(ctx, ask("three")))
	require.Equal(t, []llm.Event{{Kind: llm.EventTextDelta, Text: "x"}}, evs)
	var e *llm.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, llm.Error{Kind: llm.RateLimited, Status: 429, Message: "slow down"}, *e)

	_, err = drain(rep.Stream(ctx, ask("never recorded")))
	require.ErrorIs(t, err, llmtest.ErrNoTranscript)
	key, _ := llmtest.Key(ask("never recorded"))
	require.ErrorContains(t, err, key)
	require.ErrorContains(t, err, `last user message "never recorded"`)
	require.ErrorContains(t, err, "AITE_RECORD=1")
}

func TestRecorderSkipsAbandonedStreams(t *testing.T) {
	dir := t.TempDir()
	rec := llmtest.NewRecorder(llmtest.NewScripted(llmtest.Chunks("a", "b")), dir)
	for range rec.Stream(context.Background(), ask("q")) {
		break
	}
	entries, err := os.ReadDir(dir)
	if err == nil {
		require.Empty(t, entries)
	}
}

func TestRecordOrReplay(t *testing.T) {
	dir := t.TempDir()
	live := func() llm.Provider { return llmtest.NewScripted(llmtest.Text("live")) }
	t.Setenv(llmtest.RecordEnv, "1")
	p := llmtest.RecordOrReplay(dir, live)
	require.IsType(t, &llmtest.Recorder{}, p)
	_, err := drain(p.Stream(context.Background(), ask("q")))
	require.NoError(t, err)

	t.Setenv(llmtest.RecordEnv, "")
	p = llmtest.RecordOrReplay(dir, func() llm.Provider { panic("live provider used while replaying") })
	r, err := llm.Collect(p.Stream(context.Background(), ask("q")))
	require.NoError(t, err)
	require.Equal(t, "live", r.Message.Content)
}
