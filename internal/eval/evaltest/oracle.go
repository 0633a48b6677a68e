// Package evaltest holds a fake model for testing `aite eval`: an oracle
// that plays a model on the tasks of evaluation plans. It is given the
// plans (the task behind every prompt) and drives the real agents through
// their tools, as a careful model would: a keyword or filtered cursor, the
// cursor agent, a read before an edit, an edit, an answer. The cursor
// agent's batches it judges from the items' own text. The scorer never sees
// the oracle, only the agents' results and the book file, so it cannot
// tell the oracle from a real model.
//
// Three behaviours: Perfect answers every task right; Wrong answers every
// task confidently with the wrong item, count or edit; Broken replies
// with malformed tool calls, unknown tools, empty turns and malformed
// JSON, as a model that cannot follow the protocol.
package evaltest

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/aitexteditor/aite/internal/eval"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

// Behaviour is how the oracle answers.
type Behaviour string

// The behaviours.
const (
	Perfect Behaviour = "perfect"
	Wrong   Behaviour = "wrong"
	Broken  Behaviour = "broken"
)

// Oracle plays a model on the tasks of some plans.
type Oracle struct {
	Behaviour Behaviour
	// ReportUsage adds a usage event to every reply (llm.EstimateTokens
	// of the request and of the reply), as a real endpoint reports it.
	ReportUsage bool
	prompts     map[string]job // the task behind each prompt (tasks and relay steps)
	walks       map[string]bool
}

// job is what the oracle knows about a prompt.
type job struct {
	family  eval.Family
	params  eval.Params
	inverse bool
}

// New returns an oracle for the tasks of the plans.
func New(b Behaviour, plans ...*eval.Plan) *Oracle {
	o := &Oracle{Behaviour: b, prompts: map[string]job{}, walks: map[string]bool{}}
	for _, p := range plans {
		for _, t := range p.Tasks {
			if t.Walk != nil {
				o.walks[t.Walk.Goal] = true
			}
			if t.Prompt != "" {
				o.prompts[t.Prompt] = job{family: t.Family, params: t.Params}
			}
			for _, s := range t.Steps {
				o.prompts[s.Prompt] = job{family: eval.Relay, params: s.Params, inverse: s.Inverse}
			}
		}
	}
	return o
}

// Provider returns the oracle as a scripted provider.
func (o *Oracle) Provider() *llmtest.Scripted { return llmtest.ScriptedFunc(o.Reply) }

// Handler returns the oracle as the handler of a fake OpenAI-compatible
// server (llmtest.Server).
func (o *Oracle) Handler() func(llmtest.Request) llmtest.Response {
	return llmtest.ServeProvider(o.Provider())
}

// Reply answers one model request.
func (o *Oracle) Reply(req *llm.Request) llmtest.Reply {
	var r llmtest.Reply
	if batch := jsonMessage(req, "batch"); batch != nil {
		r = o.judge(req, batch)
	} else {
		r = o.command(req)
	}
	if o.ReportUsage {
		r = r.WithUsage(llm.Usage{InputTokens: eval.RequestTokens(req), OutputTokens: replyTokens(r)})
	}
	return r
}

// command plays the command agent's model: the next step of the task's
// script, from the conversation so far.
func (o *Oracle) command(req *llm.Request) llmtest.Reply {
	turn, prompt := 0, ""
	for _, m := range req.Messages {
		switch {
		case m.Role == llm.RoleUser && prompt == "":
			prompt = m.Content
		case m.Role == llm.RoleAssistant:
			turn++
		}
	}
	if o.Behaviour == Broken {
		return broken(turn, len(req.Tools) > 0)
	}
	j, ok := o.prompts[prompt]
	if !ok {
		return llmtest.Text("I do not know this task.\nANSWER: none")
	}
	s := &script{o: o, j: j, turn: turn, last: lastToolResult(req)}
	return s.next()
}

// broken is a reply of a model that cannot follow the protocol.
func broken(turn int, tools bool) llmtest.Reply {
	switch {
	case !tools:
		return llmtest.Empty()
	case turn%3 == 0:
		return llmtest.Calls(llmtest.Call("cursor-create_keyword_cursor", `{"keywords": [`))
	case turn%3 == 1:
		return llmtest.UnknownTool("editor-rewrite_everything")
	}
	return llmtest.Empty()
}

// names finds the «quoted» names of a goal.
var namesRE = regexp.MustCompile(`«([^»]+)»`)

func quotedNames(goal string) []string {
	var out []string
	for _, m := range namesRE.FindAllStringSubmatch(goal, -1) {
		out = append(out, m[1])
	}
	return out
}

func replyTokens(r llmtest.Reply) int {
	var b strings.Builder
	for _, ev := range r.Events {
		b.WriteString(ev.Text)
	}
	return llm.EstimateTokens(b.String())
}

// answer is a final reply with an ANSWER line.
func answer(format string, args ...any) llmtest.Reply {
	v := fmt.Sprintf(format, args...)
	return llmtest.Text("Here is what I found.\nANSWER: " + v)
}
