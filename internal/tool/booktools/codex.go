package booktools

import (
	"context"
	_ "embed"
	"errors"

	"github.com/aitexteditor/aite/internal/codex"
	"github.com/aitexteditor/aite/internal/codex/assist"
	"github.com/aitexteditor/aite/internal/cursoragent"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/tool"
)

var (
	//go:embed codex_lookup.md
	codexLookupDoc string
	//go:embed codex_build.md
	codexBuildDoc string
)

// The names of the codex tools.
const (
	ToolCodexLookup = "codex-lookup"
	ToolCodexBuild  = "codex-build"
)

type codexLookupParams struct {
	Entry string `json:"entry,omitempty" jsonschema:"an entry's name, alias or id; none lists the entries"`
	Kind  string `json:"kind,omitempty" enum:"character,place,object,term,event,style" jsonschema:"list only this kind"`
	At    string `json:"at,omitempty" jsonschema:"a pointer: only the facts known at this item"`
}

type codexBuildParams struct {
	WithModel bool `json:"withModel,omitempty" default:"false" jsonschema:"also let the model describe the new entries (costs calls)"`
	Entries   int  `json:"entries,omitempty" jsonschema:"entries the model reads, 1..100 (default 10)"`
}

// entryOut is an entry as the model reads it: no private notes.
type entryOut struct {
	ID          string           `json:"id"`
	Kind        codex.Kind       `json:"kind"`
	Name        string           `json:"name"`
	Aliases     []string         `json:"aliases,omitempty"`
	Description string           `json:"description,omitempty"`
	Relations   []codex.Relation `json:"relations,omitempty"`
	Facts       []codex.Fact     `json:"facts,omitempty"`
	Confirmed   bool             `json:"confirmed,omitempty"`
	Items       int              `json:"items"`
	First       string           `json:"first,omitempty"`
}

func entryView(e codex.Entry, u editor.EntryUses, facts bool) entryOut {
	out := entryOut{ID: e.ID, Kind: e.Kind, Name: e.Name, Aliases: e.Aliases, Description: e.Description,
		Relations: e.Relations, Confirmed: e.Confirmed, Items: u.Items, First: u.First}
	if facts {
		out.Facts = e.Facts
	}
	return out
}

func codexFailure(err error) (tool.Result, error) {
	switch {
	case errors.Is(err, codex.ErrNotFound), errors.Is(err, codex.ErrAmbiguous):
		return tool.Errorf("not_found", "%v", err), nil
	case errors.Is(err, codex.ErrInvalid):
		return tool.Errorf("invalid_arguments", "%v", err), nil
	}
	return failure(err)
}

func codexLookup(env Env) tool.Tool {
	return tool.Must(ToolCodexLookup, codexLookupDoc, func(_ context.Context, p codexLookupParams) (tool.Result, error) {
		c, info, err := env.Session.Codex(env.Book)
		if err != nil {
			return codexFailure(err)
		}
		uses, err := env.Session.CodexUses(env.Book)
		if err != nil {
			return codexFailure(err)
		}
		if p.Entry == "" {
			entries := []entryOut{}
			for _, e := range c.Entries {
				if p.Kind == "" || string(e.Kind) == p.Kind {
					entries = append(entries, entryView(e, uses[e.ID], false))
				}
			}
			return ok(map[string]any{"source": info.Source, "entries": entries}), nil
		}
		e, err := c.Find(p.Entry)
		if err != nil {
			return codexFailure(err)
		}
		out := entryView(*e, uses[e.ID], true)
		if p.At != "" {
			facts, _, err := env.Session.FactsAsOf(env.Book, e.ID, p.At)
			if err != nil {
				return failure(err)
			}
			out.Facts = facts
		}
		return ok(out), nil
	})
}

func codexBuild(env Env) tool.Tool {
	return tool.Must(ToolCodexBuild, codexBuildDoc, func(ctx context.Context, p codexBuildParams) (tool.Result, error) {
		c, rep, err := env.Session.BuildCodex(env.Book)
		if err != nil {
			return codexFailure(err)
		}
		if _, err := env.Session.SetCodex(env.Book, c); err != nil {
			return codexFailure(err)
		}
		out := map[string]any{"entries": c.Len(), "fromText": map[string]int{"candidates": len(rep.Candidates),
			"added": rep.Added, "updated": rep.Updated, "kept": rep.Kept, "removed": rep.Removed}}
		switch {
		case !p.WithModel:
			return ok(out), nil
		case env.Agent == nil:
			out["model"] = "not run: no model is configured for the cursor agent"
			return ok(out), nil
		case p.Entries < 0 || p.Entries > 100:
			return tool.Errorf("invalid_arguments", "entries must be between 1 and 100 (got %d)", p.Entries), nil
		}
		a := *env.Agent
		a.Store = cursoragent.NewMemStore()
		b := &assist.Builder{Agent: &a, Book: env.Book, Plans: assist.SessionPlans{Session: env.Session, Book: env.Book}, MaxEntries: max(p.Entries, 10)}
		if p.Entries > 0 {
			b.MaxEntries = p.Entries
		}
		b.OnProgress = func(pr assist.Progress) {
			tool.Report(ctx, tool.Progress{Tool: ToolCodexBuild, Kind: "codex_build", Data: pr,
				Message: progressText(pr)})
		}
		plan, err := b.Resume()
		if err != nil || plan == nil {
			if plan, err = b.NewPlan(); err != nil {
				return codexFailure(err)
			}
		}
		res, err := b.Run(ctx, plan)
		out["model"] = map[string]any{"read": res.Done + res.Dropped + res.Failed, "kept": res.Done, "merged": res.Merged,
			"dropped": res.Dropped, "failed": res.Failed, "calls": res.Calls, "inputTokens": res.Usage.InputTokens,
			"outputTokens": res.Usage.OutputTokens, "left": plan.Remaining()}
		if err != nil {
			return tool.Result{}, err
		}
		if c, _, err := env.Session.Codex(env.Book); err == nil {
			out["entries"] = c.Len()
		}
		return ok(out), nil
	})
}

func progressText(pr assist.Progress) string {
	if pr.Done {
		return "codex: " + pr.Name + " done"
	}
	return "codex: reading the items naming " + pr.Name
}
