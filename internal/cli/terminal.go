package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/aitexteditor/aite/internal/agent"
	"github.com/aitexteditor/aite/internal/agent/protocol"
	"github.com/aitexteditor/aite/internal/cursor"
	"github.com/aitexteditor/aite/internal/tool"
)

// terminal is the person at the keyboard. It reads standard input line by
// line, one reader for everything (the chat's commands, the questions of a
// run, the final "write?"), and answers a run's questions (agent.Waiter)
// as the web app's user answers them through /submit: a frontend tool's
// form, the scopes a call asks to see, the edits held for approval. Without
// a terminal nobody answers (the run takes that as a refusal), except that
// --yes approves scopes and edits.
type terminal struct {
	in          io.Reader
	log         io.Writer
	interactive bool // standard input is a terminal
	yes         bool // --yes: scopes and edits are approved without asking

	once  sync.Once
	lines chan string
	mu    sync.Mutex // one question at a time
}

// newTerminal returns the terminal of a command.
func newTerminal(in io.Reader, log io.Writer, interactive, yes bool) *terminal {
	return &terminal{in: in, log: log, interactive: interactive, yes: yes}
}

// line reads the next line of input; false at the end of input or when
// ctx ends first.
func (t *terminal) line(ctx context.Context) (string, bool) {
	if ctx.Err() != nil {
		return "", false
	}
	t.once.Do(func() {
		t.lines = make(chan string)
		go t.read()
	})
	select {
	case l, ok := <-t.lines:
		return l, ok
	case <-ctx.Done():
		return "", false
	}
}

// read feeds the input's lines to t.lines until the input ends.
func (t *terminal) read() {
	defer close(t.lines)
	sc := bufio.NewScanner(t.in)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		t.lines <- sc.Text()
	}
}

// ask writes question and reads the answer.
func (t *terminal) ask(ctx context.Context, question string) (string, error) {
	fmt.Fprint(t.log, question)
	l, ok := t.line(ctx)
	if !ok {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		return "", fmt.Errorf("%w: the input ended", agent.ErrNoAnswer)
	}
	return strings.TrimSpace(l), nil
}

// yesNo asks a yes/no question (yes, y, да, д).
func (t *terminal) yesNo(ctx context.Context, question string) (bool, error) {
	a, err := t.ask(ctx, question+" [y/N] ")
	return isYes(a), err
}

// confirmed asks a yes/no question on log and reads one answer from in
// (for a command that asks once and runs no agent).
func confirmed(in io.Reader, log io.Writer, question string) bool {
	fmt.Fprint(log, question+" [y/N] ")
	line, _ := bufio.NewReader(in).ReadString('\n')
	return isYes(line)
}

func isYes(a string) bool {
	a = strings.ToLower(strings.TrimSpace(a))
	return a == "y" || a == "yes" || a == "д" || a == "да"
}

// Wait implements agent.Waiter.
func (t *terminal) Wait(ctx context.Context, q agent.Question) (agent.Answer, error) {
	if t.yes && q.Kind != agent.AskFrontend {
		return t.approve(q), nil
	}
	if !t.interactive {
		return agent.Answer{}, fmt.Errorf("%w: standard input is not a terminal (run with --yes to approve)", agent.ErrNoAnswer)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	switch q.Kind {
	case agent.AskScope:
		return t.scope(ctx, q.Scope)
	case agent.AskApproval:
		return t.edits(ctx, q.Approval)
	}
	return t.frontend(ctx, q.Call)
}

// approve answers an approval with yes (--yes).
func (t *terminal) approve(q agent.Question) agent.Answer {
	if q.Kind == agent.AskScope {
		fmt.Fprintf(t.log, "  ✓ %s may see %s (--yes)\n", q.Scope.Tool, strings.Join(q.Scope.Requested, ", "))
		return scopeAnswer(q.Scope, true)
	}
	fmt.Fprintf(t.log, "  ✓ %d edit(s) approved (--yes)\n", len(q.Approval.Calls))
	return editsAnswer(q.Approval, q.Approval.ToolIDs())
}

// scope asks whether a call may see the scopes it requests.
func (t *terminal) scope(ctx context.Context, req *protocol.ScopeRequest) (agent.Answer, error) {
	also := ""
	if len(req.Provisioned) > 0 {
		also = " (it sees " + strings.Join(req.Provisioned, ", ") + " anyway)"
	}
	ok, err := t.yesNo(ctx, fmt.Sprintf("? %s asks to see %s%s. Allow?", req.Tool, strings.Join(req.Requested, ", "), also))
	if err != nil {
		return agent.Answer{}, err
	}
	return scopeAnswer(req, ok), nil
}

func scopeAnswer(req *protocol.ScopeRequest, ok bool) agent.Answer {
	d := protocol.ScopeDecision{Verdict: protocol.VerdictDeny, By: protocol.ByUser}
	if ok {
		d.Verdict, d.Scopes = protocol.VerdictApprove, append([]string(nil), req.Requested...)
	}
	raw, _ := json.Marshal(map[string]string{"decision": d.Verdict})
	return agent.Answer{Raw: raw, Scope: &d}
}

// edits shows the held edits and asks which to apply: all (y), none (n,
// the default) or the listed numbers.
func (t *terminal) edits(ctx context.Context, a *agent.Approval) (agent.Answer, error) {
	fmt.Fprintf(t.log, "? The agent wants to make %d edit(s):\n", len(a.Calls))
	for i, c := range a.Calls {
		fmt.Fprintf(t.log, "  %d. %s\n", i+1, heldEdit(c))
	}
	question := "Apply them? [y = all / n = none / numbers, e.g. 1 3] "
	if len(a.Calls) == 1 {
		question = "Apply it? [y/N] "
	}
	answer, err := t.ask(ctx, question)
	if err != nil {
		return agent.Answer{}, err
	}
	if isYes(answer) {
		return editsAnswer(a, a.ToolIDs()), nil
	}
	var chosen []string
	for _, f := range strings.Fields(strings.ReplaceAll(answer, ",", " ")) {
		if n, err := strconv.Atoi(f); err == nil && n >= 1 && n <= len(a.Calls) {
			chosen = append(chosen, a.Calls[n-1].ToolID)
		}
	}
	return editsAnswer(a, chosen), nil
}

// editsAnswer approves the calls ids of a (protocol.DecideCalls: none is a
// deny, some a partial approval).
func editsAnswer(a *agent.Approval, ids []string) agent.Answer {
	d := protocol.DecideCalls(a.ToolIDs(), ids)
	raw, _ := json.Marshal(map[string]any{"decision": d.Verdict, "approved": d.Approved})
	return agent.Answer{Raw: raw, Approval: &d}
}

// heldEdit shows one held call: its preview (op, pointer, the Markdown
// before and after) or its parameters.
func heldEdit(c agent.ApprovalCall) string {
	pv, ok := tool.ParseEditPreview(c.Preview)
	if !ok {
		return c.ToolName + " " + cursor.Excerpt(string(c.Params), 200)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", pv.Op, pv.Pointer)
	if pv.OldMarkdown != "" {
		fmt.Fprintf(&b, "\n     - %s", cursor.Excerpt(pv.OldMarkdown, 300))
	}
	if pv.NewMarkdown != "" {
		fmt.Fprintf(&b, "\n     + %s", cursor.Excerpt(pv.NewMarkdown, 300))
	}
	return b.String()
}

// frontend shows a frontend tool's form: confirm is a yes/no question,
// ask_user a choice between answers; any other tool shows its parameters
// and takes a line (JSON, or text given as {"answer": text}).
func (t *terminal) frontend(ctx context.Context, c *agent.Call) (agent.Answer, error) {
	var p struct {
		Question    string `json:"question"`
		Details     string `json:"details"`
		Description string `json:"description"`
		Answers     []struct {
			Title       string `json:"title"`
			Description string `json:"description"`
		} `json:"answers"`
	}
	_ = json.Unmarshal(c.ToolParams, &p)
	var v any
	switch {
	case c.Name == "confirm":
		q := p.Question
		if p.Details != "" {
			q += "\n  " + p.Details + "\n "
		}
		ok, err := t.yesNo(ctx, "? "+q)
		if err != nil {
			return agent.Answer{}, err
		}
		v = map[string]any{"confirmed": ok, "comment": ""}
	case len(p.Answers) > 0:
		fmt.Fprintf(t.log, "? %s\n", p.Description)
		for i, a := range p.Answers {
			fmt.Fprintf(t.log, "  %d. %s — %s\n", i+1, a.Title, a.Description)
		}
		line, err := t.ask(ctx, fmt.Sprintf("Choose 1–%d: ", len(p.Answers)))
		if err != nil {
			return agent.Answer{}, err
		}
		choice := map[string]any{"answer": line}
		if n, err := strconv.Atoi(line); err == nil && n >= 1 && n <= len(p.Answers) {
			choice["answer"] = p.Answers[n-1].Title
		}
		v = choice
	default:
		line, err := t.ask(ctx, fmt.Sprintf("? %s %s\n  your answer (JSON, or text): ", c.Name, cursor.Excerpt(string(c.ToolParams), 300)))
		if err != nil {
			return agent.Answer{}, err
		}
		if json.Valid([]byte(line)) {
			return agent.Answer{Raw: json.RawMessage(line)}, nil
		}
		v = map[string]any{"answer": line}
	}
	raw, err := json.Marshal(v)
	return agent.Answer{Raw: raw}, err
}

var _ agent.Waiter = (*terminal)(nil)
