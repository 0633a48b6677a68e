package agentdef

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAgentRejections: one case per rejection rule of § 6.1 (and per
// check of the file); each rejects the agent with exactly one warning
// naming the file and the field.
func TestAgentRejections(t *testing.T) {
	tests := []struct {
		name, file, content, field string
	}{
		// Rejected fields (§ 6.1).
		{"top systemPrompt", "", ag(`"systemPrompt": "x"`), "systemPrompt"},
		{"top deepThink", "", ag(`"deepThink": true`), "deepThink"},
		{"stage deepThink", "", ag(`"plain": {"systemPrompt": "p", "deepThink": true}`), "plain.deepThink"},
		{"top providerKey", "", ag(`"providerKey": "openai"`), "providerKey"},
		{"stage providerKey", "", pe(`"planExecute": {"plan": {"systemPrompt": "p", "providerKey": "x"}, "execute": {"systemPrompt": "e"}}`),
			"planExecute.plan.providerKey"},
		{"top model", "", ag(`"model": "gpt"`), "model"},
		{"stage model", "", ag(`"plain": {"systemPrompt": "p", "model": "gpt"}`), "plain.model"},
		{"top reasoning", "", ag(`"reasoning": {"enabled": true}`), "reasoning"},
		{"stage reasoning", "", pe(`"planExecute": {"plan": {"systemPrompt": "p"}, "execute": {"systemPrompt": "e", "reasoning": {}}}`),
			"planExecute.execute.reasoning"},
		{"top tools", "", ag(`"tools": ["search"]`), "tools"},
		{"stage tools", "", ag(`"plain": {"systemPrompt": "p", "tools": []}`), "plain.tools"},
		{"modelConfig.provider", "", ag(`"modelConfig": {"modelKey": "m1", "provider": "openai"}`), "modelConfig.provider"},
		{"stage modelConfig.model", "", ag(`"plain": {"systemPrompt": "p", "modelConfig": {"model": "gpt"}}`), "plain.modelConfig.model"},
		{"verify", "", ag(`"verify": {}`), "verify"},
		{"output", "", ag(`"output": "json"`), "output"},
		{"toolPolicy", "", ag(`"toolPolicy": {}`), "toolPolicy"},
		{"budget.maxSteps", "", ag(`"budget": {"maxSteps": 3}`), "budget.maxSteps"},
		{"runtimePrompts.verify", "", ag(`"runtimePrompts": {"verify": {}}`), "runtimePrompts.verify"},
		{"runtimePrompts.finalAnswer", "", ag(`"runtimePrompts": {"finalAnswer": {}}`), "runtimePrompts.finalAnswer"},
		{"runtimePrompts.oneshot", "", ag(`"runtimePrompts": {"oneshot": {}}`), "runtimePrompts.oneshot"},
		{"runtimePrompts.react", "", ag(`"runtimePrompts": {"react": {}}`), "runtimePrompts.react"},
		{"deepThinking on execute", "", pe(`"planExecute": {"plan": {"systemPrompt": "p"}, "execute": {"systemPrompt": "e", "deepThinking": true}}`),
			"planExecute.execute.deepThinking"},
		{"deepThinking on summary", "", pe(`"planExecute": {"plan": {"systemPrompt": "p"}, "execute": {"systemPrompt": "e"}, "summary": {"deepThinking": false}}`),
			"planExecute.summary.deepThinking"},
		{"apiKey", "", ag(`"apiKey": "sk-1"`), "apiKey"},
		{"api_key in modelConfig", "", ag(`"modelConfig": {"modelKey": "m1", "api_key": "sk"}`), "modelConfig.api_key"},
		{"baseUrl in a stage", "", ag(`"plain": {"systemPrompt": "p", "baseUrl": "http://x"}`), "plain.baseUrl"},
		{"base-url deep in an array", "", ag(`"x": [{"y": {"base-url": "http://x"}}]`), "x[0].y.base-url"},
		{"baseURL spelled otherwise", "", ag(`"icon": {"name": "n", "baseURL": "u"}`), "icon.baseURL"},
		// Syntax and types.
		{"invalid JSON", "", `{"name": "A",, }`, ""},
		{"unclosed triple quotes", "", "{\"name\": \"\"\"A\n}", ""},
		{"not an object", "", `["A"]`, ""},
		{"wrong type", "", ag(`"name": 5`), "name"},
		{"wrong element type", "", ag(`"toolConfig": {"backends": ["search", 1]}`), "toolConfig.backends[1]"},
		{"fractional integer", "", ag(`"budget": {"model": {"maxCalls": 1.5}}`), "budget.model.maxCalls"},
		{"icon of another type", "", ag(`"icon": 3`), "icon"},
		// Required fields and values.
		{"invalid key", "", ag(`"key": "a b"`), "key"},
		{"basename not a key", "bad name.json", ag(""), "key"},
		{"name missing", "", ag(`"name": null`), "name"},
		{"name blank", "", ag(`"name": "  "`), "name"},
		{"mode missing", "", ag(`"mode": ""`), "mode"},
		{"mode unknown", "", ag(`"mode": "CHAT"`), "mode"},
		{"toolChoice unknown", "", ag(`"toolChoice": "SOMETIMES"`), "toolChoice"},
		{"PLAN_EXECUTE with NONE", "", pe(`"toolChoice": "NONE"`), "toolChoice"},
		{"negative budget", "", ag(`"budget": {"runTimeoutMs": -1}`), "budget.runTimeoutMs"},
		{"negative maxSteps", "", `{"name": "R", "mode": "REACT", "modelConfig": {"modelKey": "m1"},
			"react": {"systemPrompt": "r", "maxSteps": -2}}`, "react.maxSteps"},
		{"effort unknown", "", ag(`"modelConfig": {"modelKey": "m1", "reasoning": {"enabled": true, "effort": "MAX"}}`),
			"modelConfig.reasoning.effort"},
		{"temperature out of range", "", ag(`"modelConfig": {"modelKey": "m1", "temperature": 3}`), "modelConfig.temperature"},
		{"top_p out of range", "", ag(`"plain": {"systemPrompt": "p", "modelConfig": {"top_p": 1.5}}`), "plain.modelConfig.top_p"},
		{"max_tokens not positive", "", ag(`"modelConfig": {"modelKey": "m1", "max_tokens": 0}`), "modelConfig.max_tokens"},
		// The mode's block.
		{"plain missing", "", ag(`"plain": null`), "plain"},
		{"plain prompt blank", "", ag(`"plain": {"systemPrompt": " \n "}`), "plain.systemPrompt"},
		{"react missing", "", ag(`"mode": "REACT"`), "react"},
		{"planExecute missing", "", ag(`"mode": "PLAN_EXECUTE"`), "planExecute"},
		{"execute missing", "", pe(`"planExecute": {"plan": {"systemPrompt": "p"}}`), "planExecute.execute"},
		{"plan prompt missing", "", pe(`"planExecute": {"plan": {}, "execute": {"systemPrompt": "e"}}`),
			"planExecute.plan.systemPrompt"},
		// Models.
		{"no modelKey at all", "", ag(`"modelConfig": null`), "modelConfig.modelKey"},
		{"unresolved top modelKey", "", ag(`"modelConfig": {"modelKey": "nope"}`), "modelConfig.modelKey"},
		{"unresolved stage modelKey", "", ag(`"plain": {"systemPrompt": "p", "modelConfig": {"modelKey": "nope"}}`),
			"plain.modelConfig.modelKey"},
		{"stage without a model", "", pe(`"modelConfig": null, "planExecute": {"plan": {"systemPrompt": "p", "modelConfig": {"modelKey": "m1"}},
			"execute": {"systemPrompt": "e"}}`), "planExecute.execute.modelConfig.modelKey"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDirs(t)
			name := tt.file
			if name == "" {
				name = "x.json"
			}
			write(t, d.Agents, map[string]string{name: tt.content})
			s, ws := load(t, d)
			require.Empty(t, s.Agents())
			rs := rejected(ws)
			require.Len(t, rs, 1, dump(ws))
			require.Equal(t, KindAgent, rs[0].Kind)
			require.Equal(t, filepath.Join(d.Agents, name), rs[0].File)
			require.Equal(t, tt.field, rs[0].Field, rs[0].Reason)
			require.NotEmpty(t, rs[0].Reason)
		})
	}
}

func TestRejectionLogLine(t *testing.T) {
	d := newDirs(t)
	write(t, d.Agents, map[string]string{"a.json": ag(`"plain": {"systemPrompt": "p", "modelConfig": {"apiKey": "sk"}}`)})
	_, ws := load(t, d)
	require.Len(t, ws, 1)
	require.Equal(t, "agent rejected file="+filepath.Join(d.Agents, "a.json")+
		" field=plain.modelConfig.apiKey reason=secrets and endpoints belong to the provider config only", ws[0].String())
}

func TestFirstRejectedFieldInDocumentOrder(t *testing.T) {
	d := newDirs(t)
	write(t, d.Agents, map[string]string{"a.json": `{"tools": [], "name": "A", "systemPrompt": "x"}`})
	_, ws := load(t, d)
	rs := rejected(ws)
	require.Len(t, rs, 1)
	require.Equal(t, "tools", rs[0].Field)
}
