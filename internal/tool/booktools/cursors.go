package booktools

import (
	"context"
	_ "embed"
	"errors"

	"github.com/aitexteditor/aite/internal/codex"
	"github.com/aitexteditor/aite/internal/cursor"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/tool"
)

var (
	//go:embed create_keyword_cursor.md
	keywordCursorDoc string
	//go:embed create_full_scan_cursor.md
	fullScanCursorDoc string
	//go:embed create_filtered_cursor.md
	filteredCursorDoc string
	//go:embed read_cursor_batch.md
	readBatchDoc string
)

type keywordParams struct {
	Keywords        []string `json:"keywords,omitempty" jsonschema:"one or more keywords; the words of one keyword must all occur in an item"`
	Entry           string   `json:"entry,omitempty" jsonschema:"instead of keywords: a codex entry (name, alias or id)"`
	IncludeHeadings bool     `json:"includeHeadings,omitempty" default:"true" jsonschema:"include headings"`
}

type fullScanParams struct {
	IncludeHeadings bool `json:"includeHeadings,omitempty" default:"true" jsonschema:"include headings"`
}

type filteredParams struct {
	FilterDescription string   `json:"filterDescription" jsonschema:"what the filter selects, in words"`
	Kinds             []string `json:"kinds,omitempty" jsonschema:"item kinds to keep"`
	Keywords          []string `json:"keywords,omitempty" jsonschema:"keywords, as in the keyword cursor"`
	Regex             string   `json:"regex,omitempty" jsonschema:"RE2 regular expression on the item's plain text"`
	Within            string   `json:"within,omitempty" jsonschema:"a heading pointer: only its section"`
	MaxElements       int      `json:"maxElements,omitempty" jsonschema:"items per batch, 1..200 (default 20)"`
	MaxBytes          int      `json:"maxBytes,omitempty" jsonschema:"bytes of Markdown per batch, 1..65536 (default 12000)"`
	StartAfterPointer string   `json:"startAfterPointer,omitempty" jsonschema:"start after this item (default: at the start)"`
	IncludeHeadings   bool     `json:"includeHeadings,omitempty" default:"true" jsonschema:"include headings"`
}

type batchParams struct {
	CursorName string `json:"cursorName" jsonschema:"the name returned when the cursor was created"`
}

func created(env Env, spec cursor.Spec) (tool.Result, error) {
	info, err := env.Session.CreateCursor(env.Book, spec)
	if err != nil {
		return cursorFailure(err)
	}
	return ok(map[string]any{"cursorName": info.Name, "type": info.Type}), nil
}

func cursorFailure(err error) (tool.Result, error) {
	if errors.Is(err, cursor.ErrSpec) || errors.Is(err, cursor.ErrNotDefined) || errors.Is(err, cursor.ErrComplete) {
		return tool.Errorf("invalid_arguments", "%v", err), nil
	}
	if errors.Is(err, codex.ErrNotFound) || errors.Is(err, codex.ErrAmbiguous) {
		return tool.Errorf("not_found", "%v", err), nil
	}
	return failure(err)
}

func keywordCursor(env Env) tool.Tool {
	return tool.Must("cursor-create_keyword_cursor", keywordCursorDoc, func(_ context.Context, p keywordParams) (tool.Result, error) {
		spec := cursor.NewSpec(cursor.Keyword)
		spec.Keywords, spec.IncludeHeadings = p.Keywords, p.IncludeHeadings
		switch {
		case p.Entry != "" && len(p.Keywords) > 0:
			return tool.Errorf("invalid_arguments", "give either keywords or entry, not both"), nil
		case p.Entry != "":
			info, err := env.Session.EntryCursor(env.Book, p.Entry, spec)
			if err != nil {
				return cursorFailure(err)
			}
			return ok(map[string]any{"cursorName": info.Name, "type": info.Type, "description": info.Spec.Description,
				"items": len(info.Spec.IDs)}), nil
		}
		return created(env, spec)
	})
}

func fullScanCursor(env Env) tool.Tool {
	return tool.Must("cursor-create_full_scan_cursor", fullScanCursorDoc, func(_ context.Context, p fullScanParams) (tool.Result, error) {
		spec := cursor.NewSpec(cursor.FullScan)
		spec.IncludeHeadings = p.IncludeHeadings
		return created(env, spec)
	})
}

func filteredCursor(env Env) tool.Tool {
	return tool.Must("cursor-create_filtered_cursor", filteredCursorDoc, func(_ context.Context, p filteredParams) (tool.Result, error) {
		spec := cursor.NewSpec(cursor.Filtered)
		spec.Description, spec.Keywords, spec.Regex, spec.Within = p.FilterDescription, p.Keywords, p.Regex, p.Within
		spec.MaxElements, spec.MaxBytes, spec.StartAfter = p.MaxElements, p.MaxBytes, p.StartAfterPointer
		spec.IncludeHeadings = p.IncludeHeadings
		for _, k := range p.Kinds {
			kind, found := document.ParseKind(k)
			if !found {
				kind = document.Kind(k) // reported by the cursor with the list of kinds
			}
			spec.Kinds = append(spec.Kinds, kind)
		}
		return created(env, spec)
	})
}

func readBatch(env Env) tool.Tool {
	return tool.Must("cursor-read_cursor_batch", readBatchDoc, func(_ context.Context, p batchParams) (tool.Result, error) {
		portion, err := env.Session.Next(env.Book, p.CursorName)
		if err != nil {
			return cursorFailure(err)
		}
		return ok(portion), nil
	})
}
