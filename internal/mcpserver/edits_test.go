package mcpserver

import (
	"context"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/cursoragent"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
	"github.com/aitexteditor/aite/internal/tool/booktools"
)

// The protocol versions the Go SDK speaks; 2026-07-28 approves through a
// multi-round-trip request, the others through a server-to-client
// elicitation.
var protocolVersions = []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

const intro = "Эта история случилась в маленьком городке Верхние Ключи"

// TestApprovalByElicitation: on every protocol version, an edit asks the
// user with the diff; accepted, it is written to the file (backup, undo
// journal) and reports the pointers before and after; declined, nothing
// changes and the model is told so.
func TestApprovalByElicitation(t *testing.T) {
	for _, version := range protocolVersions {
		t.Run(version, func(t *testing.T) {
			lib, path := fileLibrary(t)
			var asked []*mcp.ElicitParams
			cs := connect(t, lib, Options{}, accepting(&asked, "accept", nil), version)
			res := call(t, cs, "editor-replace_text", map[string]any{"pointer": "2:1.p1", "markdown": "Новое вступление."})
			got := object(t, res)
			require.Equal(t, map[string]any{"applied": true, "op": "replace", "pointerBefore": "2:1.p1", "pointerAfter": "2:1.p1",
				"diff": got["diff"]}, got)
			require.Contains(t, got["diff"], "-"+intro)
			require.Contains(t, got["diff"], "+Новое вступление.")
			require.Len(t, asked, 1)
			require.Equal(t, "form", asked[0].Mode)
			require.Contains(t, asked[0].Message, "Replace the item 2:1.p1")
			require.Contains(t, asked[0].Message, got["diff"], "the user approves the diff the result reports")

			book := readFile(t, path)
			require.Contains(t, book, "\nНовое вступление.\n")
			require.NotContains(t, book, intro)
			require.Contains(t, readFile(t, path+".bak"), intro, "the previous version is kept")
			c, err := editor.UndoCommand(path, false, false)
			require.NoError(t, err, "the edit is journaled for aite undo")
			require.Equal(t, "mcp replace 2:1.p1", c.Label)
			require.Contains(t, readFile(t, path), intro)
		})
	}
}

func TestDeclinedEditChangesNothing(t *testing.T) {
	for _, version := range []string{"2026-07-28", "2025-06-18"} {
		t.Run(version, func(t *testing.T) {
			lib, path := fileLibrary(t)
			before := readFile(t, path)
			var asked []*mcp.ElicitParams
			cs := connect(t, lib, Options{}, accepting(&asked, "decline", map[string]any{"comment": "keep the town's name"}), version)
			code, text := failureOf(t, call(t, cs, "editor-delete", map[string]any{"pointer": "2"}))
			require.Equal(t, "declined", code)
			require.Contains(t, text, "nothing changed")
			require.Contains(t, text, `"keep the town's name"`)
			require.Contains(t, asked[0].Message, "Delete the item 2:1.p1")
			require.Equal(t, before, readFile(t, path))
			_, err := os.Stat(path + ".bak")
			require.ErrorIs(t, err, os.ErrNotExist, "nothing was written")
		})
	}
}

// TestRefusedEditIsNeverAsked: an edit the book refuses is refused before
// the user sees it.
func TestRefusedEditIsNeverAsked(t *testing.T) {
	lib, _ := fileLibrary(t)
	var asked []*mcp.ElicitParams
	cs := connect(t, lib, Options{}, accepting(&asked, "accept", nil), "")
	code, text := failureOf(t, call(t, cs, "editor-replace_text", map[string]any{"pointer": "2", "markdown": "one\n\ntwo"}))
	require.Equal(t, "refused", code, text)
	require.Empty(t, asked)
}

// TestEditToolWithoutElicitationProposes: a client that cannot elicit and
// calls an edit tool anyway gets a proposal; nothing is written blind.
func TestEditToolWithoutElicitationProposes(t *testing.T) {
	lib, path := fileLibrary(t)
	before := readFile(t, path)
	cs := connect(t, lib, Options{}, nil, "")
	got := object(t, call(t, cs, "editor-replace_text", map[string]any{"pointer": "2", "markdown": "Новое."}))
	require.Equal(t, false, got["applied"])
	require.Equal(t, "ID1", got["proposalId"])
	require.Equal(t, before, readFile(t, path))
}

// TestProposeApplyRoundTrip: propose returns the diff and changes nothing;
// apply_edit applies exactly that edit, once.
func TestProposeApplyRoundTrip(t *testing.T) {
	lib, path := fileLibrary(t)
	before := readFile(t, path)
	cs := connect(t, lib, Options{}, nil, "")
	got := object(t, call(t, cs, "propose_insert_after", map[string]any{"pointer": "1.1.p2", "markdown": "Новый абзац после телеграммы."}))
	require.Equal(t, "ID1", got["proposalId"])
	require.Equal(t, "5:1.1.p2", got["pointer"])
	require.Equal(t, "insert_after", got["op"])
	require.Contains(t, got["diff"], "+Новый абзац после телеграммы.")
	require.Contains(t, got["diff"], "@@ -", "a unified diff with line numbers")
	require.Equal(t, before, readFile(t, path), "proposing writes nothing")

	done := object(t, call(t, cs, ToolApplyEdit, map[string]any{"proposalId": "ID1"}))
	require.Equal(t, true, done["applied"])
	require.Equal(t, "5:1.1.p2", done["pointerBefore"])
	require.Equal(t, "107:1.1.p3", done["pointerAfter"], "a new item gets a fresh ID")
	require.Equal(t, got["diff"], done["diff"])
	require.Contains(t, readFile(t, path), "\n\nНовый абзац после телеграммы.\n\n")

	code, _ := failureOf(t, call(t, cs, ToolApplyEdit, map[string]any{"proposalId": "ID1"}))
	require.Equal(t, "not_found", code, "a proposal is applied once")
}

// TestStaleProposalIsRefused: when the item changed after the proposal,
// apply_edit applies nothing.
func TestStaleProposalIsRefused(t *testing.T) {
	lib, path := fileLibrary(t)
	cs := connect(t, lib, Options{}, nil, "")
	first := object(t, call(t, cs, "propose_replace_text", map[string]any{"pointer": "2", "markdown": "Первый вариант."}))
	second := object(t, call(t, cs, "propose_replace_text", map[string]any{"pointer": "2", "markdown": "Второй вариант."}))
	object(t, call(t, cs, ToolApplyEdit, map[string]any{"proposalId": second["proposalId"]}))
	after := readFile(t, path)
	code, text := failureOf(t, call(t, cs, ToolApplyEdit, map[string]any{"proposalId": first["proposalId"]}))
	require.Equal(t, "changed", code, text)
	require.Equal(t, after, readFile(t, path))
	require.Contains(t, after, "Второй вариант.")
}

// TestProposalsArePerScope: one caller cannot apply another's proposal.
func TestProposalsArePerScope(t *testing.T) {
	lib, path := fileLibrary(t)
	st, _ := testState()
	alice := connect(t, lib, Options{Scope: "alice", State: st}, nil, "")
	bob := connect(t, lib, Options{Scope: "bob", State: st}, nil, "")
	p := object(t, call(t, alice, "propose_delete", map[string]any{"pointer": "4"}))
	code, _ := failureOf(t, call(t, bob, ToolApplyEdit, map[string]any{"proposalId": p["proposalId"]}))
	require.Equal(t, "not_found", code)
	object(t, call(t, alice, ToolApplyEdit, map[string]any{"proposalId": p["proposalId"]}))
	require.NotContains(t, readFile(t, path), "Поезд из губернского города")
}

// TestBookChangedOnDisk: an edit made outside the server is not written
// over; the next call says the book was read again, and the one after
// works on the new text.
func TestBookChangedOnDisk(t *testing.T) {
	lib, path := fileLibrary(t)
	cs := connect(t, lib, Options{}, nil, "")
	text := strings.Replace(readFile(t, path), intro, "Совсем другое начало", 1)
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	require.NoError(t, os.Chtimes(path, lib.stamp.mod.Add(1e9), lib.stamp.mod.Add(1e9)))

	code, msg := failureOf(t, call(t, cs, "propose_replace_text", map[string]any{"pointer": "2", "markdown": "x"}))
	require.Equal(t, "changed", code)
	require.Contains(t, msg, "changed on disk")
	code, msg = failureOf(t, call(t, cs, "editor-read", map[string]any{"pointer": "2:1.p1"}))
	require.Equal(t, "not_found", code, "the rewritten item has a new ID: its old pointer names nothing")
	require.Contains(t, msg, "no longer exists")
	got := object(t, call(t, cs, "editor-read", map[string]any{"pointer": "1.p1"}))
	require.Contains(t, got["items"].([]any)[0].(map[string]any)["markdown"], "Совсем другое начало")
	got = object(t, call(t, cs, "editor-read", map[string]any{"pointer": "3:1.1"}))
	require.Equal(t, "3:1.1", got["items"].([]any)[0].(map[string]any)["pointer"], "an unchanged item keeps its pointer")
	require.Equal(t, text, readFile(t, path))
}

func TestUnknownBookToolIsAResult(t *testing.T) {
	lib, _ := fileLibrary(t)
	res, err := lib.Call(context.Background(), "no-such-tool", nil, nil)
	require.NoError(t, err)
	require.Equal(t, "tool_not_enabled", res.Code)
}

// TestMultiRoundTripApproval drives the 2026-07-28 approval by hand: the
// call returns an input request whose state is the edit's fingerprint; a
// retry with the answer applies it; a retry after the book changed is
// asked again about the edit as it is now.
func TestMultiRoundTripApproval(t *testing.T) {
	lib, path := fileLibrary(t)
	var asked []*mcp.ElicitParams
	copts := accepting(&asked, "accept", nil)
	copts.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true}
	cs := connect(t, lib, Options{}, copts, "2026-07-28")
	ctx := context.Background()
	args := map[string]any{"pointer": "2", "markdown": "Новое вступление."}
	first, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "editor-replace_text", Arguments: args})
	require.NoError(t, err)
	require.True(t, first.NeedsInput())
	ask, ok := first.InputRequests[approvalKey].(*mcp.ElicitParams)
	require.True(t, ok)
	require.Contains(t, ask.Message, "+Новое вступление.")
	require.NotEmpty(t, first.RequestState)
	require.Contains(t, readFile(t, path), intro, "asking writes nothing")

	accept := mcp.InputResponseMap{approvalKey: &mcp.ElicitResult{Action: "accept"}}
	forged, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "editor-replace_text", Arguments: args,
		InputResponses: accept, RequestState: "not-the-edit-that-was-shown"})
	require.NoError(t, err)
	require.True(t, forged.NeedsInput(), "an answer about another edit is asked again")
	require.Contains(t, readFile(t, path), intro)

	done, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "editor-replace_text", Arguments: args,
		InputResponses: accept, RequestState: first.RequestState})
	require.NoError(t, err)
	require.False(t, done.NeedsInput())
	require.Equal(t, true, object(t, done)["applied"])
	require.NotContains(t, readFile(t, path), intro)
	require.Empty(t, asked, "the test answered itself; the client's handler was never used")
}

// TestProgressIsForwarded: the cursor agent's batch reports reach a client
// that sent a progress token.
func TestProgressIsForwarded(t *testing.T) {
	path := sampleBook(t)
	reply := `{"action":"continue","batchFound":false,"newEvidence":[],"progress":"nothing yet"}`
	agent := &cursoragent.Agent{Provider: llmtest.ScriptedFunc(func(*llm.Request) llmtest.Reply { return llmtest.Text(reply) }), Model: "fake"}
	lib, err := OpenFile(path, testIO, agent)
	require.NoError(t, err)
	var mu sync.Mutex
	var notes []string
	arrived := make(chan struct{}, 100)
	cs := connect(t, lib, Options{CursorAgent: true}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			notes = append(notes, req.Params.Message)
			mu.Unlock()
			arrived <- struct{}{}
		}}, "")
	cursor := object(t, call(t, cs, "cursor-create_keyword_cursor", map[string]any{"keywords": []string{"Варя"}}))
	params := &mcp.CallToolParams{Name: booktools.ToolRunCursorAgent,
		Arguments: map[string]any{"cursorName": cursor["cursorName"], "taskDescription": "where Varya laughs"}}
	params.SetProgressToken("walk")
	res, err := cs.CallTool(context.Background(), params)
	require.NoError(t, err)
	got := object(t, res)
	require.Equal(t, false, got["success"])
	require.Equal(t, true, got["cursorComplete"])
	// The server sends its notifications before the result; the client
	// SDK may hand them to the handler after it returned the result.
	for range 2 {
		select {
		case <-arrived:
		case <-time.After(10 * time.Second):
			t.Fatal("fewer than two progress notifications arrived")
		}
	}
	mu.Lock()
	seen := slices.Clone(notes)
	mu.Unlock()
	require.True(t, slices.ContainsFunc(seen, func(n string) bool { return strings.Contains(n, "batch 1 of ~") }),
		"the first batch is reported: %q", seen)

	code, text := failureOf(t, call(t, cs, booktools.ToolRunCursorAgent, map[string]any{"cursorName": "nope", "taskDescription": "x"}))
	require.Equal(t, "invalid_arguments", code)
	require.Contains(t, text, "not defined")
	code, _ = failureOf(t, call(t, cs, booktools.ToolRunCursorAgent, map[string]any{"cursorName": cursor["cursorName"], "taskDescription": "x", "mode": "Second"}))
	require.Equal(t, "invalid_arguments", code)
}

// TestUnwritableEditIsNotApplied: when the book cannot be written, the
// approved edit is undone in memory and reported as not applied.
func TestUnwritableEditIsNotApplied(t *testing.T) {
	path := sampleBook(t)
	io := testIO
	io.Save = func(*editor.Session, string, string) error { return os.ErrPermission }
	lib, err := OpenFile(path, io, nil)
	require.NoError(t, err)
	cs := connect(t, lib, Options{}, nil, "")
	p := object(t, call(t, cs, "propose_replace_text", map[string]any{"pointer": "2", "markdown": "Новое."}))
	code, text := failureOf(t, call(t, cs, ToolApplyEdit, map[string]any{"proposalId": p["proposalId"]}))
	require.Equal(t, "tool_failed", code)
	require.Contains(t, text, "not applied")
	got := object(t, call(t, cs, "editor-read", map[string]any{"pointer": "2"}))
	require.Contains(t, got["items"].([]any)[0].(map[string]any)["markdown"], intro, "the edit was undone in memory")
	require.Contains(t, readFile(t, path), intro)
}

// TestPointersHoldAcrossServers: a pointer an MCP edit reported names the
// same item for the next `aite mcp` (and every other command) on the book,
// because the IDs are recorded beside the book like every command's.
func TestPointersHoldAcrossServers(t *testing.T) {
	lib, path := fileLibrary(t)
	cs := connect(t, lib, Options{}, accepting(new([]*mcp.ElicitParams), "accept", nil), "")
	got := object(t, call(t, cs, "editor-insert_after", map[string]any{"pointer": "2:1.p1", "markdown": "Вставленный абзац."}))
	inserted := got["pointerAfter"].(string)
	later := object(t, call(t, cs, "editor-read", map[string]any{"pointer": "4:1.1.p1"}))["items"].([]any)[0].(map[string]any)

	again, err := OpenFile(path, testIO, nil)
	require.NoError(t, err)
	cs2 := connect(t, again, Options{}, nil, "")
	item := object(t, call(t, cs2, "editor-read", map[string]any{"pointer": inserted}))["items"].([]any)[0].(map[string]any)
	require.Equal(t, inserted, item["pointer"])
	require.Equal(t, "Вставленный абзац.", item["markdown"])
	item = object(t, call(t, cs2, "editor-read", map[string]any{"pointer": later["pointer"]}))["items"].([]any)[0].(map[string]any)
	require.Equal(t, later["markdown"], item["markdown"], "an item after the insertion keeps its ID and label")
}
