package agentdef

import (
	"encoding/json"
	"fmt"
	"strings"
)

// agentFile is an agent file as written, after checkShape.
type agentFile struct {
	Key            string              `json:"key"`
	Name           string              `json:"name"`
	Role           string              `json:"role"`
	Description    string              `json:"description"`
	Icon           json.RawMessage     `json:"icon"`
	Mode           string              `json:"mode"`
	ModelConfig    *modelConfigFile    `json:"modelConfig"`
	ToolConfig     opt[toolConfigFile] `json:"toolConfig"`
	ToolChoice     string              `json:"toolChoice"`
	Skills         []string            `json:"skills"`
	SkillConfig    skillConfigFile     `json:"skillConfig"`
	Budget         budgetFile          `json:"budget"`
	Plain          *stageFile          `json:"plain"`
	React          *stageFile          `json:"react"`
	PlanExecute    *planExecuteFile    `json:"planExecute"`
	RuntimePrompts runtimePromptsFile  `json:"runtimePrompts"`
	Protocol       *protocolFile       `json:"protocol"`
	Advisors       []json.RawMessage   `json:"advisors"`
	Internal       bool                `json:"internal"`
}

type modelConfigFile struct {
	ModelKey  string `json:"modelKey"`
	Reasoning struct {
		Enabled bool   `json:"enabled"`
		Effort  string `json:"effort"`
	} `json:"reasoning"`
	Temperature *float64 `json:"temperature"`
	TopP        *float64 `json:"top_p"`
	MaxTokens   *int     `json:"max_tokens"`
}

type toolConfigFile struct {
	Backends  []string `json:"backends"`
	Frontends []string `json:"frontends"`
	Actions   []string `json:"actions"`
	Latents   []string `json:"latents"`   // protocol agents only; non-nil when written
	Delegates []string `json:"delegates"` // protocol agents only; non-nil when written
}

type skillConfigFile struct {
	Skills []string `json:"skills"`
}

type budgetFile struct {
	RunTimeoutMs int            `json:"runTimeoutMs"`
	Model        callBudgetFile `json:"model"`
	Tool         callBudgetFile `json:"tool"`
}

type callBudgetFile struct {
	MaxCalls   int `json:"maxCalls"`
	TimeoutMs  int `json:"timeoutMs"`
	RetryCount int `json:"retryCount"`
}

type stageFile struct {
	SystemPrompt string              `json:"systemPrompt"`
	ModelConfig  *modelConfigFile    `json:"modelConfig"`
	ToolConfig   opt[toolConfigFile] `json:"toolConfig"`
	DeepThinking bool                `json:"deepThinking"` // plan only (checkShape)
	MaxSteps     int                 `json:"maxSteps"`     // react only (checkShape)
}

type planExecuteFile struct {
	Plan     *stageFile `json:"plan"`
	Execute  *stageFile `json:"execute"`
	Summary  *stageFile `json:"summary"`
	MaxSteps int        `json:"maxSteps"`
}

type runtimePromptsFile struct {
	PlanExecute struct {
		TaskExecutionPromptTemplate string `json:"taskExecutionPromptTemplate"`
	} `json:"planExecute"`
	Skill struct {
		CatalogHeader     string `json:"catalogHeader"`
		DisclosureHeader  string `json:"disclosureHeader"`
		InstructionsLabel string `json:"instructionsLabel"`
	} `json:"skill"`
	ToolAppendix struct {
		ToolDescriptionTitle string `json:"toolDescriptionTitle"`
		AfterCallHintTitle   string `json:"afterCallHintTitle"`
	} `json:"toolAppendix"`
}

// opt is a field that tells "not written" (Set false) from null.
type opt[T any] struct {
	Set, Null bool
	V         T
}

// UnmarshalJSON records that the field was written.
func (o *opt[T]) UnmarshalJSON(b []byte) error {
	o.Set = true
	if string(b) == "null" {
		o.Null = true
		return nil
	}
	return json.Unmarshal(b, &o.V)
}

// parseRelaxed reads an agent file up to its JSON tree. Its errors make the
// file "broken" (a reload keeps the previous version of a broken file).
func parseRelaxed(data []byte) (*node, error) {
	strict, err := Strict(data)
	if err != nil {
		return nil, err
	}
	tree, err := parseTree(strict)
	if err != nil {
		return nil, err
	}
	if tree.kind != nObject {
		return nil, fmt.Errorf("expected a JSON object, found %s", tree.kind)
	}
	return tree, nil
}

// parseAgent decodes an agent file: rejected fields (§ 6.1) and wrong JSON
// types reject it; unknown fields are warnings and ignored.
func parseAgent(data []byte, warn func(field, format string, args ...any)) (*agentFile, error) {
	tree, err := parseRelaxed(data)
	if err != nil {
		return nil, rejectf("", "%v", err)
	}
	if r := findRejected(tree, "", locTop); r != nil {
		return nil, r
	}
	clean, err := checkShape(tree, agentShape, "", warn)
	if err != nil {
		return nil, err
	}
	var f agentFile
	if err := json.Unmarshal(clean.bytes(), &f); err != nil {
		return nil, rejectf("", "%v", err)
	}
	return &f, nil
}

// parseIcon reads the icon: a string, or {name, color}.
func parseIcon(raw json.RawMessage) Icon {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return Icon{Text: strings.TrimSpace(s)}
	}
	var o struct{ Name, Color string }
	_ = json.Unmarshal(raw, &o) // checkShape ensured an object of strings, or null
	return Icon{Name: o.Name, Color: o.Color}
}
