package openai

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/aitexteditor/aite/internal/llm"
)

// FuzzStream feeds arbitrary bytes through the SSE reader and the chunk
// converter and checks the event invariants: every tool call starts once
// before its fragments, ends at most once with exactly the concatenation of
// its fragments, and nothing follows the finish event or an error.
func FuzzStream(f *testing.F) {
	for _, seed := range []string{
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\n",
		"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"a\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"x\"}}]}}]}\n\n" +
			"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\":1}\"}}]}}]}\n\n" +
			"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":1,\"function\":{\"name\":\"g\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n",
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1}}\n\ndata: [DONE]\n\n",
		"data:\n\n: comment\n\ndata: null\n\ndata: {\"error\":{\"message\":\"x\"}}\n\n",
		"data: {\"choices\":[{\"delta\":{\"reasoning\":\"\xd0\"}}]}\r\n\r\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		p := &Provider{cfg: withDefaults(Config{})}
		var events []llm.Event
		failed := false
		yield := func(ev llm.Event, err error) bool {
			if failed || len(events) > 0 && events[len(events)-1].Kind == llm.EventFinish {
				t.Fatalf("event after the end: %+v %v", ev, err)
			}
			if err != nil {
				failed = true
				return false
			}
			events = append(events, ev)
			return true
		}
		r := newSSEReader(bytes.NewReader(body))
		first, err := r.next()
		if err != nil {
			return
		}
		newTurn(p, "m", yield).run(context.Background(), &upstream{sse: r, first: first})
		checkCalls(t, events)
	})
}

// checkCalls verifies the tool-call event invariants.
func checkCalls(t *testing.T, events []llm.Event) {
	args := map[int]*strings.Builder{}
	ended := map[int]bool{}
	for _, ev := range events {
		switch ev.Kind {
		case llm.EventToolCallStart:
			if args[ev.Index] != nil || ev.Call == nil || ev.Call.Name == "" || ev.Call.ID == "" {
				t.Fatalf("bad start %+v", ev)
			}
			args[ev.Index] = &strings.Builder{}
		case llm.EventToolCallDelta:
			if args[ev.Index] == nil || ended[ev.Index] || ev.Text == "" {
				t.Fatalf("bad delta %+v", ev)
			}
			args[ev.Index].WriteString(ev.Text)
		case llm.EventToolCallEnd:
			if args[ev.Index] == nil || ended[ev.Index] || ev.Call.Arguments != args[ev.Index].String() {
				t.Fatalf("bad end %+v", ev)
			}
			ended[ev.Index] = true
		}
	}
}

func TestSSEReaderLongLine(t *testing.T) {
	long := strings.Repeat("x", 100_000)
	r := newSSEReader(strings.NewReader(": " + long + "\ndata: a\ndata:\ndata: b\n\ndata: " + long + "\n\n"))
	got, err := r.next()
	if err != nil || string(got) != "a\n\nb" {
		t.Fatalf("got %q, %v", got, err)
	}
	got, err = r.next()
	if err != nil || string(got) != long {
		t.Fatalf("got %d bytes, %v", len(got), err)
	}
	if _, err = r.next(); err != io.EOF {
		t.Fatalf("want EOF, got %v", err)
	}
}
