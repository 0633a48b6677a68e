// Package booktools holds the book tools of BOOK_CORE § 9: cursors, the
// cursor agent, reading and editing by pointer, target sets and search,
// each a typed tool with its model-facing description in a sibling .md.
// They call the editor session only; failures the model can act on (a bad
// pointer, a refused edit, an unknown cursor) are error results.
package booktools

import (
	_ "embed"
	"encoding/json"
	"errors"

	"github.com/aitexteditor/aite/internal/cursoragent"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/tool"
)

// Env is what the tools work on.
type Env struct {
	Session *editor.Session
	// Book is the session ID of the default document.
	Book string
	// Agent runs cursor-agent tasks; without one the tool says no model is
	// configured for it.
	Agent *cursoragent.Agent
}

// Tools returns the book tools bound to env, in a stable order.
func Tools(env Env) []tool.Tool {
	return []tool.Tool{
		keywordCursor(env), fullScanCursor(env), filteredCursor(env), readBatch(env),
		runCursorAgent(env),
		read(env), replaceText(env), insertBefore(env), insertAfter(env), deleteItem(env),
		createTargets(env), defaultDocument(env), showUserMessage(env),
		find(env),
		codexLookup(env), codexBuild(env),
	}
}

// Registry returns the book tools as a registry.
func Registry(env Env) *tool.Registry {
	r, err := tool.NewRegistry(Tools(env)...)
	if err != nil {
		panic(err) // the names are fixed and distinct
	}
	return r
}

// ok encodes a successful result as compact JSON.
func ok(v any) tool.Result {
	b, err := json.Marshal(v)
	if err != nil {
		return tool.Errorf("tool_failed", "cannot encode the result: %v", err)
	}
	return tool.Result{Text: string(b)}
}

// failure turns a domain error into an error result the model can act on;
// infrastructure errors stay Go errors.
// Failure converts an editor error into the book tools' result: a bad
// pointer is an error result with code not_found, a refused edit one with
// code refused, anything else tool_failed; an I/O failure stays an error.
// Hosts that check an edit without running the tool (a preview) report
// its refusals the same way.
func Failure(err error) (tool.Result, error) { return failure(err) }

func failure(err error) (tool.Result, error) {
	var pe *document.PointerError
	switch {
	case errors.As(err, &pe), errors.Is(err, document.ErrNotFound):
		return tool.Errorf("not_found", "%v", err), nil
	case isRefusal(err):
		return tool.Errorf("refused", "%v", err), nil
	case errors.Is(err, editor.ErrUnknownBook):
		return tool.Errorf("not_found", "%v", err), nil
	case errors.Is(err, editor.ErrIO):
		return tool.Result{}, err
	}
	return tool.Errorf("tool_failed", "%v", err), nil
}

func isRefusal(err error) bool {
	for _, e := range []error{document.ErrHeading, document.ErrStructure, document.ErrEmptyText,
		document.ErrUnsupported, document.ErrRange, document.ErrNothingToUndo} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// SystemPrompt is the command agent's system prompt: language- and
// genre-neutral, it explains pointers, cursors and the cursor agent.
//
//go:embed system.md
var SystemPrompt string
