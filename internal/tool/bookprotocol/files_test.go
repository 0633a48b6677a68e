package bookprotocol

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/agentdef"
	"github.com/aitexteditor/aite/internal/llm/models"
)

// specRunCursorAgent is the tool of AGENT_PROTOCOL § 6.2, verbatim.
const specRunCursorAgent = `{"tools":[{"type":"function","name":"run_cursor_agent",
  "description":"Scan the book with an existing cursor and return the single best matching item.",
  "parameters":{"type":"object","properties":{"_delegate":{"const":"cursorAgent"},
    "_scopes":{"type":"array","items":{"enum":["characters","glossary","styleGuide"]},"provisioned":["input"]},
    "_outputPath":{"const":"†state.search"},
    "cursorName":{"type":"string"},"task":{"type":"string"},
    "context":{"type":["string","null"]},"startAfterPointer":{"type":["string","null"]},
    "maxEvidenceCount":{"type":["integer","null"]}},
   "required":["cursorName","task"]}}]}`

// toolsOf decodes a tool file into its entries by name.
func toolsOf(t *testing.T, data []byte) map[string]map[string]any {
	t.Helper()
	var f struct {
		Tools []map[string]any `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(data, &f))
	out := map[string]map[string]any{}
	for _, e := range f.Tools {
		out[e["name"].(string)] = e
	}
	return out
}

func props(e map[string]any) map[string]any {
	return e["parameters"].(map[string]any)["properties"].(map[string]any)
}

func TestFilesAreStrictJSONWithTheirPrompts(t *testing.T) {
	fs, err := Files(Config{})
	require.NoError(t, err)
	require.Equal(t, []string{"agents/bookEditorProtocol.json", "agents/cursorAgent.json", "agents/paragraphEditor.json",
		"tools/ask_user.frontend", "tools/book.delegate", "tools/book_protocol.backend", "tools/cursor_agent.backend",
		"viewports/ask_user.html"}, FileNames())
	agents := map[string]map[string]any{}
	for name, data := range fs {
		if strings.HasSuffix(name, ".html") {
			continue
		}
		var v map[string]any
		require.NoError(t, json.Unmarshal(data, &v), name)
		if strings.HasPrefix(name, "agents/") {
			agents[v["key"].(string)] = v
			require.Equal(t, "default", v["modelConfig"].(map[string]any)["modelKey"])
		}
	}
	require.Equal(t, BookEditorPrompt(), agents[BookEditorProtocolKey]["react"].(map[string]any)["systemPrompt"])
	require.Equal(t, CursorAgentPrompt(), agents[CursorAgentKey]["react"].(map[string]any)["systemPrompt"])
	require.Equal(t, ParagraphEditorPrompt(), agents[ParagraphEditorKey]["plain"].(map[string]any)["systemPrompt"])
	for _, rule := range []string{"exactly", "verbatim", "ordinal words", "One evidence per item", "†batch.nextAfterPointer"} {
		require.Contains(t, CursorAgentPrompt(), rule)
	}
	for _, topic := range []string{"run_cursor_agent", "editGate", "create_targets", `"pointer": "†state.pointer"`,
		`"newMarkdown": "†state.proposal.newMarkdown"`, "approval", "call_denied", "ask_user"} {
		require.Contains(t, BookEditorPrompt(), topic)
	}

	ca := agents[CursorAgentKey]
	pr := ca["protocol"].(map[string]any)
	require.Equal(t, float64(128), pr["limits"].(map[string]any)["maxTurns"])
	in := pr["inputSchema"].(map[string]any)["properties"].(map[string]any)
	require.ElementsMatch(t, []string{"cursorName", "task", "context", "startAfterPointer", "maxEvidenceCount"}, mapKeys(in))
	out := pr["outputSchema"].(map[string]any)["properties"].(map[string]any)
	require.ElementsMatch(t, []string{"found", "pointer", "excerpt", "whyThis", "nextAfterPointer"}, mapKeys(out))
	require.Equal(t, []any{"read_cursor_batch", "note_evidence"}, ca["toolConfig"].(map[string]any)["backends"])

	be := agents[BookEditorProtocolKey]
	guard := be["protocol"].(map[string]any)["guard"].(map[string]any)
	require.Equal(t, float64(30), guard["minMeanWeight"])
	require.Equal(t, []any{"replace_text", "insert_after", "insert_before", "delete_item", "rewrite_paragraph"}, guard["tools"])
	require.Equal(t, "allow", guard["onNoVotes"])
	approval := be["protocol"].(map[string]any)["approval"].(map[string]any)
	require.Equal(t, []any{"replace_text", "insert_after", "insert_before", "delete_item"}, approval["confirmTools"],
		"every edit is shown for approval before it is applied")
	require.Equal(t, "ask", approval["calls"])
	gate := be["advisors"].([]any)[0].(map[string]any)
	require.Equal(t, "editGate", gate["id"])
	require.Equal(t, "request", gate["on"])
	require.Equal(t, []any{"input", "†state.search", "†state.targets"}, gate["scopes"])

	// § 6.2, exactly.
	got := toolsOf(t, fs["tools/book.delegate"])
	want := toolsOf(t, []byte(specRunCursorAgent))
	require.Equal(t, want["run_cursor_agent"], got["run_cursor_agent"])
	rp := props(got["rewrite_paragraph"])
	require.Equal(t, map[string]any{"const": "paragraphEditor"}, rp["_delegate"])
	require.Equal(t, map[string]any{"const": []any{"†state.pointer", "†state.markdown", "styleGuide", "characters", "glossary"}}, rp["_scopes"])
	require.Equal(t, map[string]any{"const": "†state.proposal"}, rp["_outputPath"])

	ct := toolsOf(t, fs["tools/cursor_agent.backend"])
	require.Equal(t, map[string]any{"const": "†batch"}, props(ct["read_cursor_batch"])["_outputPath"])
	ne := props(ct["note_evidence"])
	require.Equal(t, map[string]any{"const": []any{"batch"}}, ne["_scopes"])
	require.Equal(t, map[string]any{"const": "†state.found"}, ne["_outputPath"])
	require.Equal(t, map[string]any{"const": "push"}, ne["_outputMethod"])

	// Every backend named by an agent is an activity here, and the other way round.
	acts := Activities(sampleEnv(t))
	bt := toolsOf(t, fs["tools/book_protocol.backend"])
	for name := range ct {
		bt[name] = ct[name]
	}
	for name := range bt {
		require.Contains(t, acts, name)
	}
	require.Len(t, acts, len(bt))
}

func TestFilesConfig(t *testing.T) {
	fs, err := Files(Config{ModelKey: "m1", MinMeanWeight: 45.5})
	require.NoError(t, err)
	var v struct {
		ModelConfig struct{ ModelKey string } `json:"modelConfig"`
		Protocol    struct {
			Guard struct{ MinMeanWeight float64 } `json:"guard"`
		} `json:"protocol"`
	}
	require.NoError(t, json.Unmarshal(fs["agents/bookEditorProtocol.json"], &v))
	require.Equal(t, "m1", v.ModelConfig.ModelKey)
	require.Equal(t, 45.5, v.Protocol.Guard.MinMeanWeight)
	_, err = Files(Config{MinMeanWeight: 120})
	require.ErrorContains(t, err, "minMeanWeight")
}

type fakeModels map[string]bool

func (f fakeModels) Model(key string) (models.Model, error) {
	if f[key] {
		return models.Model{Key: key, Provider: "openai", ModelID: key}, nil
	}
	return models.Model{}, fmt.Errorf("%w %q", models.ErrUnknownModel, key)
}

// loadFiles writes the files into definition directories and loads them
// with agentdef, the way the server does.
func loadFiles(t *testing.T) (*agentdef.Snapshot, []agentdef.Warning) {
	t.Helper()
	root := t.TempDir()
	d := agentdef.Dirs{Agents: filepath.Join(root, "agents"), Tools: filepath.Join(root, "tools"),
		Skills: filepath.Join(root, "skills"), Viewports: filepath.Join(root, "viewports"), Models: filepath.Join(root, "models")}
	files, err := Files(Config{})
	require.NoError(t, err)
	mfs := fstest.MapFS{}
	for name, data := range files {
		mfs[name] = &fstest.MapFile{Data: data, Mode: 0o644}
	}
	for _, dir := range []string{d.Agents, d.Tools, d.Skills, d.Viewports, d.Models} {
		require.NoError(t, os.MkdirAll(dir, 0o755))
	}
	require.NoError(t, agentdef.WriteBuiltins(d, mfs))
	backends := map[string]bool{}
	for name := range Activities(sampleEnv(t)) {
		backends[name] = true
	}
	return agentdef.Load(d, fakeModels{"default": true}, backends)
}

func TestFilesLoadThroughAgentdef(t *testing.T) {
	s, ws := loadFiles(t)
	for _, w := range ws {
		t.Error(w.String())
	}
	be, ok := s.Agent(BookEditorProtocolKey)
	require.True(t, ok)
	require.True(t, be.IsProtocol())
	require.Equal(t, 30.0, be.Protocol.Guard.MinMeanWeight)
	require.Len(t, be.Protocol.Context, 3)
	adv, err := be.AdvisorMessages()
	require.NoError(t, err)
	require.Len(t, adv, 1)
	require.Equal(t, "editGate", adv[0].Advisor.ID)
	ca, ok := s.Agent(CursorAgentKey)
	require.True(t, ok)
	require.Equal(t, 128, ca.Protocol.Limits.MaxTurns)
	pe, ok := s.Agent(ParagraphEditorKey)
	require.True(t, ok)
	require.Equal(t, agentdef.ModeOneshot, pe.Mode)
	require.Equal(t, ParagraphEditorPrompt(), pe.MainStage().SystemPrompt)
	for _, name := range []string{RunCursorAgent, RewriteParagraph} {
		td, ok := s.Tool(name)
		require.True(t, ok, name)
		require.Equal(t, agentdef.ToolDelegate, td.Kind)
	}
	td, ok := s.Tool(AskUser)
	require.True(t, ok)
	require.Equal(t, agentdef.ToolFrontend, td.Kind)
}
