package openai_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/aitexteditor/aite/internal/llm/llmtest"
	"github.com/aitexteditor/aite/internal/llm/openai"
)

// BenchmarkStream measures chunks per second through the adapter (SDK
// decoding, event conversion, tool-call accumulation) against the fake
// server, and, in the same run, a bare bufio.Scanner reading the same SSE
// bytes over HTTP from the same server. ratio-to-raw = adapter chunks/s ÷
// raw chunks/s; the target is ≥ 0.5 (the adapter costs at most 2× the raw
// read).
func BenchmarkStream(b *testing.B) {
	const n = 10_000
	text := make([]string, 0, n+1)
	for i := range n {
		text = append(text, llmtest.ContentChunk(fmt.Sprintf("w%d ", i%100)))
	}
	text = append(text, llmtest.FinishChunk("stop"))
	tools := make([]string, 0, n+1)
	for i := range n {
		call, frag := i/1000, i%1000
		f := llmtest.ToolFrag{Index: call, Args: `"ab",`}
		if frag == 0 {
			f.ID, f.Name, f.Args = fmt.Sprintf("call_%d", call), "edit", `{"x":[`
		}
		tools = append(tools, llmtest.ToolCallChunk(f))
	}
	tools = append(tools, llmtest.FinishChunk("tool_calls"))
	b.Run("text", func(b *testing.B) { benchStream(b, text) })
	b.Run("tool_calls", func(b *testing.B) { benchStream(b, tools) })
}

func benchStream(b *testing.B, chunks []string) {
	srv := llmtest.NewServerFunc(b, func(llmtest.Request) llmtest.Response { return llmtest.Response{Chunks: chunks} })
	p := srv.Provider(openai.Config{})
	ctx := context.Background()
	var adapter, raw time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		events := 0
		for _, err := range p.Stream(ctx, userRequest("go")) {
			if err != nil {
				b.Fatal(err)
			}
			events++
		}
		t1 := time.Now()
		lines := rawRead(b, srv)
		raw += time.Since(t1)
		adapter += t1.Sub(t0)
		if events < len(chunks) || lines != len(chunks)+1 {
			b.Fatalf("events %d, data lines %d, chunks %d", events, lines, len(chunks))
		}
	}
	total := float64(len(chunks) * b.N)
	b.ReportMetric(total/adapter.Seconds(), "chunks/s")
	b.ReportMetric(total/raw.Seconds(), "raw-chunks/s")
	b.ReportMetric(raw.Seconds()/adapter.Seconds(), "ratio-to-raw")
}

// rawRead posts to the server and counts its data lines with a bare scanner.
func rawRead(b *testing.B, srv *llmtest.Server) int {
	res, err := srv.Client().Post(srv.URL+"/v1/chat/completions", "application/json", bytes.NewReader([]byte(`{"model":"m"}`)))
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b.Fatal(res.Status)
	}
	sc := bufio.NewScanner(res.Body)
	lines := 0
	for sc.Scan() {
		if bytes.HasPrefix(sc.Bytes(), []byte("data: ")) {
			lines++
		}
	}
	if err := sc.Err(); err != nil {
		b.Fatal(err)
	}
	return lines
}
