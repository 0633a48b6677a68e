package mcpserver

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/textdiff"
	"github.com/aitexteditor/aite/internal/tool"
	"github.com/aitexteditor/aite/internal/tool/booktools"
)

// The review tools: propose_<edit> for each edit tool, and apply_edit.
const (
	ToolApplyEdit = "apply_edit"
	proposePrefix = "propose_"
)

var (
	//go:embed propose.md
	proposeDoc string
	//go:embed apply_edit.md
	applyEditDoc string
)

// edit is one edit a client asked for, its arguments checked against the
// edit tool's schema.
type edit struct {
	tool  string          // the edit tool (booktools.ToolReplaceText, …)
	op    document.Op     // its operation
	docID string          // the document, as the client named it
	args  json.RawMessage // the tool's arguments with the defaults, without documentId
	ptr   string
	md    string
}

// preview is an edit as the user is shown it.
type preview struct {
	target string // the pointer of the item the edit names, before the edit
	diff   string // the unified diff of the book
	print  string // what exactly is approved: the operation, the item and the bytes
}

// proposeName is the propose tool of an edit tool: editor-replace_text →
// propose_replace_text.
func proposeName(editTool string) string {
	_, op, _ := strings.Cut(editTool, "-")
	return proposePrefix + op
}

// callEdit handles an edit tool (propose=false) or its propose tool: the
// edit is previewed (a refused edit is refused here), then either proposed
// or, when the client can ask its user, applied after approval. An edit is
// never applied unseen.
func (s *server) callEdit(ctx context.Context, req *mcp.CallToolRequest, name string, propose bool) *mcp.CallToolResult {
	raw, docID, book, bad := s.target(ctx, req.Params.Arguments)
	if bad != nil {
		return bad
	}
	e, bad := s.edit(name, docID, raw)
	if bad != nil {
		return bad
	}
	pv, bad := s.preview(ctx, book, e)
	switch {
	case bad != nil:
		return bad
	case propose || !canElicit(req.ClientCapabilities()):
		return s.propose(e, pv)
	}
	return s.approve(ctx, req, book, e, pv)
}

// edit checks the arguments of an edit tool.
func (s *server) edit(name, docID string, raw json.RawMessage) (edit, *mcp.CallToolResult) {
	op, _ := booktools.EditOp(name)
	args, bad, err := tool.Check(s.defs[name], raw)
	switch {
	case err != nil:
		return edit{}, s.broken(name, err)
	case bad != nil:
		return edit{}, s.fromTool(*bad)
	}
	var p struct {
		Pointer  string `json:"pointer"`
		Markdown string `json:"markdown"`
	}
	if err := json.Unmarshal(args, &p); err != nil {
		return edit{}, errorResult("invalid_arguments", err.Error())
	}
	return edit{tool: name, op: op, docID: docID, args: args, ptr: p.Pointer, md: p.Markdown}, nil
}

// preview shows what the edit would do, with the editor's dry run: the
// same checks refuse it with the same errors (a bad pointer with the
// nearest pointers), and the document does not change.
func (s *server) preview(ctx context.Context, book Book, e edit) (preview, *mcp.CallToolResult) {
	var pv preview
	var bad *tool.Result
	err := book.Read(ctx, func(ss *editor.Session, id string) error {
		res, b, err := plan(ss, id, e)
		if b != nil || err != nil {
			bad = b
			return err
		}
		src, err := ss.Source(id)
		if err != nil {
			return err
		}
		pv = preview{target: res.Target.String(), print: fingerprint(e.op, res), diff: unifiedDiff(book.Name(), src, res.Splice)}
		return nil
	})
	switch {
	case err != nil:
		return pv, s.broken(e.tool, err)
	case bad != nil:
		return pv, s.fromTool(*bad)
	}
	return pv, nil
}

// plan is the editor's dry run of e; a refusal is the book tools' result.
func plan(ss *editor.Session, id string, e edit) (document.EditResult, *tool.Result, error) {
	res, err := ss.PreviewEdit(id, e.op, e.ptr, e.md)
	if err == nil {
		return res, nil, nil
	}
	r, err := booktools.Failure(err)
	if err != nil {
		return res, nil, err
	}
	return res, &r, nil
}

// fingerprint names an edit exactly: the operation, the item (by ID, which
// other edits do not change) and the bytes that go and come.
func fingerprint(op document.Op, res document.EditResult) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00%d\x00%s\x00%d\x00%s", op, res.Target.ID, len(res.Splice.Old), res.Splice.Old,
		len(res.Splice.New), res.Splice.New)
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// unifiedDiff is the diff of the whole book that the splice makes, with
// the book's real line numbers.
func unifiedDiff(name string, src []byte, sp document.Splice) string {
	after := make([]byte, 0, len(src)-len(sp.Old)+len(sp.New))
	after = append(append(append(after, src[:sp.Start]...), sp.New...), src[sp.Start+len(sp.Old):]...)
	return textdiff.Unified("a/"+name, "b/"+name, src, after, 3)
}

// unchanged is the check an approved edit passes just before it is
// applied: the book still makes exactly the edit that was shown.
func (e edit) unchanged(print string) Check {
	return func(ss *editor.Session, id string) *tool.Result {
		res, bad, err := plan(ss, id, e)
		switch {
		case err != nil:
			r := tool.Errorf("tool_failed", "Not applied: %v", err)
			return &r
		case bad != nil:
			return bad
		case fingerprint(e.op, res) != print:
			r := tool.Errorf("changed", "Not applied: the book changed since this edit was shown, so it would not do what was approved. Read the item again and make the edit again.")
			return &r
		}
		return nil
	}
}

// applied is the result of an applied edit.
type applied struct {
	Applied       bool   `json:"applied"`
	Op            string `json:"op"`
	PointerBefore string `json:"pointerBefore"`
	PointerAfter  string `json:"pointerAfter,omitempty"`
	Revision      int    `json:"revision,omitempty"`
	Diff          string `json:"diff"`
}

// apply runs the approved edit through the host's edit path, after
// checking under the same lock that it is still the edit that was shown.
func (s *server) apply(ctx context.Context, book Book, e edit, pv preview) *mcp.CallToolResult {
	r, err := book.Call(ctx, e.tool, e.args, e.unchanged(pv.print))
	switch {
	case err != nil:
		return s.broken(e.tool, err)
	case r.IsError:
		return s.fromTool(r)
	case len(r.Edits) == 0:
		return errorResult("tool_failed", "The edit tool reported no edit; nothing is known to have changed. Read the item to see.")
	}
	ed := r.Edits[0]
	return s.valueResult(applied{Applied: true, Op: ed.Op, PointerBefore: ed.Pointer, PointerAfter: ed.NewPointer,
		Revision: ed.Revision, Diff: pv.diff})
}
