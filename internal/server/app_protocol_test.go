package server

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/agent/protocol"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

// respondCall is a model reply of a protocol agent on a model without
// json_schema (AGENT_PROTOCOL § 2.6 respond_tool): the solution as the
// arguments of one forced `respond` call.
func respondCall(solution string) llmtest.Response {
	return llmtest.Response{Chunks: []string{
		llmtest.ToolCallChunk(llmtest.ToolFrag{ID: "call_respond", Name: "respond", Args: solution}),
		llmtest.FinishChunk("tool_calls")}}
}

// TestAppProtocolBookEditorEditsDocument runs the built-in protocol book
// editor through the App on the sample book (AGENT_PROTOCOL § 6): its
// reference-card providers are registered (the run starts), its
// replace_text activity is bound to the selected document (its preview is
// shown in the edit approval the client approves), the applied edit
// streams as document.edit and is persisted as revision 1 with the call's
// toolId.
func TestAppProtocolBookEditorEditsDocument(t *testing.T) {
	appLeakCheck(t)
	var pointer, before string
	const after = "Новый первый абзац."
	srv := llmtest.NewServer(t)
	srv.SetHandler(func(req llmtest.Request) llmtest.Response {
		if tools, _ := req.JSON["tools"].([]any); len(tools) != 1 || !strings.Contains(string(req.Body), `"name":"respond"`) {
			t.Errorf("request %d is not a respond_tool request: %s", req.N, req.Body)
		}
		switch req.N {
		case 1:
			return respondCall(`{"advisors":[{"id":"editGate","decision":"edit","thought":"The paragraph is known.","calls":"{\"replace_text\":80}"}],` +
				`"calls":[{"_tool":"replace_text","_reasoningForCall":"As asked.","pointer":"` + pointer + `","newMarkdown":"` + after + `"}],"output":null}`)
		case 2:
			return respondCall(`{"advisors":[{"id":"editGate","decision":"edit","thought":"Done.","calls":"{}"}],"calls":[],"output":{"answer":"Replaced ` + pointer + `."}}`)
		}
		return llmtest.Response{Status: http.StatusBadRequest, Body: `{"error":{"message":"unexpected request"}}`}
	})
	r := appStart(t, t.TempDir(), appEnv{"AITE_MODEL": "vllm:tiny", "AITE_VLLM_BASE_URL": srv.URL + "/v1"})
	var docs []appDocument
	appGet(t, r.base+"/api/ap/documents", &docs)
	docID := docs[0].DocumentID
	var items struct {
		Items []struct{ Pointer, Type, Markdown string }
	}
	appGet(t, r.base+"/api/ap/document/items?documentId="+docID, &items)
	for _, it := range items.Items {
		if it.Type == "paragraph" {
			pointer, before = it.Pointer, it.Markdown
			break
		}
	}
	require.NotEmpty(t, pointer)

	var edit, result, approval map[string]any
	types, last := appQueryFunc(t, r, `{"message":"Replace the first paragraph","agentKey":"bookEditorProtocol","params":{"documentId":"`+docID+`"}}`,
		func(ev map[string]any) {
			switch ev["type"] {
			case "approval.request": // the edit approval: the user approves
				approval = ev
				resp, err := appClient.Post(r.base+"/api/ap/submit", "application/json", strings.NewReader(
					`{"runId":"`+ev["runId"].(string)+`","toolId":"`+ev["approvalId"].(string)+`","params":{"decision":"approve"}}`))
				require.NoError(t, err)
				require.Equal(t, http.StatusOK, resp.StatusCode)
				resp.Body.Close()
			case "document.edit":
				edit = ev
			case "tool.result":
				result = ev
			}
		})
	require.Equal(t, "run.complete", last["type"], "%v %v", types, last)
	require.NotNil(t, approval, "%v", types)
	preview := approval["calls"].([]any)[0].(map[string]any)["preview"].(map[string]any)
	require.Equal(t, before, preview["oldMarkdown"], "the preview reads the run's document")
	require.Equal(t, after, preview["newMarkdown"])
	require.NotNil(t, edit, "%v", types)
	runID := last["runId"].(string)
	require.Equal(t, runID+"_call_1_0", edit["toolId"])
	require.Equal(t, float64(1), edit["revision"])
	require.Equal(t, docID, edit["documentId"])
	require.Equal(t, before, edit["before"])
	require.Equal(t, after, edit["after"])
	var res map[string]any
	require.NoError(t, json.Unmarshal([]byte(result["result"].(string)), &res))
	require.Equal(t, true, res["ok"])
	require.Equal(t, before, res["oldMarkdown"])

	// Persisted: the stored text and the edit history.
	var raw struct {
		Revision int
		Markdown string
	}
	appGet(t, r.base+"/api/ap/document/raw?documentId="+docID, &raw)
	require.Equal(t, 1, raw.Revision)
	require.Contains(t, raw.Markdown, "\n"+after+"\n")
	require.NotContains(t, raw.Markdown, before)
	var hist struct {
		Edits []struct {
			Revision      int
			RunID, ToolID string
		}
	}
	appGet(t, r.base+"/api/ap/document/history?documentId="+docID, &hist)
	require.Len(t, hist.Edits, 1)
	require.Equal(t, runID, hist.Edits[0].RunID)
	require.Equal(t, runID+"_call_1_0", hist.Edits[0].ToolID)
	r.stop()
	srv.CloseClientConnections()
}

// TestProtocolWiringWithoutDocument: a protocol run without a document gets
// no reference cards and book activities that fail with a sentence the
// model can read; an unknown document is an error naming it.
func TestProtocolWiringWithoutDocument(t *testing.T) {
	st := openSQLite(t, filepath.Join(t.TempDir(), "aite.db"))
	docs := NewDocuments(st, nil)
	ctx := context.Background()
	providers := ProtocolContextProviders(docs, "")
	require.ElementsMatch(t, []string{"book.characters", "book.glossary", "book.styleGuide"}, slices.Collect(maps.Keys(providers)))
	msgs, err := providers["book.characters"](ctx)
	require.NoError(t, err)
	require.Empty(t, msgs)
	_, err = ProtocolContextProviders(docs, "nope")["book.glossary"](ctx)
	require.ErrorContains(t, err, "nope")

	acts, err := ProtocolActivities(ctx, docs, "r", "")
	require.NoError(t, err)
	require.Contains(t, acts, "replace_text")
	args, err := agentctx.Decode([]byte(`{"pointer":"1","newMarkdown":"x"}`))
	require.NoError(t, err)
	_, err = acts["replace_text"].Run(ctx, &protocol.Call{Tool: "replace_text", Args: args.(*agentctx.Object)}, nil, nil)
	require.ErrorContains(t, err, "no book is open")
	_, err = ProtocolActivities(ctx, docs, "r", "nope")
	require.Error(t, err)
}
