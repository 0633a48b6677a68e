package booktools

import (
	"context"
	_ "embed"

	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/search"
	"github.com/aitexteditor/aite/internal/tool"
)

//go:embed find.md
var findDoc string

type findParams struct {
	Query string `json:"query" jsonschema:"the words or the phrase to look for"`
	Mode  string `json:"mode,omitempty" jsonschema:"ranked (default) or exact"`
}

func find(env Env) tool.Tool {
	return tool.Must("search-find", findDoc, func(_ context.Context, p findParams) (tool.Result, error) {
		mode := editor.Ranked
		if p.Mode == string(editor.Exact) {
			mode = editor.Exact
		} else if p.Mode != "" && p.Mode != string(editor.Ranked) {
			return tool.Errorf("invalid_arguments", "mode must be \"ranked\" or \"exact\", not %q", p.Mode), nil
		}
		res, err := env.Session.Search(env.Book, p.Query, mode, search.Options{Limit: 20, IncludeHeadings: true})
		if err != nil {
			return tool.Errorf("invalid_arguments", "%v", err), nil
		}
		return ok(map[string]any{"mode": mode, "results": res}), nil
	})
}
