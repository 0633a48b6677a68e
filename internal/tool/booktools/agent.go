package booktools

import (
	"cmp"
	"context"
	_ "embed"
	"errors"
	"fmt"

	"github.com/aitexteditor/aite/internal/cursor"
	"github.com/aitexteditor/aite/internal/cursoragent"
	"github.com/aitexteditor/aite/internal/tool"
)

//go:embed run_cursor_agent.md
var runCursorAgentDoc string

// ToolRunCursorAgent is the name of the cursor agent tool.
const ToolRunCursorAgent = "cursor_agent-run_cursor_agent"

// Unlocked reports whether a book tool may run without its document's
// lock: it never edits and may run for minutes (the cursor agent calls a
// model for every batch). Each of its session calls is still serialised by
// the editor session's own lock.
func Unlocked(name string) bool { return name == ToolRunCursorAgent }

type agentParams struct {
	CursorName        string `json:"cursorName,omitempty" jsonschema:"the cursor to walk (created before)"`
	Entry             string `json:"entry,omitempty" jsonschema:"instead of cursorName: a codex entry (name, alias or id)"`
	TaskDescription   string `json:"taskDescription" jsonschema:"what counts as a match, in words"`
	Mode              string `json:"mode,omitempty" default:"\"FirstMatch\"" enum:"FirstMatch,Nth,Last,CollectToTargetSet,AggregateSummary" jsonschema:"what to find"`
	N                 int    `json:"n,omitempty" jsonschema:"the ordinal for mode Nth (1-based)"`
	StartAfterPointer string `json:"startAfterPointer,omitempty" jsonschema:"start after this item (default: the cursor's start)"`
	Context           string `json:"context,omitempty" jsonschema:"background the reader should know"`
	MaxEvidenceCount  int    `json:"maxEvidenceCount,omitempty" jsonschema:"stop collecting after this many matches (default 20)"`
}

// agentResult is what the model reads: the result with short evidence and
// without run-specific identifiers (so a recorded conversation replays).
type agentResult struct {
	Success          bool                `json:"success"`
	Summary          string              `json:"summary"`
	Pointer          string              `json:"pointer,omitempty"`
	Excerpt          string              `json:"excerpt,omitempty"`
	WhyThis          string              `json:"whyThis,omitempty"`
	Evidence         []evidenceView      `json:"evidence"`
	EvidenceCount    int                 `json:"evidenceCount"`
	TargetSet        string              `json:"targetSet,omitempty"`
	NextAfterPointer string              `json:"nextAfterPointer,omitempty"`
	CursorComplete   bool                `json:"cursorComplete"`
	StepsUsed        int                 `json:"stepsUsed"`
	StoppedBy        string              `json:"stoppedBy"`
	Usage            cursoragent.Usage   `json:"usage"`
	Skipped          []string            `json:"skippedBatches,omitempty"`
	Incomplete       bool                `json:"incomplete,omitempty"`
	Unjudged         []cursoragent.Range `json:"unjudgedRanges,omitempty"`
}

type evidenceView struct {
	Pointer string `json:"pointer"`
	Kind    string `json:"kind"`
	Excerpt string `json:"excerpt"`
}

func runCursorAgent(env Env) tool.Tool {
	return tool.Must(ToolRunCursorAgent, runCursorAgentDoc, func(ctx context.Context, p agentParams) (tool.Result, error) {
		if env.Agent == nil {
			return tool.Errorf("tool_failed", "the cursor agent has no model configured; read the cursor with cursor-read_cursor_batch instead"), nil
		}
		spec, failed, err := agentCursor(env, p)
		if failed != nil || err != nil {
			return *failed, err
		}
		spec.Name = ""
		if p.StartAfterPointer != "" {
			spec.StartAfter = p.StartAfterPointer
		}
		mode := cursoragent.Mode(p.Mode)
		a := *env.Agent
		a.OnProgress = func(pr cursoragent.Progress) {
			tool.Report(ctx, tool.Progress{Tool: ToolRunCursorAgent, Kind: "cursor_agent",
				Message: fmt.Sprintf("cursor %s: batch %d of ~%d (%s … %s), %d matches so far",
					cmp.Or(p.CursorName, p.Entry), pr.Batch, pr.Estimated, pr.First, pr.Last, pr.Evidence),
				Data: pr})
		}
		res, err := a.Run(ctx, cursoragent.Task{Book: env.Book, Cursor: spec, Goal: p.TaskDescription, Context: p.Context,
			Mode: mode, N: p.N, MaxEvidence: p.MaxEvidenceCount})
		switch {
		case errors.Is(err, cursoragent.ErrTask):
			return tool.Errorf("invalid_arguments", "%v", err), nil
		case err != nil:
			return tool.Result{}, err
		}
		return ok(view(res)), nil
	})
}

// agentCursor returns the spec of the cursor the task walks: a copy of
// the named cursor, or the items naming an entry.
func agentCursor(env Env, p agentParams) (cursor.Spec, *tool.Result, error) {
	fail := func(r tool.Result, err error) (cursor.Spec, *tool.Result, error) { return cursor.Spec{}, &r, err }
	switch {
	case p.CursorName != "" && p.Entry != "", p.CursorName == "" && p.Entry == "":
		return fail(tool.Errorf("invalid_arguments", "give either cursorName or entry"), nil)
	case p.Entry != "":
		spec := cursor.NewSpec(cursor.Search)
		spec.IncludeHeadings = true
		info, err := env.Session.EntryCursor(env.Book, p.Entry, spec)
		if err != nil {
			return fail(cursorFailure(err))
		}
		_ = env.Session.DeleteCursor(env.Book, info.Name)
		spec = info.Spec
		spec.Name, spec.MaxElements, spec.MaxBytes = "", 0, 0 // the agent sizes the batches
		return spec, nil, nil
	}
	info, err := env.Session.Cursor(env.Book, p.CursorName)
	if err != nil {
		return fail(cursorFailure(err))
	}
	spec := info.Spec
	if info.DefaultLimits {
		spec.MaxElements, spec.MaxBytes = 0, 0 // let the agent size batches for the mode
	}
	return spec, nil, nil
}

func view(r cursoragent.Result) agentResult {
	out := agentResult{Success: r.Success, Summary: r.Summary, Pointer: r.Pointer, Excerpt: r.Excerpt, WhyThis: r.WhyThis,
		EvidenceCount: r.EvidenceCount, TargetSet: r.TargetSet, NextAfterPointer: r.NextAfterPointer,
		CursorComplete: r.CursorComplete, StepsUsed: r.StepsUsed, StoppedBy: r.StoppedBy, Usage: r.Usage, Skipped: r.Skipped,
		Incomplete: r.Incomplete, Unjudged: r.Unjudged, Evidence: make([]evidenceView, len(r.Evidence))}
	for i, e := range r.Evidence {
		out.Evidence[i] = evidenceView{Pointer: e.Pointer.String(), Kind: string(e.Kind), Excerpt: cursor.Excerpt(e.Markdown, 300)}
	}
	return out
}
