package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/reading"
	"github.com/aitexteditor/aite/internal/search"
)

// FindMeaning searches by meaning (FindSemantic) or by words and meaning
// (FindHybrid): it first embeds what the book's vector index lacks (the
// whole book the first time, saying what it costs, with a progress bar),
// then ranks. A failing embedding model falls back to ranking by words,
// and says so in Notice.
func (b *Book) FindMeaning(ctx context.Context, req reading.FindRequest, e *Embeddings, log io.Writer, bar bool) (reading.Found, error) {
	b.Enable(e)
	if _, err := b.updateVectors(ctx, e.Info, log, bar, false, false); err != nil {
		fmt.Fprintf(log, "aite: note: %v\n", err)
	}
	mode := editor.Semantic
	if req.Mode == reading.FindHybrid {
		mode = editor.Hybrid
	}
	res, err := b.s.SearchMeaning(ctx, b.id, req.Query(), mode, search.Options{Limit: req.Limit, Kinds: req.Kinds,
		IncludeHeadings: req.Headings, Within: req.Within})
	if err != nil {
		return reading.Found{}, b.WithNearest(err)
	}
	out := reading.Found{Mode: req.Mode, Query: req.Query(), RankedBy: string(res.Mode), Notice: res.Notice,
		Results: reading.SearchHits(res.Results, true)}
	if res.Mode == editor.Ranked {
		out.Mode = reading.FindRanked
	}
	return out.WithLimit(req.Limit), nil
}
