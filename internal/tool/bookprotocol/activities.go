package bookprotocol

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/agent/protocol"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/tool"
	"github.com/aitexteditor/aite/internal/tool/booktools"
)

// Activity names: the tool names of the book editor's backends and of the
// cursor agent's tools (AGENT_PROTOCOL § 6).
const (
	ReadCursorBatch       = "read_cursor_batch"
	NoteEvidence          = "note_evidence"
	CreateKeywordCursor   = "create_keyword_cursor"
	CreateFullScanCursor  = "create_full_scan_cursor"
	CreateFilteredCursor  = "create_filtered_cursor"
	Read                  = "read"
	CreateTargets         = "create_targets"
	ReplaceText           = "replace_text"
	InsertAfter           = "insert_after"
	InsertBefore          = "insert_before"
	DeleteItem            = "delete_item"
	RunCursorAgent        = "run_cursor_agent"
	RewriteParagraph      = "rewrite_paragraph"
	AskUser               = "ask_user"
	CursorAgentKey        = "cursorAgent"
	ParagraphEditorKey    = "paragraphEditor"
	BookEditorProtocolKey = "bookEditorProtocol"
)

// Options tune the activities for a host.
type Options struct {
	// Tools runs the reused book operations (the cursor constructors, read
	// and the four edit operations) through these booktools tools, keyed by
	// their lowercase booktools name ("editor-replace_text", …), as the
	// server's Documents.BookTools returns them (under the document lock,
	// with every applied edit persisted and its Revision set). Names absent
	// from the map fall back to booktools.Tools(env).
	Tools map[string]tool.Tool
	// OnEdit observes every applied edit with the call that made it; the
	// server emits document.edit from it (call.ToolID is the tool id of the
	// stream). It runs before the activity returns, on the activity's
	// goroutine: parallel calls may run it concurrently.
	OnEdit func(ctx context.Context, call *protocol.Call, e tool.Edit)
}

// Error is a failure the model can act on: a bad pointer, a pointer that is
// not in the batch, a refused edit, an unknown cursor. Code classifies it
// like booktools' error results (not_found, refused, invalid_arguments,
// tool_failed); Message is the sentence the model reads. The runtime feeds
// it back as an activity_failed error; nothing is written.
type Error struct {
	Code    string
	Message string
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

func errorf(code, format string, args ...any) error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Activities returns the book activities bound to env, by tool name:
// read_cursor_batch, note_evidence, create_keyword_cursor,
// create_full_scan_cursor, create_filtered_cursor, read, create_targets,
// replace_text, insert_after, insert_before and delete_item.
func Activities(env booktools.Env) map[string]protocol.Activity {
	return ActivitiesWith(env, Options{})
}

// ActivitiesWith is Activities with host options.
func ActivitiesWith(env booktools.Env, opt Options) map[string]protocol.Activity {
	b := &binding{env: env, opt: opt, tools: map[string]tool.Tool{}}
	for _, t := range booktools.Tools(env) {
		b.tools[strings.ToLower(t.Name())] = t
	}
	for name, t := range opt.Tools {
		b.tools[strings.ToLower(name)] = t
	}
	return map[string]protocol.Activity{
		ReadCursorBatch:      protocol.ActivityFunc(b.readCursorBatch),
		NoteEvidence:         protocol.ActivityFunc(b.noteEvidence),
		CreateKeywordCursor:  b.reuse("cursor-create_keyword_cursor"),
		CreateFullScanCursor: b.reuse("cursor-create_full_scan_cursor"),
		CreateFilteredCursor: b.reuse("cursor-create_filtered_cursor"),
		Read:                 b.reuse("editor-read"),
		CreateTargets:        protocol.ActivityFunc(b.createTargets),
		ReplaceText:          b.edit("editor-replace_text", "newMarkdown", document.OpReplace),
		InsertAfter:          b.edit("editor-insert_after", "markdown", document.OpInsertAfter),
		InsertBefore:         b.edit("editor-insert_before", "markdown", document.OpInsertBefore),
		DeleteItem:           b.edit("editor-delete", "", document.OpDelete),
	}
}

// ActivityNames returns the names of the activities, sorted: the Go
// backends the protocol agents' tool files name.
func ActivityNames() []string {
	var out []string
	for name := range Activities(booktools.Env{}) {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// binding is the activities' shared state: the env and the booktools tools.
type binding struct {
	env   booktools.Env
	opt   Options
	tools map[string]tool.Tool
}

// args decodes a call's parameters into v.
func args(call *protocol.Call, v any) error {
	if call == nil || call.Args == nil {
		return json.Unmarshal([]byte("{}"), v)
	}
	data, err := agentctx.Encode(call.Args)
	if err == nil {
		err = json.Unmarshal(data, v)
	}
	if err != nil {
		return errorf("invalid_arguments", "the arguments do not fit the tool: %v", err)
	}
	return nil
}

// call runs one booktools tool; an error result becomes an *Error.
func (b *binding) call(ctx context.Context, name string, params any) (tool.Result, error) {
	t, ok := b.tools[name]
	if !ok {
		return tool.Result{}, fmt.Errorf("book tool %s is not available", name)
	}
	if b.env.Session == nil {
		return tool.Result{}, errors.New("no book is open for the book tools")
	}
	data, err := json.Marshal(params)
	if err != nil {
		return tool.Result{}, err
	}
	res, err := t.Call(ctx, data)
	if err != nil {
		return tool.Result{}, err
	}
	if res.IsError {
		code := res.Code
		if code == "" {
			code = "tool_failed"
		}
		return res, &Error{Code: code, Message: res.Text}
	}
	return res, nil
}

// reuse runs a booktools tool with the call's parameters as they are and
// returns its JSON result as the value.
func (b *binding) reuse(name string) protocol.Activity {
	return protocol.ActivityFunc(func(ctx context.Context, call *protocol.Call, _ *protocol.Tool, _ protocol.Scoped) (protocol.Result, error) {
		var p map[string]any
		if err := args(call, &p); err != nil {
			return protocol.Result{}, err
		}
		for k, v := range p {
			if v == nil {
				delete(p, k) // a null optional parameter means "not given"
			}
		}
		res, err := b.call(ctx, name, p)
		if err != nil {
			return protocol.Result{}, err
		}
		v, err := agentctx.Decode([]byte(res.Text))
		if err != nil {
			return protocol.Result{}, fmt.Errorf("book tool %s returned no JSON: %w", name, err)
		}
		return protocol.Result{Value: v}, nil
	})
}
