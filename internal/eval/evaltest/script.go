package evaltest

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/aitexteditor/aite/internal/eval"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
	"github.com/aitexteditor/aite/internal/textnorm"
)

// script is the oracle's next move in a task, from the turn number and
// the last tool result.
type script struct {
	o    *Oracle
	j    job
	turn int
	last map[string]any
}

func (s *script) wrong() bool { return s.o.Behaviour == Wrong }

func (s *script) next() llmtest.Reply {
	switch s.j.family {
	case eval.First, eval.Nth, eval.Last, eval.Insert:
		return s.ordinal()
	case eval.Chapter:
		return s.chapter()
	case eval.Count:
		return s.count()
	case eval.Collect:
		return s.collect()
	case eval.Replace:
		return s.replace()
	case eval.Relay:
		return s.relay()
	}
	return answer("none")
}

// walk is the first two turns of every search: a cursor, then the cursor
// agent over it in a mode.
func (s *script) walk(cursorArgs map[string]any, filtered bool, goal, mode string, n int) (llmtest.Reply, bool) {
	switch s.turn {
	case 0:
		if filtered {
			return call("cursor-create_filtered_cursor", cursorArgs), true
		}
		return call("cursor-create_keyword_cursor", cursorArgs), true
	case 1:
		args := map[string]any{"cursorName": s.str("cursorName"), "taskDescription": goal, "mode": mode}
		if n > 0 {
			args["n"] = n
		}
		return call("cursor_agent-run_cursor_agent", args), true
	}
	return llmtest.Reply{}, false
}

func keywordArgs(name string) map[string]any {
	return map[string]any{"keywords": []string{name}, "includeHeadings": false}
}

func mentionGoal(name string) string {
	return fmt.Sprintf("paragraphs that mention «%s» (any form of the name)", name)
}

// ordinal finds the first, n-th or last mention and answers with it, or
// (insert) inserts the text after it. Wrong picks a neighbour.
func (s *script) ordinal() llmtest.Reply {
	p := s.j.params
	mode, n := "FirstMatch", 0
	switch s.j.family {
	case eval.Nth, eval.Insert:
		mode, n = "Nth", p.N
	case eval.Last:
		mode = "Last"
	}
	if s.wrong() {
		mode, n = "Nth", max(n+1, 2)
	}
	if r, ok := s.walk(keywordArgs(p.Name), false, mentionGoal(p.Name), mode, n); ok {
		return r
	}
	if s.j.family == eval.Insert {
		if s.turn == 2 && s.success() {
			return call("editor-insert_after", map[string]any{"pointer": s.str("pointer"), "markdown": p.Text})
		}
		return s.done()
	}
	if !s.success() {
		return answer("none")
	}
	return answer("%s", s.str("pointer"))
}

// chapter finds the first mention and answers with its chapter's heading
// (read to get its pointer). Wrong names the next chapter.
func (s *script) chapter() llmtest.Reply {
	p := s.j.params
	if r, ok := s.walk(keywordArgs(p.Name), false, mentionGoal(p.Name), "FirstMatch", 0); ok {
		return r
	}
	switch {
	case s.turn == 2 && !s.success():
		return answer("none")
	case s.turn == 2 && s.wrong():
		return answer("%s", chapterLabel(s.str("pointer"), p.ChapterLevel, 1))
	case s.turn == 2:
		return call("editor-read", map[string]any{"pointer": chapterLabel(s.str("pointer"), p.ChapterLevel, 0)})
	}
	if t := s.str("target"); t != "" {
		return answer("%s", t)
	}
	return answer("none")
}

// chapterLabel is the label of the chapter (headings of level) holding
// the item a pointer names, moved on by skip chapters.
func chapterLabel(ptr string, level, skip int) string {
	_, label, _ := strings.Cut(ptr, ":")
	head, _, _ := strings.Cut(label, ".p")
	cs := strings.Split(head, ".")
	if len(cs) < level || level < 1 {
		return label
	}
	cs = cs[:level]
	n, _ := strconv.Atoi(cs[level-1])
	cs[level-1] = strconv.Itoa(n + skip)
	return strings.Join(cs, ".")
}

// count collects the mentions of a chapter and answers their number.
func (s *script) count() llmtest.Reply {
	p := s.j.params
	args := map[string]any{"filterDescription": "paragraphs of the chapter " + p.Chapter + " that mention " + p.Name,
		"keywords": []string{p.Name}, "within": p.Chapter, "includeHeadings": false}
	if r, ok := s.walk(args, true, mentionGoal(p.Name), "CollectToTargetSet", 0); ok {
		return r
	}
	if !s.success() {
		return answer("none")
	}
	n, _ := s.last["evidenceCount"].(float64)
	if s.wrong() {
		n++
	}
	return answer("%d", int(n))
}

// collect collects the paragraphs of both names. Wrong leaves one out.
func (s *script) collect() llmtest.Reply {
	p := s.j.params
	goal := fmt.Sprintf("paragraphs that mention both «%s» and «%s» (any form of each name)", p.Name, p.Other)
	if r, ok := s.walk(keywordArgs(p.Name), false, goal, "CollectToTargetSet", 0); ok {
		return r
	}
	if !s.success() {
		return answer("none")
	}
	var ptrs []string
	for _, e := range s.list("evidence") {
		ptrs = append(ptrs, str(e, "pointer"))
	}
	if s.wrong() && len(ptrs) > 0 {
		ptrs = ptrs[:len(ptrs)-1]
	}
	return answer("%s", strings.Join(ptrs, ", "))
}

// replace reads the chapter's first items and replaces the last sentence
// of its first paragraph. Wrong replaces the first sentence.
func (s *script) replace() llmtest.Reply {
	p := s.j.params
	switch s.turn {
	case 0:
		return call("editor-read", map[string]any{"pointer": p.Chapter, "after": 10})
	case 1:
		for _, it := range s.list("items")[1:] {
			if str(it, "kind") == "Paragraph" {
				md := str(it, "markdown")
				return call("editor-replace_text", map[string]any{"pointer": str(it, "pointer"), "markdown": s.sentence(md, p.Text)})
			}
		}
		return answer("none")
	}
	return s.done()
}

// sentence replaces the last sentence of md with text (Wrong: the first).
func (s *script) sentence(md, text string) string {
	last, first := -1, len(md)
	for _, sep := range []string{". ", "! ", "? "} {
		last = max(last, strings.LastIndex(md, sep))
		if i := strings.Index(md, sep); i >= 0 {
			first = min(first, i)
		}
	}
	if s.wrong() && first < len(md) {
		return text + md[first+1:]
	}
	return md[:last+2] + text
}

// relay plays one relay step.
func (s *script) relay() llmtest.Reply {
	p := s.j.params
	if p.Op == eval.StepInsert {
		return s.relayInsert()
	}
	switch s.turn {
	case 0:
		return call("editor-read", map[string]any{"pointer": p.Target})
	case 1:
		items := s.list("items")
		if len(items) == 0 {
			return answer("none")
		}
		md := str(items[0], "markdown")
		var out string
		switch {
		case p.Op == eval.StepWord && !s.j.inverse:
			out = strings.Replace(md, p.Word, p.Replacement, 1)
		case p.Op == eval.StepWord:
			out = strings.Replace(md, p.Replacement, p.Word, 1)
		case !s.j.inverse:
			out = s.sentence(md, p.Text)
		default:
			out = strings.Replace(md, p.Text, p.Original, 1)
		}
		if s.wrong() {
			out = strings.TrimSuffix(out, out[len(out)-1:]) // a character lost on the way
		}
		return call("editor-replace_text", map[string]any{"pointer": str(items[0], "pointer"), "markdown": out})
	}
	return s.done()
}

// relayInsert inserts the text after the target, or deletes it again.
// Wrong inserts a longer text, and then deletes whatever follows.
func (s *script) relayInsert() llmtest.Reply {
	p := s.j.params
	switch {
	case !s.j.inverse && s.turn == 0:
		text := p.Text
		if s.wrong() {
			text += " Indeed."
		}
		return call("editor-insert_after", map[string]any{"pointer": p.Target, "markdown": text})
	case !s.j.inverse:
		return s.done()
	case s.turn == 0:
		return call("editor-read", map[string]any{"pointer": p.Target, "after": 1})
	case s.turn == 1:
		for _, it := range s.list("items")[1:] {
			if str(it, "markdown") == p.Text || s.wrong() {
				return call("editor-delete", map[string]any{"pointer": str(it, "pointer")})
			}
		}
		return answer("none")
	}
	return s.done()
}

// done answers after an edit: done when the tool applied it.
func (s *script) done() llmtest.Reply {
	if ok, _ := s.last["ok"].(bool); ok {
		return answer("done")
	}
	return answer("none")
}

func (s *script) success() bool {
	ok, _ := s.last["success"].(bool)
	return ok
}

func (s *script) str(key string) string { return str(s.last, key) }

func (s *script) list(key string) []map[string]any {
	var out []map[string]any
	if xs, ok := s.last[key].([]any); ok {
		for _, x := range xs {
			if m, ok := x.(map[string]any); ok {
				out = append(out, m)
			}
		}
	}
	return out
}

func str(m map[string]any, key string) string {
	v, _ := m[key].(string)
	return v
}

// call is a reply that calls one tool.
func call(name string, args any) llmtest.Reply {
	b, _ := json.Marshal(args)
	return llmtest.Calls(llmtest.Call(name, string(b)))
}

// lastToolResult decodes the newest tool result of the conversation.
func lastToolResult(req *llm.Request) map[string]any {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if m := req.Messages[i]; m.Role == llm.RoleTool {
			var v map[string]any
			_ = json.Unmarshal([]byte(m.Content), &v)
			return v
		}
	}
	return nil
}

// jsonMessage finds the cursor agent's JSON message of a type.
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

// judge plays the cursor agent's model: every item of the batch whose
// text holds all the «names» of the goal (each in any form) is evidence.
// Wrong, on the walks of the navigate family, reports the items without
// the second name instead; Broken replies with malformed JSON.
func (o *Oracle) judge(req *llm.Request, batch map[string]any) llmtest.Reply {
	task := jsonMessage(req, "task")
	goal := str(task, "goal")
	if o.Behaviour == Broken {
		return decision(req, `{"action": "continue", "newEvidence": [{"pointer": `)
	}
	var ms []*textnorm.Matcher
	for _, n := range quotedNames(goal) {
		ms = append(ms, textnorm.NewMatcher(n))
	}
	invert := o.Behaviour == Wrong && o.walks[goal] && len(ms) == 2
	ev := []map[string]string{}
	items, _ := batch["items"].([]any)
	for _, x := range items {
		it, _ := x.(map[string]any)
		md := str(it, "markdown")
		hit := len(ms) > 0
		for _, m := range ms {
			hit = hit && m.Match(md)
		}
		if invert {
			hit = ms[1].Match(md) && !ms[0].Match(md)
		}
		if hit {
			ev = append(ev, map[string]string{"pointer": str(it, "pointer"), "excerpt": "…", "reason": "it matches"})
		}
	}
	b, _ := json.Marshal(map[string]any{"action": "continue", "batchFound": len(ev) > 0, "newEvidence": ev,
		"progress": fmt.Sprintf("%d matches in this batch", len(ev)), "needMoreContext": false, "contextPointers": []string{}})
	return decision(req, string(b))
}

// decision sends a cursor-agent decision the way it was asked for: as the
// forced tool call, or as text.
func decision(req *llm.Request, text string) llmtest.Reply {
	if req.ToolChoice.Mode == llm.ToolChoiceTool {
		return llmtest.Calls(llmtest.Call(req.ToolChoice.Name, text))
	}
	return llmtest.Text(text)
}
