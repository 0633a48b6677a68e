package agentdef

import (
	"cmp"
	"os"
	"slices"
	"strings"

	"github.com/aitexteditor/aite/internal/llm/models"
)

// Dirs are the definition directories. An empty path disables its
// registry. Models is not read by Load (the model registry is
// llm/models'); WriteBuiltins writes into it and a Watcher watches it.
type Dirs struct {
	Agents    string
	Tools     string
	Skills    string
	Viewports string
	Models    string
}

// ModelLookup resolves model keys; *models.Registry is one.
type ModelLookup interface {
	Model(key string) (models.Model, error)
}

// ModelLookupFunc adapts a function to ModelLookup.
type ModelLookupFunc func(key string) (models.Model, error)

// Model calls f.
func (f ModelLookupFunc) Model(key string) (models.Model, error) { return f(key) }

// Loader loads Snapshots.
type Loader struct {
	Dirs     Dirs
	Models   ModelLookup     // the model registry agents' modelKeys must resolve in; nil: none resolves
	Backends map[string]bool // names of the Go-implemented backend tools (the plan tools need not be listed)
	// MaxSkillPromptChars cuts skill prompts (characters); 0 means
	// DefaultMaxSkillPromptChars.
	MaxSkillPromptChars int
}

// Load reads all definitions. Problems are warnings; a bad file never stops
// the others from loading.
func Load(dirs Dirs, models ModelLookup, backends map[string]bool) (*Snapshot, []Warning) {
	return Loader{Dirs: dirs, Models: models, Backends: backends}.Load()
}

// Load reads all definitions into a new Snapshot.
func (l Loader) Load() (*Snapshot, []Warning) { return l.Reload(nil) }

// Reload reads all definitions again. With a previous snapshot, a
// directory that cannot be read keeps its previous registry, and a file
// that cannot be read or parsed (not valid relaxed JSON, say) keeps its
// previous version; everything else is loaded afresh and checked against
// the new registries (agents against the new tools, skills and models).
func (l Loader) Reload(prev *Snapshot) (*Snapshot, []Warning) {
	var all []Warning
	s := &Snapshot{good: map[string][]byte{}}
	src := &sources{good: s.good}
	if prev != nil {
		src.prev = prev.good
	}
	ws := func(kind string) warnings { return warnings{kind: kind, list: &all} }
	var vps []ViewportDef
	if !src.dir(l.Dirs.Viewports, ws(KindViewport), func(es []os.DirEntry) {
		vps = loadViewports(l.Dirs.Viewports, es, src, ws(KindViewport))
	}) {
		vps = prev.viewports.list
	}
	s.viewports = newRegistry(vps, func(v ViewportDef) string { return v.Key })
	backends := map[string]bool{}
	for name, ok := range l.Backends {
		backends[strings.ToLower(name)] = backends[strings.ToLower(name)] || ok
	}
	var tools []ToolDef
	if !src.dir(l.Dirs.Tools, ws(KindTool), func(es []os.DirEntry) {
		tools = loadTools(l.Dirs.Tools, es, backends, src, ws(KindTool))
		checkViewportKeys(tools, s.viewports, ws(KindTool))
	}) {
		tools = prev.tools.list
	}
	s.tools = newRegistry(tools, func(t ToolDef) string { return t.Name })
	maxChars := cmp.Or(l.MaxSkillPromptChars, DefaultMaxSkillPromptChars)
	var skills []SkillDef
	if !src.dir(l.Dirs.Skills, ws(KindSkill), func(es []os.DirEntry) {
		skills = loadSkills(l.Dirs.Skills, es, maxChars, src, ws(KindSkill))
	}) {
		skills = prev.skills.list
	}
	s.skills = newRegistry(skills, func(k SkillDef) string { return k.ID })
	var agents []AgentDef
	if !src.dir(l.Dirs.Agents, ws(KindAgent), func(es []os.DirEntry) {
		agents = loadAgents(l.Dirs.Agents, es, l.agentEnv(s, backends), src, ws(KindAgent))
	}) {
		agents = prev.agents.list
	}
	s.agents = newRegistry(agents, func(a AgentDef) string { return a.Key })
	return s, all
}

// agentEnv collects what agents are checked against.
func (l Loader) agentEnv(s *Snapshot, backends map[string]bool) *agentEnv {
	env := &agentEnv{models: l.Models, tools: map[string]ToolKind{}, skills: map[string]bool{}, taken: map[string]string{},
		delegates: map[string]string{}}
	for name, ok := range backends {
		if ok {
			env.tools[name] = ToolBackend
		}
	}
	for _, t := range s.tools.list {
		env.tools[t.Name] = t.Kind
		if d := t.Delegate(); d != "" {
			env.delegates[t.Name] = d
		}
	}
	for _, k := range s.skills.list {
		env.skills[k.ID] = true
	}
	return env
}

// checkViewportKeys warns about frontend tools without a viewport.
func checkViewportKeys(tools []ToolDef, vps registry[ViewportDef], ws warnings) {
	for _, t := range tools {
		if _, ok := vps.get(t.ViewportKey); t.Kind == ToolFrontend && !ok {
			ws.warn(t.File, "", "frontend tool %q has no viewport %q", t.Name, t.ViewportKey)
		}
	}
}

// Snapshot is an immutable set of registries. Callers take one (Watcher
// Current) at the start of a run and keep it for the whole run. The
// definitions it returns share their slices and must not be modified.
type Snapshot struct {
	agents    registry[AgentDef]
	tools     registry[ToolDef]
	skills    registry[SkillDef]
	viewports registry[ViewportDef]
	good      map[string][]byte // the last good content of each file read, for Reload
}

// Agents returns the agents, sorted by key.
func (s *Snapshot) Agents() []AgentDef { return slices.Clone(s.agents.list) }

// Agent returns the agent with this key (exact match).
func (s *Snapshot) Agent(key string) (AgentDef, bool) { return s.agents.get(key) }

// Tools returns the tools of the tool files, sorted by name. Built-in
// backend tools without a file are not among them.
func (s *Snapshot) Tools() []ToolDef { return slices.Clone(s.tools.list) }

// Tool returns the tool with this name (compared in lowercase).
func (s *Snapshot) Tool(name string) (ToolDef, bool) { return s.tools.get(strings.ToLower(name)) }

// Skills returns the skills, sorted by id.
func (s *Snapshot) Skills() []SkillDef { return slices.Clone(s.skills.list) }

// Skill returns the skill with this id (compared in lowercase).
func (s *Snapshot) Skill(id string) (SkillDef, bool) { return s.skills.get(strings.ToLower(id)) }

// Viewports returns the viewports, sorted by key.
func (s *Snapshot) Viewports() []ViewportDef { return slices.Clone(s.viewports.list) }

// Viewport returns the viewport with this key (compared in lowercase).
func (s *Snapshot) Viewport(key string) (ViewportDef, bool) {
	return s.viewports.get(strings.ToLower(key))
}

// registry is a list sorted by key with an index.
type registry[T any] struct {
	list []T
	idx  map[string]int
}

func newRegistry[T any](items []T, key func(T) string) registry[T] {
	list := slices.Clone(items)
	slices.SortStableFunc(list, func(a, b T) int { return strings.Compare(key(a), key(b)) })
	r := registry[T]{list: list, idx: make(map[string]int, len(list))}
	for i, x := range list {
		r.idx[key(x)] = i
	}
	return r
}

func (r registry[T]) get(key string) (T, bool) {
	i, ok := r.idx[key]
	if !ok {
		var zero T
		return zero, false
	}
	return r.list[i], true
}
