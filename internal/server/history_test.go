package server

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/api"
	"github.com/aitexteditor/aite/internal/store"
)

// hlog builds a stored run log: one event per payload, seq from 1, the
// given timestamps (ts[i], or 1000+i when ts is shorter).
func hlog(ts []int64, evs ...api.Event) []store.Event {
	out := make([]store.Event, 0, len(evs))
	for i, e := range evs {
		e.Seq = int64(i + 1)
		e.Timestamp = int64(1000 + i)
		if i < len(ts) {
			e.Timestamp = ts[i]
		}
		out = append(out, store.Event{Seq: e.Seq, Type: e.Type, Timestamp: e.Timestamp, Body: marshalEvent(e)})
	}
	return out
}

// hev is an event without seq and timestamp (hlog sets them).
func hev(typ string, payload any) api.Event { return api.Event{Type: typ, Payload: payload} }

// hwire returns the JSON of each event.
func hwire(evs []api.Event) []string {
	out := make([]string, 0, len(evs))
	for _, e := range evs {
		out = append(out, string(marshalEvent(e)))
	}
	return out
}

var (
	hQuery    = hev(api.TypeRequestQuery, api.RequestQuery{RequestID: "q1", ChatID: "c", Role: "user", Message: "hi"})
	hChat     = hev(api.TypeChatStart, api.ChatStart{ChatID: "c", ChatName: "hi", ChatImageToken: "tok"})
	hRunStart = hev(api.TypeRunStart, api.RunStart{RunID: "r1", ChatID: "c", AgentKey: "a"})
	hComplete = hev(api.TypeRunComplete, api.RunComplete{RunID: "r1", FinishReason: "stop"})
)

func TestCompactHistory(t *testing.T) {
	tests := []struct {
		name string
		logs [][]store.Event
		want []string
	}{
		{
			name: "no runs",
			want: []string{},
		},
		{
			name: "text blocks become snapshots at their start; chat.start loses its token",
			logs: [][]store.Event{hlog(nil, hQuery, hChat, hRunStart,
				hev(api.TypeReasoningStart, api.ReasoningStart{ReasoningID: "r1_r_1", RunID: "r1"}),
				hev(api.TypeReasoningDelta, api.ReasoningDelta{ReasoningID: "r1_r_1", Delta: "thi"}),
				hev(api.TypeReasoningDelta, api.ReasoningDelta{ReasoningID: "r1_r_1", Delta: "nk"}),
				hev(api.TypeReasoningEnd, api.ReasoningEnd{ReasoningID: "r1_r_1"}),
				hev(api.TypeContentStart, api.ContentStart{ContentID: "r1_c_1", RunID: "r1", TaskID: "t1"}),
				hev(api.TypeContentDelta, api.ContentDelta{ContentID: "r1_c_1", Delta: "Hel"}),
				hev(api.TypeContentDelta, api.ContentDelta{ContentID: "r1_c_1", Delta: "lo <b>&"}),
				hev(api.TypeContentEnd, api.ContentEnd{ContentID: "r1_c_1"}),
				hComplete)},
			want: []string{
				`{"seq":1,"type":"request.query","timestamp":1000,"requestId":"q1","chatId":"c","role":"user","message":"hi"}`,
				`{"seq":2,"type":"chat.start","timestamp":1001,"chatId":"c","chatName":"hi"}`,
				`{"seq":3,"type":"run.start","timestamp":1002,"runId":"r1","chatId":"c","agentKey":"a"}`,
				`{"seq":4,"type":"reasoning.snapshot","timestamp":1003,"reasoningId":"r1_r_1","text":"think"}`,
				`{"seq":5,"type":"content.snapshot","timestamp":1007,"contentId":"r1_c_1","text":"Hello <b>&","taskId":"t1"}`,
				`{"seq":6,"type":"run.complete","timestamp":1011,"runId":"r1","finishReason":"stop"}`,
			},
		},
		{
			name: "calls become snapshots; submit, edit and results keep their live order",
			logs: [][]store.Event{hlog(nil, hQuery, hRunStart,
				hev(api.TypeToolStart, api.ToolStart{ToolID: "call_1", RunID: "r1", TaskID: "t1", ToolName: "confirm",
					ToolType: "html", ToolKey: "confirm", ToolTimeout: 300000, Description: "Ask"}),
				hev(api.TypeToolArgs, api.ToolArgs{ToolID: "call_1", Delta: `{"q": `, ChunkIndex: 0}),
				hev(api.TypeToolArgs, api.ToolArgs{ToolID: "call_1", Delta: `"ok?"}`, ChunkIndex: 1}),
				hev(api.TypeToolEnd, api.ToolEnd{ToolID: "call_1"}),
				hev(api.TypeActionStart, api.ActionStart{ActionID: "call_2", RunID: "r1", ActionName: "highlight"}),
				hev(api.TypeActionArgs, api.ActionArgs{ActionID: "call_2", Delta: `{"p":1}`}),
				hev(api.TypeActionEnd, api.ActionEnd{ActionID: "call_2"}),
				hev(api.TypeRequestSubmit, api.RequestSubmit{RequestID: "q1", ChatID: "c", RunID: "r1", ToolID: "call_1", Payload: []byte(`{"yes":true}`)}),
				hev(api.TypeDocumentEdit, api.DocumentEdit{DocumentID: "d", RunID: "r1", ToolID: "call_1", Revision: 1, Op: "replace", Pointer: "2:p1", NewPointer: "2:p1"}),
				hev(api.TypeToolResult, api.ToolResult{ToolID: "call_1", Result: `{"yes":true}`}),
				hev(api.TypeActionResult, api.ActionResult{ActionID: "call_2", Result: []byte(`"OK"`)}),
				hComplete)},
			want: []string{
				`{"seq":1,"type":"request.query","timestamp":1000,"requestId":"q1","chatId":"c","role":"user","message":"hi"}`,
				`{"seq":2,"type":"run.start","timestamp":1001,"runId":"r1","chatId":"c","agentKey":"a"}`,
				`{"seq":3,"type":"tool.snapshot","timestamp":1002,"toolId":"call_1","toolName":"confirm","arguments":"{\"q\": \"ok?\"}","toolType":"html","toolParams":{"q":"ok?"},"description":"Ask","toolKey":"confirm","toolTimeout":300000,"taskId":"t1"}`,
				`{"seq":4,"type":"action.snapshot","timestamp":1006,"actionId":"call_2","actionName":"highlight","arguments":"{\"p\":1}"}`,
				`{"seq":5,"type":"request.submit","timestamp":1009,"requestId":"q1","chatId":"c","runId":"r1","toolId":"call_1","payload":{"yes":true}}`,
				`{"seq":6,"type":"document.edit","timestamp":1010,"documentId":"d","runId":"r1","toolId":"call_1","revision":1,"op":"replace","pointer":"2:p1","newPointer":"2:p1"}`,
				`{"seq":7,"type":"tool.result","timestamp":1011,"toolId":"call_1","result":"{\"yes\":true}"}`,
				`{"seq":8,"type":"action.result","timestamp":1012,"actionId":"call_2","result":"OK"}`,
				`{"seq":9,"type":"run.complete","timestamp":1013,"runId":"r1","finishReason":"stop"}`,
			},
		},
		{
			name: "arguments that are no object give no toolParams; start params without args are used",
			logs: [][]store.Event{hlog(nil,
				hev(api.TypeToolStart, api.ToolStart{ToolID: "a", RunID: "r1", ToolName: "x", ToolType: "function"}),
				hev(api.TypeToolArgs, api.ToolArgs{ToolID: "a", Delta: `{"broken`}),
				hev(api.TypeToolStart, api.ToolStart{ToolID: "b", RunID: "r1", ToolName: "y", ToolType: "function", ToolParams: []byte(`{"k":1}`)}),
				hev(api.TypeToolArgs, api.ToolArgs{ToolID: "nobody", Delta: `x`}))},
			want: []string{
				`{"seq":1,"type":"tool.snapshot","timestamp":1000,"toolId":"a","toolName":"x","arguments":"{\"broken","toolType":"function"}`,
				`{"seq":2,"type":"tool.snapshot","timestamp":1002,"toolId":"b","toolName":"y","arguments":"{\"k\":1}","toolType":"function","toolParams":{"k":1}}`,
			},
		},
		{
			name: "only the last plan.update, right after run.start with its time",
			logs: [][]store.Event{hlog([]int64{1000, 1001, 5000, 6000, 7000, 8000}, hQuery, hRunStart,
				hev(api.TypePlanUpdate, api.PlanUpdate{PlanID: "plan_r1", ChatID: "c", Plan: []api.PlanTask{{TaskID: "t1", Description: "a", Status: "init"}}}),
				hev(api.TypeTaskStart, api.TaskStart{TaskID: "t1", RunID: "r1", TaskName: "t1", Description: "a"}),
				hev(api.TypePlanUpdate, api.PlanUpdate{PlanID: "plan_r1", ChatID: "c", Plan: []api.PlanTask{{TaskID: "t1", Description: "a", Status: "completed"}}}),
				hev(api.TypeTaskComplete, api.TaskEnd{TaskID: "t1"}))},
			want: []string{
				`{"seq":1,"type":"request.query","timestamp":1000,"requestId":"q1","chatId":"c","role":"user","message":"hi"}`,
				`{"seq":2,"type":"run.start","timestamp":1001,"runId":"r1","chatId":"c","agentKey":"a"}`,
				`{"seq":3,"type":"plan.update","timestamp":1002,"planId":"plan_r1","chatId":"c","plan":[{"taskId":"t1","description":"a","status":"completed"}]}`,
				`{"seq":4,"type":"task.start","timestamp":6000,"taskId":"t1","runId":"r1","taskName":"t1","description":"a"}`,
				`{"seq":5,"type":"task.complete","timestamp":8000,"taskId":"t1"}`,
			},
		},
		{
			name: "chat.start of a later run is dropped; seq runs across runs; timestamps strictly increase",
			logs: [][]store.Event{
				hlog([]int64{500, 500, 499}, hQuery, hRunStart, hComplete),
				hlog([]int64{400, 400, 400, 400}, hQuery, hChat, hRunStart, hComplete),
			},
			want: []string{
				`{"seq":1,"type":"request.query","timestamp":500,"requestId":"q1","chatId":"c","role":"user","message":"hi"}`,
				`{"seq":2,"type":"run.start","timestamp":501,"runId":"r1","chatId":"c","agentKey":"a"}`,
				`{"seq":3,"type":"run.complete","timestamp":502,"runId":"r1","finishReason":"stop"}`,
				`{"seq":4,"type":"request.query","timestamp":503,"requestId":"q1","chatId":"c","role":"user","message":"hi"}`,
				`{"seq":5,"type":"run.start","timestamp":504,"runId":"r1","chatId":"c","agentKey":"a"}`,
				`{"seq":6,"type":"run.complete","timestamp":505,"runId":"r1","finishReason":"stop"}`,
			},
		},
		{
			name: "a running run contributes an open block's text so far and no terminal event",
			logs: [][]store.Event{hlog(nil, hQuery, hRunStart,
				hev(api.TypeContentStart, api.ContentStart{ContentID: "r1_c_1", RunID: "r1"}),
				hev(api.TypeContentDelta, api.ContentDelta{ContentID: "r1_c_1", Delta: "par"}))},
			want: []string{
				`{"seq":1,"type":"request.query","timestamp":1000,"requestId":"q1","chatId":"c","role":"user","message":"hi"}`,
				`{"seq":2,"type":"run.start","timestamp":1001,"runId":"r1","chatId":"c","agentKey":"a"}`,
				`{"seq":3,"type":"content.snapshot","timestamp":1002,"contentId":"r1_c_1","text":"par"}`,
			},
		},
		{
			name: "run.error and unknown types stay unchanged",
			logs: [][]store.Event{hlog(nil, hRunStart,
				hev("custom.thing", map[string]any{"x": 1}),
				hev(api.TypeRunError, api.RunError{RunID: "r1", Error: api.ErrorInfo{Code: "model_error", Message: "boom", Retriable: true}}))},
			want: []string{
				`{"seq":1,"type":"run.start","timestamp":1000,"runId":"r1","chatId":"c","agentKey":"a"}`,
				`{"seq":2,"type":"custom.thing","timestamp":1001,"x":1}`,
				`{"seq":3,"type":"run.error","timestamp":1002,"runId":"r1","error":{"code":"model_error","message":"boom","retriable":true}}`,
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var before [][]store.Event
			for _, l := range tc.logs {
				before = append(before, append([]store.Event(nil), l...))
			}
			got := CompactHistory(tc.logs)
			require.NotNil(t, got)
			require.Equal(t, tc.want, hwire(got))
			require.Equal(t, before, tc.logs, "the input is not modified")
		})
	}
}
