package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/aitexteditor/aite/internal/agentdef"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/models"
	"github.com/aitexteditor/aite/internal/reading"
	"github.com/aitexteditor/aite/internal/server"
	"github.com/aitexteditor/aite/internal/server/builtins"
	"github.com/aitexteditor/aite/internal/server/config"
)

// DefaultAgent is the agent `aite ask` and `aite chat` run without
// --agent: the server's book editor.
const DefaultAgent = builtins.BookEditorKey

// definitions are the agent definitions a command runs, loaded the way the
// server loads them, from a directory of their own that lives as long as
// the command (skill scripts run from it).
type definitions struct {
	snap *agentdef.Snapshot
	root string
}

// loadDefinitions loads the definitions the server would run: the
// built-ins (internal/server/builtins) and, with user, the files of the
// definition directories the server's configuration names (configPath,
// $AITE_CONFIG or ./aite.json; AITE_DATA …), which the built-ins replace
// file by file as they do at every server start. Problems with single
// files are warnings, written to log.
func loadDefinitions(configPath string, user bool, lookup agentdef.ModelLookup, log io.Writer) (*definitions, error) {
	root, err := os.MkdirTemp("", "aite-agents-*")
	if err != nil {
		return nil, ioErrorf("a directory for the agent definitions: %v", err)
	}
	d := &definitions{root: root}
	dirs := agentdef.Dirs{Agents: filepath.Join(root, "agents"), Tools: filepath.Join(root, "tools"),
		Skills: filepath.Join(root, "skills"), Viewports: filepath.Join(root, "viewports")}
	if user {
		if err := copyUserDefinitions(configPath, dirs); err != nil {
			d.close()
			return nil, err
		}
	}
	if err := agentdef.WriteBuiltins(dirs, builtins.FS()); err != nil {
		d.close()
		return nil, ioErrorf("writing the built-in definitions: %v", err)
	}
	snap, warnings := agentdef.Loader{Dirs: dirs, Models: lookup, Backends: server.BackendNames()}.Load()
	for _, w := range warnings {
		if user { // the built-ins load cleanly; the user's files may not
			fmt.Fprintf(log, "aite: %s\n", strings.ReplaceAll(w.String(), root+string(filepath.Separator), ""))
		}
	}
	d.snap = snap
	return d, nil
}

// copyUserDefinitions copies the user's definition directories (those that
// exist) into dirs.
func copyUserDefinitions(configPath string, dirs agentdef.Dirs) error {
	cfg, err := config.Load(config.Options{ConfigPath: configPath})
	if err != nil {
		return reading.Usagef("the server configuration names the agent directories: %v", err)
	}
	for src, dst := range map[string]string{cfg.Dirs.Agents: dirs.Agents, cfg.Dirs.Tools: dirs.Tools,
		cfg.Dirs.Skills: dirs.Skills, cfg.Dirs.Viewports: dirs.Viewports} {
		if st, err := os.Stat(src); err != nil || !st.IsDir() {
			continue
		}
		if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
			return ioErrorf("reading the definitions in %s: %v", src, err)
		}
	}
	return nil
}

// agent returns the runnable agent of key: not an internal sub-agent.
func (d *definitions) agent(key string) (agentdef.AgentDef, error) {
	if a, ok := d.snap.Agent(key); ok && !a.Internal {
		return a, nil
	}
	var keys []string
	for _, a := range d.snap.Agents() {
		if !a.Internal {
			keys = append(keys, a.Key)
		}
	}
	return agentdef.AgentDef{}, reading.Usagef("unknown agent %q: the agents are %s", key, strings.Join(keys, ", "))
}

// close removes the definitions' directory.
func (d *definitions) close() { _ = os.RemoveAll(d.root) }

// cliModels resolves the model keys of a command's runs: "default" (the key
// of the built-in agents) and the chosen model's own key are the model of
// --model (or the configured default); other keys resolve in the registry.
type cliModels struct {
	chosen Model
}

// Model implements agentdef.ModelLookup.
func (m cliModels) Model(key string) (models.Model, error) {
	if m.isChosen(key) {
		return m.chosen.Info, nil
	}
	if m.chosen.reg == nil {
		return models.Model{}, fmt.Errorf("%w %q", models.ErrUnknownModel, key)
	}
	return m.chosen.reg.Model(key)
}

// Provider implements the runner's ModelSource.
func (m cliModels) Provider(key string) (llm.Provider, models.Model, error) {
	if m.isChosen(key) {
		return m.chosen.Provider, m.chosen.Info, nil
	}
	if m.chosen.reg == nil {
		return nil, models.Model{}, fmt.Errorf("%w %q", models.ErrUnknownModel, key)
	}
	return m.chosen.reg.Provider(key)
}

func (m cliModels) isChosen(key string) bool {
	return key == builtins.DefaultModelKey || key == "" || (key == m.chosen.Info.Key && m.chosen.Info.Key != "")
}
