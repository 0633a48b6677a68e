package cursoragent

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"math/rand"
	"strings"
	"sync"

	"github.com/aitexteditor/aite/internal/llm"
)

// fake is a scripted provider whose replies come from a function of the
// request; it records the requests.
type fake struct {
	mu       sync.Mutex
	answer   func(req *llm.Request) string
	requests []*llm.Request
}

func (f *fake) Stream(_ context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		f.mu.Lock()
		f.requests = append(f.requests, req.Clone())
		text := f.answer(req)
		f.mu.Unlock()
		if len(req.Tools) > 0 && req.ToolChoice.Mode == llm.ToolChoiceTool {
			call := &llm.ToolCall{ID: "c1", Name: req.ToolChoice.Name, Arguments: text}
			if !yield(llm.Event{Kind: llm.EventToolCallStart, Call: &llm.ToolCall{ID: "c1", Name: call.Name}}, nil) ||
				!yield(llm.Event{Kind: llm.EventToolCallDelta, Text: text}, nil) ||
				!yield(llm.Event{Kind: llm.EventToolCallEnd, Call: call}, nil) {
				return
			}
		} else if text != "" && !yield(llm.Event{Kind: llm.EventTextDelta, Text: text}, nil) {
			return
		}
		yield(llm.Event{Kind: llm.EventFinish, Finish: llm.FinishStop}, nil)
	}
}

// seen request helpers.
func jsonMessage(req *llm.Request, typ string) map[string]any {
	for _, m := range req.Messages {
		if m.Role != llm.RoleUser || !strings.HasPrefix(m.Content, "{") {
			continue
		}
		var v map[string]any
		if json.Unmarshal([]byte(m.Content), &v) == nil && v["type"] == typ {
			return v
		}
	}
	return nil
}

func batchPointers(req *llm.Request) []string {
	b := jsonMessage(req, "batch")
	if b == nil {
		return nil
	}
	var out []string
	for _, it := range b["items"].([]any) {
		out = append(out, it.(map[string]any)["pointer"].(string))
	}
	return out
}

// Fault kinds the oracle injects.
const (
	faultMalformed = iota
	faultProse
	faultFence
	faultInvent
	faultRepeat
	faultParaphrase
	faultEmpty
	faultKinds
)

// oracle answers correctly from ground truth (the IDs of matching items),
// with faults injected at a rate.
type oracle struct {
	truth  map[int]bool
	rate   float64
	rng    *rand.Rand
	faults int
	seen   []string
}

func (o *oracle) answer(req *llm.Request) string {
	ptrs := batchPointers(req)
	var ev []map[string]string
	for _, p := range ptrs {
		var id int
		fmt.Sscanf(p, "%d:", &id)
		if o.truth[id] {
			ev = append(ev, map[string]string{"pointer": p, "excerpt": "…", "reason": "it matches"})
		}
	}
	dec := map[string]any{"action": "continue", "batchFound": len(ev) > 0, "newEvidence": nonNilEv(ev),
		"progress": fmt.Sprintf("%d found in this batch", len(ev)), "needMoreContext": false, "contextPointers": []string{}}
	if o.rng.Float64() < o.rate {
		o.faults++
		return o.fault(dec, ptrs)
	}
	o.seen = append(o.seen, evPointers(ev)...)
	b, _ := json.Marshal(dec)
	return string(b)
}

func (o *oracle) fault(dec map[string]any, ptrs []string) string {
	b, _ := json.Marshal(dec)
	good := string(b)
	switch o.rng.Intn(faultKinds) {
	case faultMalformed:
		return good[:len(good)/2]
	case faultProse:
		o.seen = append(o.seen, evPointers(dec["newEvidence"].([]map[string]string))...)
		return "Here is my decision: " + good + " Hope this helps."
	case faultFence:
		o.seen = append(o.seen, evPointers(dec["newEvidence"].([]map[string]string))...)
		return "```json\n" + good + "\n```"
	case faultInvent:
		ev := dec["newEvidence"].([]map[string]string)
		dec["newEvidence"] = append(ev, map[string]string{"pointer": "99999:9.9.p999", "excerpt": "x", "reason": "invented"})
	case faultRepeat:
		ev := dec["newEvidence"].([]map[string]string)
		for _, p := range o.seen {
			ev = append(ev, map[string]string{"pointer": p, "excerpt": "again", "reason": "repeat"})
		}
		dec["newEvidence"] = ev
	case faultParaphrase:
		for _, e := range dec["newEvidence"].([]map[string]string) {
			e["excerpt"] = "a loose paraphrase of the item"
		}
	case faultEmpty:
		return ""
	}
	o.seen = append(o.seen, evPointers(dec["newEvidence"].([]map[string]string))...)
	b, _ = json.Marshal(dec)
	return string(b)
}

func nonNilEv(ev []map[string]string) []map[string]string {
	if ev == nil {
		return []map[string]string{}
	}
	return ev
}

func evPointers(ev []map[string]string) []string {
	var out []string
	for _, e := range ev {
		out = append(out, e["pointer"])
	}
	return out
}

// failing answers with an empty decision, or a server error when fail says so.
type failing struct{ fail func() bool }

func (p *failing) Stream(_ context.Context, _ *llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		if p.fail() {
			yield(llm.Event{}, &llm.Error{Kind: llm.Server, Status: 500, Message: "boom"})
			return
		}
		yield(llm.Event{Kind: llm.EventTextDelta, Text: `{"action":"continue","newEvidence":[]}`}, nil)
	}
}
