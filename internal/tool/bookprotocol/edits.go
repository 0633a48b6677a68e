package bookprotocol

import (
	"context"
	"errors"
	"strings"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/agent/protocol"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/tool"
	"github.com/aitexteditor/aite/internal/tool/booktools"
)

// editParams are the parameters of the four edit activities; Markdown holds
// newMarkdown (replace_text) or markdown (the inserts).
type editParams struct {
	Pointer     *string `json:"pointer"`
	NewMarkdown *string `json:"newMarkdown"`
	Markdown    *string `json:"markdown"`
}

// edit returns the activity of one pointer-addressed domain operation,
// run through the booktools tool name (structural checks and error texts
// are booktools' and the editor's). mdParam names the Markdown parameter
// ("" for delete_item); op is the operation, for the preview.
//
// The value is {ok, op, target, pointer?, oldMarkdown, newMarkdown}: target
// is the pointer the call named (as it was before the edit), pointer the
// affected item after it (absent for a delete), oldMarkdown / newMarkdown
// the item's Markdown before and after ("" for an insert's old text and a
// delete's new one). Every applied edit is also handed to Options.OnEdit.
//
// The activity is a protocol.Previewer: for the edit approval it tells
// what the call would do without doing it, {pointer, op, oldMarkdown,
// newMarkdown} (pointer = the target), with the editor's own checks (a
// refused edit fails the preview with the same *Error as the edit).
func (b *binding) edit(name, mdParam string, op document.Op) protocol.Activity {
	return &editActivity{b: b, name: name, mdParam: mdParam, op: op}
}

// editActivity is one edit operation (see binding.edit).
type editActivity struct {
	b       *binding
	name    string // the booktools tool
	mdParam string // "newMarkdown", "markdown" or ""
	op      document.Op
}

// params checks the call's parameters: the pointer, and the Markdown when
// the operation takes one.
func (a *editActivity) params(call *protocol.Call) (ptr string, md *string, err error) {
	var p editParams
	if err := args(call, &p); err != nil {
		return "", nil, err
	}
	if p.Pointer == nil || strings.TrimSpace(*p.Pointer) == "" {
		return "", nil, errorf("invalid_arguments", "%s needs a pointer to the item to change", toolName(call))
	}
	if a.mdParam == "" {
		return *p.Pointer, nil, nil
	}
	md = p.Markdown
	if a.mdParam == "newMarkdown" {
		md = p.NewMarkdown
	}
	if md == nil {
		return "", nil, errorf("invalid_arguments", "%s needs %s, the new Markdown of exactly one block", toolName(call), a.mdParam)
	}
	return *p.Pointer, md, nil
}

// Run implements protocol.Activity: it applies the edit.
func (a *editActivity) Run(ctx context.Context, call *protocol.Call, _ *protocol.Tool, _ protocol.Scoped) (protocol.Result, error) {
	ptr, md, err := a.params(call)
	if err != nil {
		return protocol.Result{}, err
	}
	params := map[string]string{"pointer": ptr}
	if md != nil {
		params["markdown"] = *md
	}
	res, err := a.b.call(ctx, a.name, params)
	if err != nil {
		return protocol.Result{}, err
	}
	for _, e := range res.Edits {
		tool.ReportEdit(ctx, e)
		if a.b.opt.OnEdit != nil {
			a.b.opt.OnEdit(ctx, call, e)
		}
	}
	return protocol.Result{Value: editValue(res.Edits)}, nil
}

// Preview implements protocol.Previewer: the edit as it would be applied
// now, nothing changed.
func (a *editActivity) Preview(_ context.Context, call *protocol.Call, _ *protocol.Tool, _ protocol.Scoped) (any, error) {
	ptr, md, err := a.params(call)
	if err != nil {
		return nil, err
	}
	if a.b.env.Session == nil {
		return nil, errors.New("no book is open for the book tools")
	}
	text := ""
	if md != nil {
		text = *md
	}
	res, err := a.b.env.Session.PreviewEdit(a.b.env.Book, a.op, ptr, text)
	if err != nil {
		r, ferr := booktools.Failure(err)
		if ferr != nil {
			return nil, ferr
		}
		return nil, &Error{Code: r.Code, Message: r.Text}
	}
	return agentctx.NewObject(tool.EditPreview{Pointer: res.Target.String(), Op: string(res.Op),
		OldMarkdown: res.MarkdownBefore, NewMarkdown: res.MarkdownAfter}.Pairs()...), nil
}

// editValue is the model- and UI-facing value of an applied edit.
func editValue(edits []tool.Edit) *agentctx.Object {
	out := agentctx.NewObject("ok", true)
	if len(edits) == 0 {
		return out
	}
	e := edits[0]
	out.Set("op", e.Op)
	out.Set("target", e.Pointer)
	if e.NewPointer != "" {
		out.Set("pointer", e.NewPointer)
	}
	out.Set("oldMarkdown", e.Before)
	out.Set("newMarkdown", e.After)
	return out
}

// toolName names the call's tool in messages.
func toolName(call *protocol.Call) string {
	if call == nil || call.Tool == "" {
		return "the edit"
	}
	return call.Tool
}
