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
	Mode  string `json:"mode,omitempty" default:"\"ranked\"" enum:"ranked,exact" jsonschema:"ranked by relevance, or the exact phrase"`
}

func find(env Env) tool.Tool {
	return tool.Must("search-find", findDoc, func(_ context.Context, p findParams) (tool.Result, error) {
		mode := editor.SearchMode(p.Mode) // the schema allows ranked (the default) and exact only
		res, err := env.Session.Search(env.Book, p.Query, mode, search.Options{Limit: 20, IncludeHeadings: true})
		if err != nil {
			return tool.Errorf("invalid_arguments", "%v", err), nil
		}
		return ok(map[string]any{"mode": mode, "results": res}), nil
	})
}
