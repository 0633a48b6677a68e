package builtins

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/agent"
	"github.com/aitexteditor/aite/internal/agentdef"
	"github.com/aitexteditor/aite/internal/llm/models"
	"github.com/aitexteditor/aite/internal/tool/bookprotocol"
	"github.com/aitexteditor/aite/internal/tool/booktools"
)

// env is an injectable environment.
type env map[string]string

func (e env) get(k string) string { return e[k] }

// install writes the built-ins into fresh directories and returns them
// with the model source loaded from them under e.
func install(t *testing.T, e env) (agentdef.Dirs, *Models) {
	d, m, _ := installWarn(t, e)
	return d, m
}

// installWarn is install that also returns the warnings of the models.
func installWarn(t *testing.T, e env) (agentdef.Dirs, *Models, []models.Warning) {
	t.Helper()
	root := t.TempDir()
	d := agentdef.Dirs{Agents: filepath.Join(root, "agents"), Tools: filepath.Join(root, "tools"),
		Skills: filepath.Join(root, "skills"), Viewports: filepath.Join(root, "viewports"), Models: filepath.Join(root, "models")}
	require.NoError(t, agentdef.WriteBuiltins(d, FS()))
	reg, ws, err := models.Load(models.LoadOptions{WorkDir: root, Env: func(k string) string {
		if k == "AITE_MODELS_DIR" {
			return d.Models
		}
		return e.get(k)
	}})
	require.NoError(t, err)
	return d, NewModels(reg), ws
}

// allBackends adds the engine's own backend tools to BackendNames, as the
// server does.
func allBackends() map[string]bool {
	names := BackendNames()
	for _, t := range agent.Builtins() {
		names[t.Name()] = true
	}
	return names
}

func TestBuiltinsLoadWithoutWarnings(t *testing.T) {
	for name, e := range map[string]env{
		"no model configured": nil,
		"AITE_MODEL":          {"AITE_MODEL": "openai:gpt-4o-mini", "OPENAI_API_KEY": "sk-test"},
	} {
		t.Run(name, func(t *testing.T) {
			d, m, mws := installWarn(t, e)
			require.Empty(t, mws)
			s, ws := agentdef.Load(d, m, allBackends())
			for _, w := range ws {
				t.Error(w.String())
			}
			var keys []string
			modes := map[string]agentdef.Mode{}
			for _, a := range s.Agents() {
				keys = append(keys, a.Key)
				modes[a.Key] = a.Mode
				require.Equal(t, DefaultModelKey, a.ModelConfig.ModelKey, a.Key)
			}
			require.Equal(t, []string{"bookEditor", "bookEditorProtocol", "cursorAgent", "demoAction", "demoConfirm", "demoOneshot",
				"demoPlanner", "demoReact", "demoSkill", "paragraphEditor"}, keys)
			require.Equal(t, agentdef.ModeReact, modes["bookEditor"])
			require.Equal(t, agentdef.ModeOneshot, modes["demoOneshot"])
			require.Equal(t, agentdef.ModePlanExecute, modes["demoPlanner"])

			confirm, ok := s.Tool("confirm")
			require.True(t, ok)
			require.Equal(t, agentdef.ToolFrontend, confirm.Kind)
			vp, ok := s.Viewport(confirm.ViewportKey)
			require.True(t, ok)
			require.Contains(t, vp.HTML, `type: "frontend_submit"`)
			hl, ok := s.Tool("highlight_pointer")
			require.True(t, ok)
			require.Equal(t, agentdef.ToolAction, hl.Kind)

			skill, ok := s.Skill("text-stats")
			require.True(t, ok)
			require.Equal(t, "Text statistics", skill.Name)
			require.Contains(t, skill.Prompt, "scripts/stats.sh")
			a, _ := s.Agent("demoSkill")
			require.Equal(t, []string{"text-stats"}, a.Skills)
			require.Equal(t, []string{agent.SkillRunScript}, a.React.ToolConfig.Backends)
			a, _ = s.Agent("demoConfirm")
			require.Equal(t, []string{"confirm"}, a.React.ToolConfig.Frontends)
			a, _ = s.Agent("demoAction")
			require.Equal(t, []string{"highlight_pointer"}, a.React.ToolConfig.Actions)
		})
	}
}

func TestBookEditorAgent(t *testing.T) {
	require.NotContains(t, booktools.SystemPrompt, `"""`, "the prompt must fit a \"\"\" string")
	d, m := install(t, nil)
	s, _ := agentdef.Load(d, m, allBackends())
	a, ok := s.Agent(BookEditorKey)
	require.True(t, ok)
	require.Equal(t, strings.TrimSpace(booktools.SystemPrompt), a.React.SystemPrompt, "the prompt is system.md, verbatim")
	require.Equal(t, BookToolNames(), a.React.ToolConfig.Backends, "every book tool")
	require.Len(t, a.Tools, len(booktools.Tools(booktools.Env{})))
	require.Equal(t, 16, a.React.MaxSteps)
	require.Equal(t, 900000, a.Budget.RunTimeoutMs)
	require.Equal(t, 1, a.Budget.Model.RetryCount, "members not written keep the REACT defaults")
}

func TestBackendNames(t *testing.T) {
	names := BackendNames()
	for _, n := range append(BookToolNames(), ToolCurrentTime, ToolWordCount) {
		require.True(t, names[n], n)
	}
	for _, n := range bookprotocol.ActivityNames() {
		require.True(t, names[n], n)
	}
	require.Len(t, names, len(BookToolNames())+len(bookprotocol.ActivityNames())+2)
}

func TestProtocolBookEditorAgents(t *testing.T) {
	d, m := install(t, nil)
	s, ws := agentdef.Load(d, m, allBackends())
	require.Empty(t, ws)
	for _, key := range []string{bookprotocol.BookEditorProtocolKey, bookprotocol.CursorAgentKey, bookprotocol.ParagraphEditorKey} {
		a, ok := s.Agent(key)
		require.True(t, ok, key)
		require.True(t, a.IsProtocol(), key)
	}
	a, _ := s.Agent(bookprotocol.BookEditorProtocolKey)
	require.Equal(t, bookprotocol.BookEditorPrompt(), a.React.SystemPrompt)
	require.Equal(t, []string{"run_cursor_agent", "rewrite_paragraph"}, a.React.ToolConfig.Delegates)
	require.Equal(t, 30.0, a.Protocol.Guard.MinMeanWeight)
	for _, name := range []string{"run_cursor_agent", "rewrite_paragraph"} {
		tl, ok := s.Tool(name)
		require.True(t, ok, name)
		require.Equal(t, agentdef.ToolDelegate, tl.Kind)
	}
	ask, ok := s.Tool("ask_user")
	require.True(t, ok)
	_, ok = s.Viewport(ask.ViewportKey)
	require.True(t, ok, "ask_user has its viewport")
}

func TestFS(t *testing.T) {
	files := FS()
	var paths []string
	require.NoError(t, fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			paths = append(paths, p)
		}
		return err
	}))
	for _, want := range []string{"agents/bookEditor.json", "tools/confirm.frontend", "tools/highlight_pointer.action",
		"viewports/confirm.html", "skills/text-stats/SKILL.md", "skills/text-stats/scripts/stats.sh", "models/gpt-4o-mini.json"} {
		require.True(t, slices.Contains(paths, want), want)
	}
	fi, err := fs.Stat(files, "skills/text-stats/scripts/stats.sh")
	require.NoError(t, err)
	require.Equal(t, fs.FileMode(0o755), fi.Mode().Perm())
	require.NotContains(t, string(BookEditorFile()), "{{", "the template is fully expanded")
}

func TestStatsScript(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on this system")
	}
	d, _ := install(t, nil)
	out, err := exec.Command(sh, filepath.Join(d.Skills, "text-stats", "scripts", "stats.sh"),
		"The quick brown fox. Extraordinary!").CombinedOutput()
	require.NoError(t, err, string(out))
	require.Equal(t, "lines: 1\nwords: 5\ncharacters: 35\nlongest:\nExtraordinary\nquick\nbrown\nThe\nfox\n", string(out))
}

func TestWriteBuiltinsKeepsUserFiles(t *testing.T) {
	d, _ := install(t, nil)
	mine := filepath.Join(d.Agents, "mine.json")
	require.NoError(t, os.WriteFile(mine, []byte("{}"), 0o644))
	book := filepath.Join(d.Agents, "bookEditor.json")
	require.NoError(t, os.WriteFile(book, []byte("{}"), 0o644))
	require.NoError(t, agentdef.WriteBuiltins(d, FS()))
	got, err := os.ReadFile(book)
	require.NoError(t, err)
	require.Equal(t, string(BookEditorFile()), string(got), "a built-in is restored")
	_, err = os.Stat(mine)
	require.NoError(t, err, "other files are kept")
}
