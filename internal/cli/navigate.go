package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/aitexteditor/aite/internal/cursor"
	"github.com/aitexteditor/aite/internal/cursoragent"
)

// NavigateRequest runs the cursor agent once.
type NavigateRequest struct {
	Book, Task string
	Keywords   []string
	Mode       string
	N          int
	Headings   bool
	Model      Model
	JSON       bool
	Out, Log   io.Writer
}

// Navigate runs a cursor-agent task over a keyword cursor (or a full scan
// without keywords), printing one progress line per batch on Log and the
// result on Out.
func Navigate(ctx context.Context, req NavigateRequest) error {
	b, err := Open(req.Book, req.Log)
	if err != nil {
		return err
	}
	defer b.Close()
	spec := cursor.NewSpec(cursor.FullScan)
	if len(req.Keywords) > 0 {
		spec = cursor.NewSpec(cursor.Keyword)
		spec.Keywords = req.Keywords
	}
	spec.IncludeHeadings = req.Headings
	a := req.Model.CursorAgent(b)
	a.OnProgress = func(p cursoragent.Progress) {
		fmt.Fprintf(req.Log, "batch %d of ~%d: %s … %s (%d items), %d matches so far\n",
			p.Batch, p.Estimated, p.First, p.Last, p.Items, p.Evidence)
	}
	res, err := a.Run(ctx, cursoragent.Task{Book: b.ID(), Cursor: spec, Goal: req.Task,
		Mode: cursoragent.Mode(modeName(req.Mode)), N: req.N})
	if err != nil {
		return Usagef("%v", err)
	}
	if req.JSON {
		enc := json.NewEncoder(req.Out)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	fmt.Fprintln(req.Out, res.Summary)
	if res.Pointer != "" {
		fmt.Fprintf(req.Out, "\n%s\n%s\n", res.Pointer, res.Excerpt)
	}
	fmt.Fprintf(req.Log, "(%d model calls, %d input + %d output tokens, %d batches, %d items read)\n",
		res.Usage.Calls, res.Usage.InputTokens, res.Usage.OutputTokens, res.Usage.Batches, res.Usage.Items)
	return nil
}

// modeName accepts the mode names case-insensitively, and first / nth /
// last / collect / summary as short forms.
func modeName(s string) string {
	switch strings.ToLower(s) {
	case "", "first", "firstmatch":
		return string(cursoragent.FirstMatch)
	case "nth":
		return string(cursoragent.Nth)
	case "last":
		return string(cursoragent.Last)
	case "collect", "collecttotargetset":
		return string(cursoragent.Collect)
	case "summary", "aggregate", "aggregatesummary":
		return string(cursoragent.Aggregate)
	}
	return s
}
