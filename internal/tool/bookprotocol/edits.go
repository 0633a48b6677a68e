package bookprotocol

import (
	"context"
	"strings"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/agent/protocol"
	"github.com/aitexteditor/aite/internal/tool"
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
// ("" for delete_item).
//
// The value is {ok, op, target, pointer?, oldMarkdown, newMarkdown}: target
// is the pointer the call named (as it was before the edit), pointer the
// affected item after it (absent for a delete), oldMarkdown / newMarkdown
// the item's Markdown before and after ("" for an insert's old text and a
// delete's new one). Every applied edit is also handed to Options.OnEdit.
func (b *binding) edit(name, mdParam string) protocol.Activity {
	return protocol.ActivityFunc(func(ctx context.Context, call *protocol.Call, _ *protocol.Tool, _ protocol.Scoped) (protocol.Result, error) {
		var p editParams
		if err := args(call, &p); err != nil {
			return protocol.Result{}, err
		}
		if p.Pointer == nil || strings.TrimSpace(*p.Pointer) == "" {
			return protocol.Result{}, errorf("invalid_arguments", "%s needs a pointer to the item to change", toolName(call))
		}
		params := map[string]string{"pointer": *p.Pointer}
		if mdParam != "" {
			md := p.Markdown
			if mdParam == "newMarkdown" {
				md = p.NewMarkdown
			}
			if md == nil {
				return protocol.Result{}, errorf("invalid_arguments", "%s needs %s, the new Markdown of exactly one block", toolName(call), mdParam)
			}
			params["markdown"] = *md
		}
		res, err := b.call(ctx, name, params)
		if err != nil {
			return protocol.Result{}, err
		}
		if b.opt.OnEdit != nil {
			for _, e := range res.Edits {
				b.opt.OnEdit(ctx, call, e)
			}
		}
		return protocol.Result{Value: editValue(res.Edits)}, nil
	})
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
