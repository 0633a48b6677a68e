package agentdef

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// loadAgent loads one agent file (with the given tools and skills) and
// returns it with the warnings.
func loadAgent(t *testing.T, content string, extra func(d Dirs)) (AgentDef, []Warning) {
	t.Helper()
	d := newDirs(t)
	if extra != nil {
		extra(d)
	}
	write(t, d.Agents, map[string]string{"a.json": content})
	s, ws := load(t, d)
	require.Len(t, s.Agents(), 1, dump(ws))
	return s.Agents()[0], ws
}

func TestRelaxedAgentFileLoads(t *testing.T) {
	a, ws := loadAgent(t, `{
		// the book editor
		"key": "bookEditor",
		"name": "Book editor", "role": "editor", "description": "Edits books",
		"icon": {"name": "book", "color": "#333"},
		"mode": "REACT",
		"modelConfig": {"modelKey": "m1", "reasoning": {"enabled": true, "effort": "high"}, "temperature": 0.2, "top_p": 0.9, "max_tokens": 800},
		"react": {
			"systemPrompt": """
				You edit books.
				  Be careful // really.
				""",
			"maxSteps": 9
		}
	}`, nil)
	require.Empty(t, ws)
	require.Equal(t, "bookEditor", a.Key)
	require.Equal(t, "You edit books.\n  Be careful // really.", a.React.SystemPrompt)
	require.Equal(t, Icon{Name: "book", Color: "#333"}, a.Icon)
	require.Equal(t, Reasoning{Enabled: true, Effort: EffortHigh}, a.React.ModelConfig.Reasoning)
	require.Equal(t, 0.2, *a.ModelConfig.Temperature)
	require.Equal(t, 800, *a.React.ModelConfig.MaxTokens)
	require.Equal(t, 9, a.React.MaxSteps)
	require.Equal(t, "editor", a.Role)
	require.Equal(t, a.React.Stage, a.MainStage())
}

func TestDefaultsPerMode(t *testing.T) {
	react := `{"name": "R", "mode": "react", "modelConfig": {"modelKey": "m1"}, "react": {"systemPrompt": "r"}}`
	tests := []struct {
		name, content string
		choice        ToolChoice
		budget        Budget
		maxSteps      int
	}{
		{"ONESHOT without tools", ag(""), ToolChoiceNone, DefaultBudget(ModeOneshot), 0},
		{"ONESHOT with tools", ag(`"toolConfig": {"backends": ["search"]}`), ToolChoiceAuto, DefaultBudget(ModeOneshot), 0},
		{"ONESHOT explicit", ag(`"toolChoice": "required"`), ToolChoiceRequired, DefaultBudget(ModeOneshot), 0},
		{"REACT", react, ToolChoiceAuto,
			Budget{RunTimeoutMs: 120_000, Model: CallBudget{15, 60_000, 1}, Tool: CallBudget{20, 120_000, 0}}, DefaultReactMaxSteps},
		{"PLAN_EXECUTE", pe(""), ToolChoiceAuto,
			Budget{RunTimeoutMs: 300_000, Model: CallBudget{30, 120_000, 2}, Tool: CallBudget{50, 300_000, 0}}, DefaultPlanExecuteMaxSteps},
		{"partial budget", ag(`"budget": {"model": {"maxCalls": 7, "retryCount": 0}, "tool": {"retryCount": 3}}`), ToolChoiceNone,
			Budget{RunTimeoutMs: 30_000, Model: CallBudget{7, 30_000, 2}, Tool: CallBudget{5, 30_000, 3}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, _ := loadAgent(t, tt.content, nil)
			require.Equal(t, tt.choice, a.ToolChoice)
			require.Equal(t, tt.budget, a.Budget)
			switch {
			case a.React != nil:
				require.Equal(t, tt.maxSteps, a.React.MaxSteps)
			case a.PlanExecute != nil:
				require.Equal(t, tt.maxSteps, a.PlanExecute.MaxSteps)
			}
			require.Equal(t, DefaultRuntimePrompts(), a.RuntimePrompts)
		})
	}
}

func TestRuntimePromptsOverride(t *testing.T) {
	a, _ := loadAgent(t, ag(`"runtimePrompts": {"skill": {"catalogHeader": "Skills:", "disclosureHeader": " "},
		"planExecute": {"taskExecutionPromptTemplate": "Do {{task_id}}"}}`), nil)
	want := DefaultRuntimePrompts()
	want.CatalogHeader, want.TaskExecutionPromptTemplate = "Skills:", "Do {{task_id}}"
	require.Equal(t, want, a.RuntimePrompts)
}

func TestStageInheritance(t *testing.T) {
	a, ws := loadAgent(t, pe(`
		"modelConfig": {"modelKey": "m1", "temperature": 0.5},
		"toolConfig": {"backends": ["search"]},
		"planExecute": {
			"plan": {"systemPrompt": "plan", "deepThinking": true},
			"execute": {"systemPrompt": "exec", "modelConfig": {"modelKey": "m2"}, "toolConfig": {"backends": ["read"]}},
			"summary": {"modelConfig": {"reasoning": {"enabled": true}}, "toolConfig": null}
		}`), nil)
	require.Empty(t, rejected(ws))
	p := a.PlanExecute
	// Inherit: no modelConfig, no toolConfig.
	require.Equal(t, a.ModelConfig, p.Plan.ModelConfig)
	require.Equal(t, ToolConfig{Backends: []string{"search"}}, p.Plan.ToolConfig)
	require.True(t, p.Plan.DeepThinking)
	// Replace: a stage's modelConfig replaces the top-level one as a whole.
	require.Equal(t, ModelConfig{ModelKey: "m2"}, p.Execute.ModelConfig)
	require.Equal(t, ToolConfig{Backends: []string{"read"}}, p.Execute.ToolConfig)
	// Explicit null: no tools; a modelKey the stage lacks is the top-level one.
	require.True(t, p.Summary.ToolConfig.Empty())
	require.Equal(t, ModelConfig{ModelKey: "m1", Reasoning: Reasoning{Enabled: true}}, p.Summary.ModelConfig)
	require.Equal(t, "exec", p.Summary.SystemPrompt, "a blank summary prompt is the execute one")
	require.Equal(t, []string{"search", "read"}, a.Tools)
	require.Equal(t, p.Execute, a.MainStage())
	require.Len(t, a.Stages(), 3)
}

func TestStageEmptyToolConfig(t *testing.T) {
	a, _ := loadAgent(t, `{"name": "R", "mode": "REACT", "modelConfig": {"modelKey": "m1"},
		"toolConfig": {"backends": ["search"]}, "react": {"systemPrompt": "r", "toolConfig": {}}}`, nil)
	require.True(t, a.React.ToolConfig.Empty())
	require.Equal(t, []string{"search"}, a.Tools, "the enabled set is the union of all configured names")
	b, _ := loadAgent(t, ag(`"plain": {"systemPrompt": "p", "toolConfig": {"backends": []}}, "toolConfig": {"backends": ["read"]}`), nil)
	require.True(t, b.Plain.ToolConfig.Empty())
	require.Equal(t, ToolChoiceNone, b.ToolChoice, "ONESHOT: the stage has no tools")
	require.Nil(t, b.PlanExecute)
}

func TestSkillsMerged(t *testing.T) {
	a, ws := loadAgent(t, ag(`"skillConfig": {"skills": ["pdf", "Docs"]}, "skills": ["PDF", "nope", "docs"]`), func(d Dirs) {
		write(t, d.Skills, map[string]string{"pdf/SKILL.md": "pdf", "Docs/SKILL.md": "docs"})
	})
	require.Equal(t, []string{"pdf", "docs"}, a.Skills)
	requireWarning(t, ws, a.File, "skills[1]", `unknown skill "nope"`)
}

func TestUnknownToolNamesDropped(t *testing.T) {
	a, ws := loadAgent(t, ag(`"toolConfig": {"backends": ["search", "nope", " READ ", "edit", "search", "_plan_get_tasks_"],
		"frontends": ["ask"], "actions": ["ask"]}`), func(d Dirs) {
		write(t, d.Tools, map[string]string{"ask.frontend": `{"tools": [{"type": "function", "name": "ask"}]}`})
		write(t, d.Viewports, map[string]string{"ask.html": "<p>"})
	})
	require.Equal(t, ToolConfig{Backends: []string{"search", "read", "edit"}, Frontends: []string{"ask"}}, a.ToolConfig)
	requireWarning(t, ws, a.File, "toolConfig.backends[1]", `unknown tool "nope"`)
	requireWarning(t, ws, a.File, "toolConfig.backends[5]", "only in PLAN_EXECUTE")
	requireWarning(t, ws, a.File, "toolConfig.actions[0]", "is a frontend tool")
	require.Empty(t, rejected(ws))

	p, ws := loadAgent(t, pe(`"toolConfig": {"backends": ["_plan_get_tasks_"]}`), nil)
	require.Equal(t, []string{PlanGetTasks}, p.Tools)
	require.Empty(t, ws)
}

func TestDuplicateKeysFirstWins(t *testing.T) {
	d := newDirs(t)
	write(t, d.Agents, map[string]string{
		"b.json":     ag(`"key": "dup", "name": "first"`),
		"c.json":     ag(`"key": "dup", "name": "second"`),
		"a.json":     ag(`"key": "dup", "systemPrompt": "x"`), // rejected: does not claim the key
		"plain.json": ag(""),                                  // key = basename
		"notes.txt":  "x",
		".swp.json":  "{",
	})
	s, ws := load(t, d)
	require.Len(t, s.Agents(), 2)
	got, ok := s.Agent("dup")
	require.True(t, ok)
	require.Equal(t, "first", got.Name)
	require.Equal(t, filepath.Join(d.Agents, "b.json"), got.File)
	_, ok = s.Agent("plain")
	require.True(t, ok)
	w := requireWarning(t, ws, filepath.Join(d.Agents, "c.json"), "key", "duplicate key")
	require.True(t, w.Rejected)
	requireWarning(t, ws, filepath.Join(d.Agents, "notes.txt"), "", "not a .json file")
	require.Len(t, rejected(ws), 2)
}

func TestUnknownFieldsIgnored(t *testing.T) {
	a, ws := loadAgent(t, ag(`"colour": "red", "plain": {"systemPrompt": "p", "note": 1}, "icon": "emoji:📚"`), nil)
	require.Equal(t, Icon{Text: "emoji:📚"}, a.Icon)
	w := requireWarning(t, ws, a.File, "colour", "unknown field")
	require.False(t, w.Rejected)
	requireWarning(t, ws, a.File, "plain.note", "unknown field")
}

func TestNoModelRegistry(t *testing.T) {
	d := newDirs(t)
	write(t, d.Agents, map[string]string{"a.json": ag("")})
	s, ws := Load(d, nil, nil)
	require.Empty(t, s.Agents())
	require.Equal(t, "modelConfig.modelKey", rejected(ws)[0].Field)
}
