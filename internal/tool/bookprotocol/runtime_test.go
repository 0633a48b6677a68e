package bookprotocol

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/examples"
	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/agent/protocol"
	"github.com/aitexteditor/aite/internal/agentdef"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
	"github.com/aitexteditor/aite/internal/tool/booktools"
)

// registry is the protocol registry of the test: the book activities, a
// fake ask_user, and the three agents converted from the loaded files.
type registry struct {
	acts   map[string]protocol.Activity
	agents map[string]*protocol.Agent
}

func (r *registry) Activity(name string) (protocol.Activity, bool) {
	a, ok := r.acts[name]
	return a, ok
}
func (r *registry) Tool(string) (protocol.ToolDecl, bool)    { return protocol.ToolDecl{}, false }
func (r *registry) Agent(key string) (*protocol.Agent, bool) { a, ok := r.agents[key]; return a, ok }

// protocolAgent converts a loaded agent definition into a protocol agent,
// resolving its context providers against env (a test stand-in for the
// server's conversion).
func protocolAgent(t *testing.T, s *agentdef.Snapshot, key string, env booktools.Env) *protocol.Agent {
	t.Helper()
	def, ok := s.Agent(key)
	require.True(t, ok, key)
	p := def.Protocol
	a := &protocol.Agent{Key: key, SystemPrompt: def.MainStage().SystemPrompt, OutputText: p.OutputText,
		Oneshot: def.Mode == agentdef.ModeOneshot, ResponseFormat: p.ResponseFormat, ReasoningField: p.ReasoningField,
		UnpathedResults: p.UnpathedResults,
		Limits:          protocol.Limits{MaxTurns: p.Limits.MaxTurns, MaxParallel: p.Limits.MaxParallel, MaxDelegateDepth: p.Limits.MaxDelegateDepth},
		// The test scripts no requested scopes; "auto" keeps an approver out.
		Approval:     protocol.Approval{RequestedScopes: "auto", Calls: p.Approval.Calls},
		ConfirmTools: p.Approval.ConfirmTools,
		Model:        protocol.ModelInfo{Key: "default", StructuredOutput: protocol.FormatJSONSchema, SupportsTools: true}}
	if p.Guard != nil {
		a.Guard = &protocol.GuardConfig{MinMeanWeight: p.Guard.MinMeanWeight, Tools: p.Guard.Tools, OnNoVotes: p.Guard.OnNoVotes}
	}
	if p.OutputSchema != nil {
		v, err := agentctx.Decode(p.OutputSchema)
		require.NoError(t, err)
		a.OutputSchema = v
	}
	if p.InputSchema != nil {
		v, err := agentctx.Decode(p.InputSchema)
		require.NoError(t, err)
		a.InputSchema = v
	}
	for _, name := range def.ToolConfig.Names() {
		td, ok := s.Tool(name)
		require.True(t, ok, name)
		v, err := agentctx.Decode(td.Parameters)
		require.NoError(t, err)
		a.Tools = append(a.Tools, protocol.ToolDecl{Name: td.Name, Description: td.Description, Parameters: v.(*agentctx.Object), FileKind: string(td.Kind)})
	}
	adv, err := def.AdvisorMessages()
	require.NoError(t, err)
	a.Advisors = adv
	providers := Providers(env)
	for _, raw := range p.Context {
		var e struct{ Provider string }
		require.NoError(t, json.Unmarshal(raw, &e))
		require.Contains(t, providers, e.Provider)
		msgs, err := providers[e.Provider](context.Background())
		require.NoError(t, err)
		a.Context = append(a.Context, msgs...)
	}
	require.NoError(t, a.Normalize())
	return a
}

// block returns the compact JSON value of the rendered block `## <name>`.
func block(text, name string) map[string]any {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if l != "## "+name {
			continue
		}
		for _, v := range lines[i+1:] {
			if strings.HasPrefix(v, "## ") {
				break
			}
			if strings.HasPrefix(v, "{") {
				var out map[string]any
				if json.Unmarshal([]byte(v), &out) == nil {
					return out
				}
			}
		}
	}
	return nil
}

// userText is the rendered user message of a request.
func userText(req *llm.Request) string {
	var sb strings.Builder
	for _, m := range req.Messages {
		if m.Role == llm.RoleUser {
			sb.WriteString(m.Content)
		}
	}
	return sb.String()
}

func systemText(req *llm.Request) string {
	for _, m := range req.Messages {
		if m.Role == llm.RoleSystem {
			return m.Content
		}
	}
	return ""
}

func reply(t *testing.T, v any) llmtest.Reply {
	b, err := json.Marshal(v)
	if err != nil {
		t.Errorf("script: %v", err)
	}
	return llmtest.Text(string(b))
}

type obj = map[string]any

func gate(decision, weights string) []any {
	return []any{obj{"id": "editGate", "decision": decision, "thought": "scripted", "calls": weights}}
}

// confirmer approves every edit approval and records the requests and how
// many edits were applied when each came.
type confirmer struct {
	mu            sync.Mutex
	reqs          []protocol.CallConfirmation
	rec           *recorder
	appliedBefore int
}

func (c *confirmer) Confirm(_ context.Context, req protocol.CallConfirmation) (protocol.ConfirmDecision, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reqs = append(c.reqs, req)
	if c.rec != nil {
		c.rec.mu.Lock()
		c.appliedBefore += len(c.rec.edits)
		c.rec.mu.Unlock()
	}
	return protocol.ConfirmDecision{Verdict: protocol.VerdictApprove}, nil
}

// TestRuntimeCursorAgentAndInstancedEdits runs the protocol book editor on
// the real runtime with a scripted model (§ 6.2, § 6.3): the cursorAgent
// delegate reads two batches, notes evidence (one pointer outside the batch
// is refused), and answers into †state.search; a replace_text the editGate
// advisor votes down is denied by the guard (X4); then create_targets makes
// three instances, three paragraphEditor sub-runs each see one paragraph and
// the style guide (S5/I1-style isolation), and three replace_text calls wait
// for their own proposals through references, are shown for approval in one
// request (edit approval), and apply them.
func TestRuntimeCursorAgentAndInstancedEdits(t *testing.T) {
	src := append([]byte(nil), examples.Zvezdochkin...)
	src = append(src, "\n## Style guide\n\n- Keep the narrator's gentle irony.\n"...)
	env := bookEnv(t, src)
	// The pointers the script uses, found on a twin session of the same book.
	twin := Activities(bookEnv(t, src))
	mustRun(t, twin, CreateKeywordCursor, `{"keywords":["Звёздочкин"]}`, nil)
	b1 := items(mustRun(t, twin, ReadCursorBatch, `{"cursorName":"kwd_cursor_0"}`, nil))
	noted := b1[1]["pointer"].(string)
	ptrs, mds := paragraphs(t, twin, 3)

	s, ws := loadFiles(t)
	require.Empty(t, ws)
	rec := &recorder{}
	reg := &registry{acts: ActivitiesWith(env, Options{OnEdit: rec.onEdit}), agents: map[string]*protocol.Agent{}}
	reg.acts[AskUser] = protocol.ActivityFunc(func(context.Context, *protocol.Call, *protocol.Tool, protocol.Scoped) (protocol.Result, error) {
		return protocol.Result{Value: obj{"answer": "unused"}}, nil
	})
	for _, key := range []string{CursorAgentKey, ParagraphEditorKey} {
		reg.agents[key] = protocolAgent(t, s, key, env)
	}
	editor := protocolAgent(t, s, BookEditorProtocolKey, env)
	require.NoError(t, editor.Check(reg))

	var (
		mu          sync.Mutex
		parentTurn  int
		cursorFinal string // the cursor agent's last rendered context
		editorSeen  []string
	)
	model := llmtest.ScriptedFunc(func(req *llm.Request) llmtest.Reply {
		sys, user := systemText(req), userText(req)
		mu.Lock()
		defer mu.Unlock()
		switch {
		case strings.Contains(sys, "careful reader"): // cursorAgent
			batch, state := block(user, "¶batch"), block(user, "¶state")
			switch {
			case batch == nil:
				return reply(t, obj{"calls": []any{obj{"_tool": ReadCursorBatch, "_reasoningForCall": "start reading",
					"cursorName": "kwd_cursor_0", "startAfterPointer": nil}}, "output": nil})
			case state == nil:
				label := noted[strings.Index(noted, ":")+1:]
				return reply(t, obj{"calls": []any{
					obj{"_tool": NoteEvidence, "_reasoningForCall": "a match", "pointer": label, "reason": "the professor is named"},
					obj{"_tool": NoteEvidence, "_reasoningForCall": "a slip", "pointer": "9.9.p99", "reason": "not in the batch"},
					obj{"_tool": ReadCursorBatch, "_reasoningForCall": "read on", "cursorName": "kwd_cursor_0",
						"startAfterPointer": "†batch.nextAfterPointer"}}, "output": nil})
			default:
				cursorFinal = user
				found := state["found"].([]any)[0].(map[string]any)
				if found["markdown"] != b1[1]["markdown"] || len(state["found"].([]any)) != 1 {
					t.Errorf("state.found = %v", state["found"])
				}
				return reply(t, obj{"calls": []any{}, "output": obj{"found": true, "pointer": found["pointer"],
					"excerpt": "Звёздочкин", "whyThis": "the professor is named", "nextAfterPointer": batch["nextAfterPointer"]}})
			}
		case strings.Contains(sys, "You rewrite one item"): // paragraphEditor
			editorSeen = append(editorSeen, user)
			st := block(user, "¶state")
			return reply(t, obj{"output": obj{"newMarkdown": "FORMAL " + st["markdown"].(string)}})
		}
		parentTurn++
		switch parentTurn {
		case 1:
			return reply(t, obj{"advisors": gate("keepReading", `{"create_keyword_cursor":90}`),
				"calls": []any{obj{"_tool": CreateKeywordCursor, "_reasoningForCall": "find the name",
					"keywords": []any{"Звёздочкин"}, "includeHeadings": nil}}, "output": nil})
		case 2:
			return reply(t, obj{"advisors": gate("keepReading", `{"run_cursor_agent":85,"replace_text":5}`),
				"calls": []any{
					obj{"_tool": RunCursorAgent, "_reasoningForCall": "scan", "_scopes": []any{}, "cursorName": "kwd_cursor_0",
						"task": "a paragraph that names the professor", "context": nil, "startAfterPointer": nil, "maxEvidenceCount": nil},
					obj{"_tool": ReplaceText, "_reasoningForCall": "too early", "pointer": ptrs[0], "newMarkdown": "guessed"}},
				"output": nil})
		case 3:
			return reply(t, obj{"advisors": gate("edit", `{"create_targets":90}`),
				"calls": []any{obj{"_tool": CreateTargets, "_reasoningForCall": "three lines", "_instance": nil,
					"label": "professor lines", "pointers": []any{ptrs[0], ptrs[1], ptrs[2]}}}, "output": nil})
		case 4:
			var calls []any
			for _, id := range []string{"t1", "t2", "t3"} {
				calls = append(calls, obj{"_tool": RewriteParagraph, "_reasoningForCall": "rewrite", "_instance": id,
					"instruction": "make it more formal"})
			}
			for _, id := range []string{"t1", "t2", "t3"} {
				calls = append(calls, obj{"_tool": ReplaceText, "_reasoningForCall": "apply", "_instance": id,
					"pointer": "†state.pointer", "newMarkdown": "†state.proposal.newMarkdown"})
			}
			return reply(t, obj{"advisors": gate("edit", `{"rewrite_paragraph":80,"replace_text":70}`), "calls": calls, "output": nil})
		default:
			return reply(t, obj{"advisors": gate("edit", `{}`), "calls": []any{},
				"output": obj{"answer": fmt.Sprintf("Rewrote 3 paragraphs: %s, %s, %s.", ptrs[0], ptrs[1], ptrs[2])}})
		}
	})

	var (
		evMu   sync.Mutex
		starts []protocol.Event
		fails  = map[string]protocol.Code{}
	)
	conf := &confirmer{rec: rec}
	rt := &protocol.Runtime{Provider: func(string) (llm.Provider, error) { return model, nil }, Registry: reg, Confirmer: conf}
	input := agentctx.Message{Type: agentctx.TypeInput, Kind: "input", HasValue: true,
		Value: agentctx.NewObject("message", "Make the professor's lines more formal.")}
	res, err := rt.Run(context.Background(), editor, agentctx.Context{input}, protocol.RunOptions{RunID: "run", Sink: func(e protocol.Event) {
		evMu.Lock()
		defer evMu.Unlock()
		switch {
		case e.Type == protocol.EvRunStart && e.ParentToolID != "":
			starts = append(starts, e)
		case e.Type == protocol.EvToolResult && !e.OK:
			fails[e.ToolName+"@"+e.ToolID] = e.Code
		}
	}})
	require.NoError(t, err)
	require.Equal(t, protocol.FinishStop, res.FinishReason)
	require.True(t, res.HasOutput)
	require.Equal(t, 5, parentTurn)

	// The cursor agent: evidence with the item's full markdown, the slip refused.
	require.Contains(t, cursorFinal, "pointer 9.9.p99 is not in the current batch", "the refused pointer is reported to the cursor agent")
	require.Contains(t, cursorFinal, string(protocol.CodeActivityFailed))
	got, exists, err := agentctx.ReadString(res.Context.View(""), "†state.search")
	require.NoError(t, err)
	require.True(t, exists)
	sv := plain(t, got)
	require.Equal(t, true, sv["found"])
	require.Equal(t, noted, sv["pointer"])
	require.NotEmpty(t, sv["nextAfterPointer"])
	for _, req := range model.Requests() {
		if strings.Contains(systemText(req), "editing assistant") {
			require.Nil(t, block(userText(req), "¶batch"), "the child's batch stays in the child")
		}
	}

	// The guard denied the early replace_text (X4); the rest ran.
	failed := map[string]protocol.Code{}
	for k, c := range fails {
		failed[k[:strings.Index(k, "@")]] = c
	}
	require.Equal(t, map[string]protocol.Code{ReplaceText: protocol.CodeGuardDenied}, failed, "child tool events are not forwarded (DG6)")

	// Three sub-runs of paragraphEditor, each with only its own paragraph.
	var pe []protocol.Event
	for _, e := range starts {
		if strings.Contains(e.ParentToolID, "_call_4_") {
			pe = append(pe, e)
		}
	}
	require.Len(t, pe, 3)
	require.Len(t, editorSeen, 3)
	for _, e := range pe {
		var shape []string
		for _, m := range e.Context {
			shape = append(shape, string(m.Type)+":"+m.Kind)
		}
		require.Equal(t, []string{"system:", "data:styleGuide", "state:state", "input:input"}, shape, "§ 6.3 sub-run context")
		raw, err := json.Marshal(e.Context)
		require.NoError(t, err)
		text := string(raw)
		require.NotContains(t, text, "_instance")
		require.Contains(t, text, "Keep the narrator's gentle irony.", "the style guide reaches the paragraph editor")
		n := 0
		for _, md := range mds {
			if strings.Contains(text, md[:40]) {
				n++
			}
		}
		require.Equal(t, 1, n, "one paragraph per sub-run: %s", text)
	}

	// Edit approval: the three edits were shown together, in one request,
	// each with its resolved pointer and a preview (old and new Markdown),
	// before any of them was applied.
	require.Len(t, conf.reqs, 1, "one approval for the three instanced edits")
	req := conf.reqs[0]
	require.Len(t, req.Calls, 3)
	require.Equal(t, "calls:run_call_4_3", req.ApprovalID)
	require.Zero(t, conf.appliedBefore, "nothing was applied before the approval")
	for i, c := range req.Calls {
		require.Equal(t, ReplaceText, c.Tool)
		require.Equal(t, fmt.Sprintf("t%d", i+1), c.Instance)
		pv := plain(t, c.Preview)
		require.Equal(t, map[string]any{"pointer": ptrs[i], "op": "replace", "oldMarkdown": mds[i], "newMarkdown": "FORMAL " + mds[i]}, pv)
	}

	// The three edits applied, each with its own proposal.
	require.Len(t, rec.edits, 3)
	for i, p := range ptrs {
		it, err := env.Session.Resolve(env.Book, p)
		require.NoError(t, err)
		require.Equal(t, "FORMAL "+mds[i], it.Markdown)
	}
	for _, e := range rec.edits {
		require.True(t, strings.HasPrefix(e.After, "FORMAL "))
	}
}
