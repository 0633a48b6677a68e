package llmtest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

func post(t *testing.T, srv *llmtest.Server, body string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1/chat/completions", strings.NewReader(body))
	require.NoError(t, err)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := srv.Client().Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res, string(data)
}

func TestServerStreamsChunksVerbatim(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Response{Chunks: []string{"A", "B\xd0"}},
		llmtest.Response{Chunks: []string{": c\n\n", "data:x\n\n"}, Raw: true, NoDone: true},
	)
	res, body := post(t, srv, `{"model":"m"}`, "Authorization", "Bearer k")
	require.Equal(t, 200, res.StatusCode)
	require.Equal(t, "text/event-stream; charset=utf-8", res.Header.Get("Content-Type"))
	require.Equal(t, "data: A\n\ndata: B\xd0\n\ndata: [DONE]\n\n", body)
	_, body = post(t, srv, `not json`)
	require.Equal(t, ": c\n\ndata:x\n\n", body)

	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	require.Equal(t, 1, reqs[0].N)
	require.Equal(t, "POST", reqs[0].Method)
	require.Equal(t, "/v1/chat/completions", reqs[0].Path)
	require.Equal(t, "Bearer k", reqs[0].Header.Get("Authorization"))
	require.Equal(t, map[string]any{"model": "m"}, reqs[0].JSON)
	require.Nil(t, reqs[1].JSON)
	require.Equal(t, "not json", string(reqs[1].Body))
}

func TestServerErrorsAndExhaustion(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Response{Status: 429, Header: http.Header{"Retry-After": {"3"}}, Body: `{"error":{}}`})
	res, body := post(t, srv, `{}`)
	require.Equal(t, 429, res.StatusCode)
	require.Equal(t, "3", res.Header.Get("Retry-After"))
	require.Equal(t, `{"error":{}}`, body)
	res, body = post(t, srv, `{}`)
	require.Equal(t, 400, res.StatusCode)
	require.Contains(t, body, "no response scripted for request #2")
	srv.Enqueue(llmtest.Response{Chunks: []string{"late"}})
	_, body = post(t, srv, `{}`)
	require.Equal(t, "data: late\n\ndata: [DONE]\n\n", body)
}

func TestServerFunc(t *testing.T) {
	srv := llmtest.NewServerFunc(t, func(r llmtest.Request) llmtest.Response {
		return llmtest.Response{Chunks: []string{llmtest.ContentChunk(r.JSON["model"].(string))}}
	})
	_, body := post(t, srv, `{"model":"echo-me"}`)
	require.Contains(t, body, `"content":"echo-me"`)
}

func TestChunkBuilders(t *testing.T) {
	valid := []string{
		llmtest.ContentChunk("a\"b\\c\n\t"), llmtest.ReasoningChunk("r"), llmtest.ReasoningFieldChunk("r"),
		llmtest.RoleChunk(), llmtest.FinishChunk("stop"), llmtest.UsageChunk(1, 2, 3), llmtest.ErrorChunk(500, "x"),
		llmtest.ToolCallChunk(llmtest.ToolFrag{ID: "a", Name: "f", Args: `{"q":1}`}, llmtest.ToolFrag{Index: 1, NoIndex: true}),
	}
	for _, c := range valid {
		var v map[string]any
		require.NoError(t, json.Unmarshal([]byte(c), &v), c)
	}
	var v struct {
		Choices []struct {
			Delta struct {
				Content   string `json:"content"`
				ToolCalls []struct {
					Index    *int   `json:"index"`
					ID       string `json:"id"`
					Function struct {
						Name, Arguments string
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"delta"`
		} `json:"choices"`
	}
	require.NoError(t, json.Unmarshal([]byte(llmtest.ContentChunk("a\"b\\c\n\t")), &v))
	require.Equal(t, "a\"b\\c\n\t", v.Choices[0].Delta.Content)
	require.NoError(t, json.Unmarshal([]byte(valid[7]), &v))
	calls := v.Choices[0].Delta.ToolCalls
	require.Equal(t, 0, *calls[0].Index)
	require.Equal(t, "a", calls[0].ID)
	require.Equal(t, `{"q":1}`, calls[0].Function.Arguments)
	require.Nil(t, calls[1].Index)
	require.Equal(t, "\"\xd0\"", llmtest.Quote("\xd0"), "invalid UTF-8 is kept byte for byte")
}
