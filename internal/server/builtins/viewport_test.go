package builtins

import (
	"encoding/json"
	"io/fs"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// confirmHarness runs the confirm viewport's script in Node with a small
// stand-in for the DOM, plays the steps (tool_init messages and clicks)
// and prints what the page shows after each as one JSON line.
const confirmHarness = `
const els = {};
function el(tag) {
  const e = { tagName: tag, children: [], listeners: {}, disabled: false, hidden: false, value: "",
    className: "", checked: false, type: "", _text: "",
    get textContent() { return this._text + this.children.map(c => c.textContent).join(""); },
    set textContent(v) { this._text = v; this.children = []; },
    appendChild(c) { this.children.push(c); return c; },
    addEventListener(n, f) { (this.listeners[n] = this.listeners[n] || []).push(f); },
    fire(n) { (this.listeners[n] || []).forEach(f => f()); } };
  return e;
}
for (const id of ["question", "details", "edits", "comment", "yes", "no", "timer", "card"]) els[id] = el("div");
els.yes.disabled = els.no.disabled = true;
els.question.textContent = "Waiting for the question…"; // as in the HTML
const posted = [], listeners = [];
const document = { getElementById: id => els[id], createElement: el };
const window = { addEventListener: (n, f) => listeners.push(f), parent: { postMessage: m => posted.push(m) },
  setInterval: () => 1, clearInterval: () => {} };
new Function("document", "window", SCRIPT)(document, window);
const find = (e, tag, out = []) => { if (e.tagName === tag) out.push(e); e.children.forEach(c => find(c, tag, out)); return out; };
for (const step of STEPS) {
  if (step.init !== undefined) listeners.forEach(f => f({ data: { type: "tool_init", data: step.init } }));
  if (step.uncheck !== undefined) { const c = find(els.edits, "input")[step.uncheck]; c.checked = false; c.fire("change"); }
  if (step.click) els[step.click].fire("click");
  console.log(JSON.stringify({ yes: !els.yes.disabled, no: !els.no.disabled, question: els.question.textContent,
    del: find(els.edits, "del").map(e => e.textContent), ins: find(els.edits, "ins").map(e => e.textContent),
    posted: posted.map(m => m.params) }));
}
`

type confirmState struct {
	Yes, No  bool
	Question string
	Del, Ins []string
	Posted   []map[string]any
}

// playConfirm runs steps against a fresh confirm viewport.
func playConfirm(t *testing.T, steps ...map[string]any) []confirmState {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the confirm viewport's script is not run")
	}
	page, err := fs.ReadFile(FS(), "viewports/confirm.html")
	require.NoError(t, err)
	html := string(page)
	script := html[strings.Index(html, "<script>")+len("<script>") : strings.Index(html, "</script>")]
	sj, _ := json.Marshal(script)
	st, _ := json.Marshal(steps)
	code := "const SCRIPT = " + string(sj) + ";\nconst STEPS = " + string(st) + ";\n" + confirmHarness
	out, err := exec.Command(node, "-e", code).CombinedOutput()
	require.NoError(t, err, string(out))
	var states []confirmState
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var s confirmState
		require.NoError(t, json.Unmarshal([]byte(line), &s), line)
		states = append(states, s)
	}
	return states
}

// Issue 14: the confirm viewport enabled its buttons while the question was
// still streaming, so a blank question could be confirmed. The buttons come
// on only with complete arguments (an object with a non-blank question).
func TestConfirmViewportWaitsForCompleteArguments(t *testing.T) {
	s := playConfirm(t,
		map[string]any{"init": map[string]any{"params": `{"question":"Delete the chap`}}, // still streaming
		map[string]any{"init": map[string]any{"params": map[string]any{"question": "  "}}},
		map[string]any{"init": map[string]any{"params": map[string]any{}}},
		map[string]any{"click": "yes"}, // disabled: nothing is sent
		map[string]any{"init": map[string]any{"params": `{"question":"Delete the chapter?"}`}},
		map[string]any{"click": "yes"},
	)
	for i := range 4 {
		require.False(t, s[i].Yes || s[i].No, "step %d: the buttons are on before the question is complete", i)
		require.Equal(t, "Waiting for the question…", s[i].Question)
		require.Empty(t, s[i].Posted)
	}
	require.True(t, s[4].Yes && s[4].No)
	require.Equal(t, "Delete the chapter?", s[4].Question)
	require.Equal(t, []map[string]any{{"confirmed": true, "comment": ""}}, s[5].Posted)
	require.False(t, s[5].Yes, "answered once")
}

// An edit approval offered through the confirm tool shows each edit as a
// word diff with a checkbox; an unchecked edit is left out of approved.
func TestConfirmViewportShowsEditDiffs(t *testing.T) {
	edits := []any{
		map[string]any{"toolId": "c1", "toolName": "replace_text", "pointer": "2:1.p1", "op": "replace",
			"before": "Профессор вошёл в класс.", "after": "Профессор торжественно вошёл в класс."},
		map[string]any{"toolId": "c2", "toolName": "delete_item", "pointer": "3:1.p2", "op": "delete", "before": "Лишнее."},
	}
	s := playConfirm(t,
		map[string]any{"init": map[string]any{"params": map[string]any{"question": "Apply these 2 edits?", "edits": edits}}},
		map[string]any{"uncheck": 1},
		map[string]any{"click": "yes"},
	)
	require.True(t, s[0].Yes)
	require.Equal(t, []string{" торжественно"}, s[0].Ins)
	require.Equal(t, []string{"Лишнее."}, s[0].Del)
	require.Equal(t, []map[string]any{{"confirmed": true, "comment": "", "approved": []any{"c1"}}}, s[2].Posted)
}
