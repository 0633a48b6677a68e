package llmtest_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

func drain(seq iter.Seq2[llm.Event, error]) ([]llm.Event, error) {
	var out []llm.Event
	for ev, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
	return out, nil
}

func ask(text string) *llm.Request {
	return &llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: text}}}
}

func TestScriptedRepliesInOrder(t *testing.T) {
	p := llmtest.NewScripted(llmtest.Text("one"), llmtest.Chunks("t", "wo"))
	p.Add(llmtest.Calls(llmtest.Call("f", `{}`)))
	ctx := context.Background()
	var got []llm.Response
	for _, q := range []string{"a", "b", "c"} {
		r, err := llm.Collect(p.Stream(ctx, ask(q)))
		require.NoError(t, err)
		got = append(got, r)
	}
	require.Equal(t, "one", got[0].Message.Content)
	require.Equal(t, "two", got[1].Message.Content)
	require.Equal(t, []llm.ToolCall{{ID: "call_1", Name: "f", Arguments: "{}"}}, got[2].Message.ToolCalls)
	require.Equal(t, llm.FinishToolCalls, got[2].Finish)
	require.Zero(t, p.Remaining())

	_, err := drain(p.Stream(ctx, ask("d")))
	require.ErrorIs(t, err, llmtest.ErrNoReply)
	require.ErrorContains(t, err, `request #4 (last user message "d")`)
}

func TestScriptedRecordsDeepCopies(t *testing.T) {
	p := llmtest.NewScripted(llmtest.Text("x"))
	req := ask("original")
	req.Tools = []llm.Tool{{Name: "f", Parameters: []byte(`{}`)}}
	_, err := drain(p.Stream(context.Background(), req))
	require.NoError(t, err)
	req.Messages[0].Content = "mutated"
	req.Tools[0].Parameters[0] = '['
	got := p.Requests()
	require.Len(t, got, 1)
	require.Equal(t, "original", got[0].Messages[0].Content)
	require.Equal(t, "{}", string(got[0].Tools[0].Parameters))
	got[0].Messages[0].Content = "mutated again"
	require.Equal(t, "original", p.Requests()[0].Messages[0].Content)
}

func TestScriptedFaults(t *testing.T) {
	boom := &llm.Error{Kind: llm.Server, Message: "boom"}
	t.Run("fail before the first event", func(t *testing.T) {
		got, err := drain(llmtest.NewScripted(llmtest.Fail(boom)).Stream(context.Background(), ask("x")))
		require.Empty(t, got)
		require.ErrorIs(t, err, boom)
	})
	t.Run("fail after events", func(t *testing.T) {
		got, err := drain(llmtest.NewScripted(llmtest.Chunks("a", "b", "c").FailAfter(2, boom)).Stream(context.Background(), ask("x")))
		require.Equal(t, []llm.Event{{Kind: llm.EventTextDelta, Text: "a"}, {Kind: llm.EventTextDelta, Text: "b"}}, got)
		require.ErrorIs(t, err, boom)
	})
	t.Run("timeout blocks until the deadline", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		_, err := drain(llmtest.NewScripted(llmtest.Timeout()).Stream(ctx, ask("x")))
		require.True(t, llm.IsKind(err, llm.Timeout), "got %v", err)
	})
	t.Run("canceled context stops between events", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var got []llm.Event
		var err error
		for ev, e := range llmtest.NewScripted(llmtest.Chunks("a", "b")).Stream(ctx, ask("x")) {
			if e != nil {
				err = e
				break
			}
			got = append(got, ev)
			cancel()
		}
		require.Len(t, got, 1)
		require.True(t, llm.IsKind(err, llm.Canceled))
	})
	t.Run("empty and malformed replies", func(t *testing.T) {
		r, err := llm.Collect(llmtest.NewScripted(llmtest.Empty()).Stream(context.Background(), ask("x")))
		require.NoError(t, err)
		require.Equal(t, llm.Response{Message: llm.Message{Role: llm.RoleAssistant}, Finish: llm.FinishStop}, r)
		r, err = llm.Collect(llmtest.NewScripted(llmtest.MalformedJSON()).Stream(context.Background(), ask("x")))
		require.NoError(t, err)
		_, ok := llm.ExtractJSONObject(r.Message.Content)
		require.False(t, ok)
	})
	t.Run("events handed out are copies", func(t *testing.T) {
		reply := llmtest.Calls(llmtest.Call("f", "{}"))
		p := llmtest.NewScripted(reply, reply)
		got, _ := drain(p.Stream(context.Background(), ask("x")))
		got[0].Call.Name = "mutated"
		again, _ := drain(p.Stream(context.Background(), ask("x")))
		require.Equal(t, "f", again[0].Call.Name)
	})
}

func TestScriptedFuncOracle(t *testing.T) {
	p := llmtest.ScriptedFunc(func(req *llm.Request) llmtest.Reply {
		q := req.LastUserMessage()
		if q == "fail" {
			return llmtest.Fail(errors.New("asked to fail"))
		}
		return llmtest.Text("echo: " + q)
	})
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			r, err := llm.Collect(p.Stream(context.Background(), ask(fmt.Sprint(i))))
			require.NoError(t, err)
			require.Equal(t, fmt.Sprint("echo: ", i), r.Message.Content)
		})
	}
	wg.Wait()
	require.Len(t, p.Requests(), 20)
	_, err := drain(p.Stream(context.Background(), ask("fail")))
	require.EqualError(t, err, "asked to fail")
}

func TestReplyBuilders(t *testing.T) {
	u := llm.Usage{InputTokens: 1}
	r := llmtest.Join(llmtest.Reasoning("r"), llmtest.Text("t")).WithUsage(u)
	require.Equal(t, []llm.Event{
		{Kind: llm.EventReasoningDelta, Text: "r"}, {Kind: llm.EventTextDelta, Text: "t"},
		{Kind: llm.EventUsage, Usage: &u}, {Kind: llm.EventFinish, Finish: llm.FinishStop},
	}, r.Events)
	base := llmtest.Text("x")
	_ = base.WithUsage(u)
	require.Len(t, base.Events, 2, "builders never alias their receiver")
}
