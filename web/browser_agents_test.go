package web_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// cardsBook has the professor's lines and a character card in its
// appendix, so the protocol book editor can ask to see it.
const cardsBook = "# Глава первая\n\nПрофессор Звёздочкин вошёл в класс.\n\n— Тише, — сказал Звездочкин.\n\n## Вечер\n\nВаря читала.\n" +
	"\n## Персонажи\n\n- Звёздочкин: профессор астрономии, говорит витиевато.\n- Варя: ученица, дочь смотрителя.\n"

// pickerFiles define an agent with a frontend tool of its own viewport,
// which answers with the first option it was given.
var pickerFiles = map[string]string{
	"agents/picker.json": `{"key": "picker", "name": "Picker", "mode": "REACT", "modelConfig": {"modelKey": "default"},
		"toolConfig": {"frontends": ["pick"]}, "react": {"systemPrompt": "Let the user pick."}}`,
	"tools/pick.frontend": `{"tools": [{"type": "function", "name": "pick", "description": "Lets the user pick one option.",
		"parameters": {"type": "object", "properties": {"title": {"type": "string"}, "options": {"type": "array", "items": {"type": "string"}}},
		"required": ["title", "options"]}}]}`,
	"viewports/pick.html": `<!doctype html><html><body style="font-family: sans-serif">
<h3 id="title">…</h3><p id="state">waiting</p>
<script>
window.addEventListener("message", function (e) {
  if (!e.data || e.data.type !== "tool_init") return;
  var p = e.data.data.params;
  document.getElementById("title").textContent = p.title;
  var storage = (function () { try { return typeof localStorage.length; } catch (x) { return "blocked"; } })();
  document.getElementById("state").textContent = "picked " + p.options[0] + " (origin " + self.origin + ", storage " + storage + ")";
  window.parent.postMessage({type: "frontend_submit", params: {picked: p.options[0], origin: self.origin, storage: storage}}, "*");
});
</script></body></html>`,
}

// selectAgent picks an agent in a new chat.
func (tb *tab) selectAgent(key string) {
	tb.t.Helper()
	tb.click(".chat-head .btn")
	tb.run("select "+key, chromedp.SetValue(chromedp.CSS(".chat-head .agent"), key))
}

// ask sends a message and waits for the run to end.
func (tb *tab) ask(msg string) {
	tb.t.Helper()
	tb.typeInto(".chat-input", msg)
	tb.click(".composer .send")
}

// The other agents: the book editor on the solution protocol (a scope
// request and two edits shown together, one approved and one rejected),
// the confirm frontend tool answered natively, a frontend tool with its own
// viewport in a sandboxed frame, and a plan.
func TestBrowserAgents(t *testing.T) {
	needBrowser(t)
	a := startApp(t, appOptions{files: pickerFiles})
	var doc docSummary
	a.apiCall(t, http.MethodPost, "/documents", "", map[string]string{"name": "Звёздочкин (карточки)", "markdown": cardsBook}, &doc)
	tb := newTab(t)
	tb.open(a.base, "/#doc="+doc.DocumentID)
	tb.waitJS("the reading pane", itemVisible(0), 20*time.Second)

	// The protocol book editor asks to see the character card: denied.
	tb.selectAgent("bookEditorProtocol")
	tb.ask(protocolCommand)
	tb.waitJS("the scope request", `!!document.querySelector('.card.scope.active')`, 30*time.Second)
	if s := tb.text(".card.scope"); !strings.Contains(s, "characters") || !strings.Contains(s, "input") {
		t.Errorf("scope card: %q", s)
	}
	tb.shot("scope")
	tb.click(".card.scope .card-actions .btn:not(.primary)")
	tb.waitJS("the scope decision", `document.querySelector('.card.scope .card-status')?.textContent.startsWith('Rejected')`, 20*time.Second)

	// Two edits in one request: approve the first, reject the second.
	tb.waitJS("two edits to approve", `document.querySelectorAll('.card.approval.active .edit').length === 2`, 30*time.Second)
	tb.waitJS("their diffs", `[...document.querySelectorAll('.card.approval .edit')].every(e => e.querySelector('.diff ins'))`, 10*time.Second)
	tb.shot("approval-protocol")
	tb.click(".card.approval .edit:nth-child(1) .approve")
	tb.click(".card.approval .edit:nth-child(2) .reject")
	tb.waitJS("the answer", `[...document.querySelectorAll('.content')].some(c => c.textContent.includes('Одна реплика'))`, 30*time.Second)
	if s := tb.text(".card.approval .card-status"); !strings.HasPrefix(s, "Partly approved") {
		t.Errorf("approval status %q", s)
	}
	md, rev := a.raw(t, doc.DocumentID)
	if rev != 1 || !strings.Contains(md, formalOne) || strings.Contains(md, formalTwo) {
		t.Errorf("after a partial approval: revision %d\n%s", rev, md)
	}
	tb.waitJS("the approved edit in the reading pane", `[...document.querySelectorAll('.item')].some(el => el.textContent.includes('торжественно вошёл'))`, 20*time.Second)

	// demoConfirm: the confirm frontend tool as a native card.
	tb.selectAgent("demoConfirm")
	tb.ask("Забронируй столик")
	tb.waitJS("the confirmation", `!!document.querySelector('.card.confirm.active')`, 30*time.Second)
	if s := tb.text(".card.confirm"); !strings.Contains(s, "Забронировать столик") || !strings.Contains(s, "Ресторан") {
		t.Errorf("confirm card: %q", s)
	}
	tb.shot("confirm")
	tb.click(".card.confirm .btn.primary")
	tb.waitJS("the confirmed answer", `[...document.querySelectorAll('.content')].some(c => c.textContent.includes('Столик забронирован'))`, 30*time.Second)

	// A frontend tool with its own viewport, sandboxed.
	tb.selectAgent("picker")
	tb.ask("Выбери цвет")
	tb.waitJS("the viewport's answer", `[...document.querySelectorAll('.content')].some(c => c.textContent.includes('Вы выбрали'))`, 30*time.Second)
	answer := evalJS[string](tb, `[...document.querySelectorAll('.content')].map(c => c.textContent).find(s => s.includes('Вы выбрали'))`)
	if !strings.Contains(answer, `"picked":"синий"`) || !strings.Contains(answer, `"origin":"null"`) || !strings.Contains(answer, `"storage":"blocked"`) {
		t.Errorf("the viewport answered %q (want the first option, from an opaque origin)", answer)
	}
	tb.shot("viewport")

	// A plan: the panel shows the tasks and their progress.
	tb.selectAgent("demoPlanner")
	tb.ask("Сделай план")
	tb.waitJS("the finished plan", `document.querySelectorAll('.plan .task.completed').length === 2 && [...document.querySelectorAll('.content')].some(c => c.textContent.includes('Обе задачи'))`, 30*time.Second)
	if s := tb.text(".plan"); !strings.Contains(s, "Узнать текущее время") {
		t.Errorf("plan panel: %q", s)
	}
	tb.shot("plan")
}

// refuseChatListJS makes the page's requests for the chat list fail as the
// server fails one (an error envelope), from now on.
const refuseChatListJS = `(() => {
  const real = window.fetch;
  window.fetch = (url, opts) => String(url).startsWith('/api/ap/chats')
    ? Promise.resolve(new Response(JSON.stringify({ code: 503, msg: 'the chat list is unavailable' }),
      { status: 503, headers: { 'Content-Type': 'application/json' } }))
    : real(url, opts);
})()`

// A refresh of the chat list that fails (when a new chat starts, and when
// its run ends) is reported as every failed request is, in a toast.
func TestBrowserChatListErrorShown(t *testing.T) {
	needBrowser(t)
	a := startApp(t, appOptions{})
	tb := newTab(t)
	doc := a.documents(t, "")[0]
	tb.open(a.base, "/#doc="+doc.DocumentID)
	tb.waitJS("the chat list", `!!document.querySelector('.chat-head .history option')`, 20*time.Second)
	tb.run("refuse the chat list", chromedp.Evaluate[chromedp.Void](refuseChatListJS))
	tb.ask("LATENCY 2 1")
	tb.waitJS("the answer", `!document.querySelector('.composer .send').disabled && document.querySelectorAll('.content').length > 0`, 30*time.Second)
	tb.waitJS("the error reported", `[...document.querySelectorAll('.toasts .toast.error')].some(el => el.textContent === 'the chat list is unavailable')`, 10*time.Second)
}
