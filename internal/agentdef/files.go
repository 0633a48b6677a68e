package agentdef

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// sources reads definition files and remembers the last good content of
// each, so that a reload can keep the previous version of a broken file.
type sources struct {
	prev map[string][]byte // of the previous snapshot; nil on a first load
	good map[string][]byte // of this load
}

// dir lists a definition directory and passes its entries to load. It
// returns false when the directory cannot be read during a reload: the
// caller then keeps the previous registry. An empty path loads nothing.
func (s *sources) dir(dir string, ws warnings, load func([]os.DirEntry)) bool {
	if dir == "" {
		return true
	}
	entries, err := os.ReadDir(dir)
	if err == nil {
		load(entries)
		return true
	}
	if s.prev == nil {
		ws.warn(dir, "", "directory not read: %v", err)
		return true
	}
	ws.warn(dir, "", "directory not read (%v); its previous definitions are kept", err)
	prefix := dir + string(filepath.Separator)
	for p, data := range s.prev {
		if strings.HasPrefix(p, prefix) {
			s.good[p] = data
		}
	}
	return false
}

// read returns a file's content after check (nil: any content is good).
// A file that cannot be read or fails the check is rejected, unless the
// previous load had a good version of it: that one is returned instead.
// A file that no longer exists is just rejected.
func (s *sources) read(path string, check func([]byte) error, ws warnings) ([]byte, bool) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		ws.reject(path, "", "file not found")
		return nil, false
	}
	if err == nil && check != nil {
		err = check(data)
	}
	if err == nil {
		s.good[path] = data
		return data, true
	}
	if old, ok := s.prev[path]; ok {
		ws.warn(path, "", "%v; the previous version is kept", err)
		s.good[path] = old
		return old, true
	}
	ws.reject(path, "", "%v", err)
	return nil, false
}

// checkAgentSyntax is the syntax check of an agent file.
func checkAgentSyntax(data []byte) error {
	_, err := parseRelaxed(data)
	return err
}

// loadAgents reads the *.json files of dir in name order.
func loadAgents(dir string, entries []os.DirEntry, env *agentEnv, src *sources, ws warnings) []AgentDef {
	var out []AgentDef
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasPrefix(name, ".") {
			continue
		}
		path := filepath.Join(dir, name)
		if !strings.EqualFold(filepath.Ext(name), ".json") {
			ws.warn(path, "", "not a .json file; ignored")
			continue
		}
		data, ok := src.read(path, checkAgentSyntax, ws)
		if !ok {
			continue
		}
		warn := func(field, format string, args ...any) { ws.warn(path, field, format, args...) }
		f, err := parseAgent(data, warn)
		var a AgentDef
		if err == nil {
			b := &agentBuilder{env: env, path: path, f: f, warn: warn}
			a, err = b.build()
		}
		if err != nil {
			r := asRejection(err)
			ws.reject(path, r.field, "%s", r.reason)
			continue
		}
		env.taken[a.Key] = path
		out = append(out, a)
	}
	checkDelegateTargets(out, env, ws)
	return out
}

// checkDelegateTargets drops from protocol agents the delegate tools whose
// `_delegate` names no loaded protocol agent (AGENT_PROTOCOL § 4.6 DG1),
// with a warning, as unknown tool names are dropped. "anonymous" needs no
// agent. Dropping a tool never removes an agent, so one pass suffices.
func checkDelegateTargets(agents []AgentDef, env *agentEnv, ws warnings) {
	protocol := map[string]bool{}
	for _, a := range agents {
		protocol[a.Key] = a.Protocol != nil
	}
	for i := range agents {
		a := &agents[i]
		if a.Protocol == nil {
			continue
		}
		for _, name := range slices.Clone(a.Tools) {
			target, ok := env.delegates[name]
			if !ok || target == anonymousDelegate || protocol[target] {
				continue
			}
			why := "no agent has that key"
			if _, exists := protocol[target]; exists {
				why = "that agent has no protocol block"
			}
			ws.warn(a.File, "", "delegate tool %q runs agent %q, but %s; dropped", name, target, why)
			a.dropTool(name)
		}
	}
}

// dropTool removes a tool name from the agent's enabled set and from every
// tool config (new slices: the built agent shares nothing yet).
func (a *AgentDef) dropTool(name string) {
	a.Tools = slices.DeleteFunc(slices.Clone(a.Tools), func(n string) bool { return n == name })
	a.ToolConfig = a.ToolConfig.without(name)
	switch {
	case a.Plain != nil:
		a.Plain.ToolConfig = a.Plain.ToolConfig.without(name)
	case a.React != nil:
		a.React.ToolConfig = a.React.ToolConfig.without(name)
	}
}
