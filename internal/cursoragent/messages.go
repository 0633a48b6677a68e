package cursoragent

import (
	"encoding/json"

	"github.com/aitexteditor/aite/internal/cursor"
	"github.com/aitexteditor/aite/internal/llm"
)

// decisionSchema is the JSON Schema of the model's answer.
var decisionSchema = json.RawMessage(`{
 "type": "object",
 "properties": {
  "action": {"type": "string", "enum": ["continue", "stop"]},
  "batchFound": {"type": "boolean"},
  "newEvidence": {"type": "array", "items": {"type": "object", "properties": {
    "pointer": {"type": "string"}, "excerpt": {"type": "string"}, "reason": {"type": "string"}},
    "required": ["pointer", "excerpt", "reason"], "additionalProperties": false}},
  "progress": {"type": "string"},
  "needMoreContext": {"type": "boolean"},
  "contextPointers": {"type": "array", "items": {"type": "string"}}
 },
 "required": ["action", "batchFound", "newEvidence", "progress", "needMoreContext", "contextPointers"],
 "additionalProperties": false
}`)

type taskMsg struct {
	Type               string `json:"type"`
	OrderingGuaranteed bool   `json:"orderingGuaranteed"`
	Goal               string `json:"goal"`
	Context            string `json:"context,omitempty"`
	Mode               Mode   `json:"mode"`
	Direction          string `json:"direction"`
	MaxEvidenceCount   int    `json:"maxEvidenceCount,omitempty"`
}

type snapshotMsg struct {
	Type                   string   `json:"type"`
	EvidenceCount          int      `json:"evidenceCount"`
	RecentEvidencePointers []string `json:"recentEvidencePointers"`
	SeenTail               []string `json:"seenTail"`
	DedupRule              string   `json:"dedupRule"`
}

type batchItem struct {
	Pointer  string `json:"pointer"`
	ItemType string `json:"itemType"`
	Markdown string `json:"markdown"`
}

type batchMsg struct {
	Type           string      `json:"type"`
	FirstBatch     bool        `json:"firstBatch,omitempty"`
	HasMoreBatches bool        `json:"hasMoreBatches"`
	Items          []batchItem `json:"items"`
}

// messages builds the fresh conversation of one step.
func (a *Agent) messages(st *TaskState, p cursor.Portion, extra []cursor.Item) []llm.Message {
	t := st.Task
	dir := "forward"
	if t.Mode == Last || t.Cursor.Backward {
		dir = "backward"
	}
	recent := make([]string, 0, t.Limits.SnapshotPointers)
	for _, e := range tail(st.Found, t.Limits.SnapshotPointers) {
		recent = append(recent, e.Pointer.String())
	}
	msgs := []llm.Message{
		{Role: llm.RoleSystem, Content: systemPrompt},
		user(taskMsg{Type: "task", OrderingGuaranteed: true, Goal: t.Goal, Context: t.Context, Mode: t.Mode,
			Direction: dir, MaxEvidenceCount: t.MaxEvidence}),
		user(snapshotMsg{Type: "snapshot", EvidenceCount: len(st.Found), RecentEvidencePointers: recent,
			SeenTail: nonNil(st.Seen), DedupRule: dedupRule}),
		user(batchMsg{Type: "batch", FirstBatch: st.Usage.Batches == 0, HasMoreBatches: p.HasMore, Items: items(p.Items)}),
	}
	if len(extra) > 0 {
		msgs = append(msgs, user(struct {
			Type  string      `json:"type"`
			Note  string      `json:"note"`
			Items []batchItem `json:"items"`
		}{"context", "Neighbouring items, for understanding only; they are not evidence.", items(extra)}))
	}
	return msgs
}

func items(in []cursor.Item) []batchItem {
	out := make([]batchItem, len(in))
	for i, it := range in {
		out[i] = batchItem{Pointer: it.Pointer.String(), ItemType: string(it.Kind), Markdown: it.Markdown}
	}
	return out
}

func user(v any) llm.Message {
	b, _ := json.Marshal(v)
	return llm.Message{Role: llm.RoleUser, Content: string(b)}
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// neighbours returns up to 10 items around the pointers the model asked
// about that are not in the batch.
func (a *Agent) neighbours(book string, ptrs []string, p cursor.Portion) []cursor.Item {
	in := map[int]bool{}
	for _, it := range p.Items {
		in[it.Pointer.ID] = true
	}
	var out []cursor.Item
	for _, ptr := range ptrs {
		v, err := a.Session.Read(book, ptr, 1, 1)
		if err != nil {
			continue
		}
		for _, it := range v.Items {
			if !in[it.ID] && len(out) < 10 {
				in[it.ID] = true
				out = append(out, cursor.Item{Pointer: it.Pointer, Kind: it.Kind, Level: it.Level, Index: it.Index, Markdown: it.Markdown})
			}
		}
	}
	return out
}
