package booktools

import (
	"context"
	_ "embed"
	"encoding/json"
	"strings"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/tool"
)

var (
	//go:embed read.md
	readDoc string
	//go:embed replace_text.md
	replaceDoc string
	//go:embed insert_before.md
	insertBeforeDoc string
	//go:embed insert_after.md
	insertAfterDoc string
	//go:embed delete.md
	deleteDoc string
	//go:embed create_targets.md
	targetsDoc string
	//go:embed get_default_document_id.md
	defaultDocumentDoc string
	//go:embed show_user_message.md
	showMessageDoc string
)

// The names of the edit tools.
const (
	ToolReplaceText  = "editor-replace_text"
	ToolInsertBefore = "editor-insert_before"
	ToolInsertAfter  = "editor-insert_after"
	ToolDelete       = "editor-delete"
)

// editOps maps each edit tool to the domain operation it applies.
var editOps = map[string]document.Op{
	ToolReplaceText: document.OpReplace, ToolInsertBefore: document.OpInsertBefore,
	ToolInsertAfter: document.OpInsertAfter, ToolDelete: document.OpDelete,
}

// EditOp returns the domain operation of an edit tool, and false for the
// tools that do not edit. Hosts that show an edit before it is applied use
// it with the tool's arguments (pointer, and markdown except for a delete).
func EditOp(name string) (document.Op, bool) {
	op, ok := editOps[name]
	return op, ok
}

type readParams struct {
	Pointer string `json:"pointer" jsonschema:"the item to read"`
	Before  int    `json:"before,omitempty" default:"0" jsonschema:"items to show before it, 0..200"`
	After   int    `json:"after,omitempty" default:"0" jsonschema:"items to show after it, 0..200"`
}

type editParams struct {
	Pointer  string `json:"pointer" jsonschema:"the item to change, or the item next to which to insert"`
	Markdown string `json:"markdown" jsonschema:"the new Markdown of exactly one block"`
}

type deleteParams struct {
	Pointer string `json:"pointer" jsonschema:"the item to delete"`
}

type targetsParams struct {
	Label    string   `json:"label" jsonschema:"a name for the target set"`
	Pointers []string `json:"pointers" jsonschema:"the items to keep"`
}

type messageParams struct {
	Message string `json:"message" jsonschema:"the message to show"`
}

type noParams struct{}

type itemOut struct {
	Pointer  string `json:"pointer"`
	Kind     string `json:"kind"`
	Markdown string `json:"markdown"`
}

func read(env Env) tool.Tool {
	return tool.Must("editor-read", readDoc, func(_ context.Context, p readParams) (tool.Result, error) {
		v, err := env.Session.Read(env.Book, p.Pointer, p.Before, p.After)
		if err != nil {
			return failure(err)
		}
		items := make([]itemOut, len(v.Items))
		ids := make([]int, len(v.Items))
		for i, it := range v.Items {
			items[i] = itemOut{Pointer: it.Pointer.String(), Kind: string(it.Kind), Markdown: it.Markdown}
			ids[i] = it.ID
		}
		out := map[string]any{"target": v.Target.String(), "items": items}
		cx, err := env.Session.CodexContext(env.Book, ids)
		if err != nil {
			return failure(err)
		}
		if len(cx) > 0 {
			out["codex"] = cx
		}
		return ok(out), nil
	})
}

func editTool(env Env, name, doc string, op document.Op) tool.Tool {
	return tool.Must(name, doc, func(_ context.Context, p editParams) (tool.Result, error) {
		return edit(env, op, p.Pointer, p.Markdown)
	})
}

func replaceText(env Env) tool.Tool {
	return editTool(env, ToolReplaceText, replaceDoc, editOps[ToolReplaceText])
}
func insertBefore(env Env) tool.Tool {
	return editTool(env, ToolInsertBefore, insertBeforeDoc, editOps[ToolInsertBefore])
}
func insertAfter(env Env) tool.Tool {
	return editTool(env, ToolInsertAfter, insertAfterDoc, editOps[ToolInsertAfter])
}

func deleteItem(env Env) tool.Tool {
	return tool.Must(ToolDelete, deleteDoc, func(_ context.Context, p deleteParams) (tool.Result, error) {
		return edit(env, editOps[ToolDelete], p.Pointer, "")
	})
}

// IsEdit reports whether the tool named name applies edits.
func IsEdit(name string) bool {
	_, ok := EditOp(name)
	return ok
}

// Preview tells what a call of the edit tool named name with args would do,
// changing nothing (editor.Session.PreviewEdit: the same checks as the
// edit): a result whose text is {"pointer", "op", "oldMarkdown",
// "newMarkdown"}, or the error result the call itself would give (bad
// arguments, a bad pointer, a refused edit). It is an error result for a
// tool that is not an edit tool.
func Preview(env Env, name string, args json.RawMessage) (tool.Result, error) {
	op, known := editOps[name]
	if !known {
		return tool.Errorf("invalid_arguments", "%s does not edit the book", name), nil
	}
	var p editParams
	if err := json.Unmarshal(args, &p); err != nil || strings.TrimSpace(p.Pointer) == "" {
		return tool.Errorf("invalid_arguments", "the arguments need a pointer (and markdown for a new text)"), nil
	}
	res, err := env.Session.PreviewEdit(env.Book, op, p.Pointer, p.Markdown)
	if err != nil {
		return failure(err)
	}
	return ok(tool.EditPreview{Pointer: res.Target.String(), Op: string(res.Op),
		OldMarkdown: res.MarkdownBefore, NewMarkdown: res.MarkdownAfter}), nil
}

// edit applies one domain operation and reports it as a result and an Edit.
func edit(env Env, op document.Op, ptr, md string) (tool.Result, error) {
	res, err := env.Session.Edit(env.Book, op, ptr, md)
	if err != nil {
		return failure(err)
	}
	e := tool.Edit{Book: env.Book, Op: string(op), Pointer: res.Target.String(), Before: res.MarkdownBefore, After: res.MarkdownAfter}
	out := map[string]any{"ok": true, "op": op, "target": res.Target.String()}
	if op != document.OpDelete {
		e.NewPointer = res.Pointer.String()
		out["pointer"] = e.NewPointer
		out["markdown"] = res.MarkdownAfter
	} else {
		out["deletedMarkdown"] = res.MarkdownBefore
	}
	r := ok(out)
	r.Edits = []tool.Edit{e}
	return r, nil
}

func createTargets(env Env) tool.Tool {
	return tool.Must("editor-create_targets", targetsDoc, func(_ context.Context, p targetsParams) (tool.Result, error) {
		rep, err := env.Session.CreateTargets(env.Book, p.Label, p.Pointers)
		if err != nil {
			return failure(err)
		}
		return ok(rep), nil
	})
}

func defaultDocument(env Env) tool.Tool {
	return tool.Must("editor-get_default_document_id", defaultDocumentDoc, func(context.Context, noParams) (tool.Result, error) {
		return ok(map[string]string{"documentId": env.Book}), nil
	})
}

func showUserMessage(env Env) tool.Tool {
	return tool.Must("editor-show_user_message", showMessageDoc, func(ctx context.Context, p messageParams) (tool.Result, error) {
		tool.Report(ctx, tool.Progress{Tool: "editor-show_user_message", Kind: "user_message", Message: p.Message})
		return ok(map[string]bool{"shown": true}), nil
	})
}
