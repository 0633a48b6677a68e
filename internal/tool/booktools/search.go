package booktools

import (
	"context"
	_ "embed"
	"errors"

	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/search"
	"github.com/aitexteditor/aite/internal/tool"
)

//go:embed find.md
var findDoc string

type findParams struct {
	Query string `json:"query" jsonschema:"the words, the phrase, or what the passage is about"`
	Mode  string `json:"mode,omitempty" default:"\"auto\"" enum:"auto,ranked,exact,semantic,hybrid" jsonschema:"how to rank"`
}

func find(env Env) tool.Tool {
	return tool.Must("search-find", findDoc, func(ctx context.Context, p findParams) (tool.Result, error) {
		opt := search.Options{Limit: 20, IncludeHeadings: true}
		mode := editor.SearchMode(p.Mode) // the schema allows the five modes
		switch mode {
		case editor.Exact, editor.Ranked:
			res, err := env.Session.Search(env.Book, p.Query, mode, opt)
			if err != nil {
				return tool.Errorf("invalid_arguments", "%v", err), nil
			}
			return ok(map[string]any{"mode": mode, "results": res}), nil
		}
		out, err := env.Session.SearchMeaning(ctx, env.Book, p.Query, mode, opt)
		if errors.Is(err, editor.ErrNoEmbeddings) {
			out, err = env.Session.SearchMeaning(ctx, env.Book, p.Query, editor.MeaningAuto, opt)
		}
		if err != nil {
			return tool.Errorf("invalid_arguments", "%v", err), nil
		}
		return ok(out), nil
	})
}
