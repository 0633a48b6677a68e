package server

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/aitexteditor/aite/internal/agentdef"
)

// The meta endpoints of § 2.1: agents, skills, tools and viewports, read from
// the current definitions snapshot. Their JSON shapes are declared here (the
// api package holds the shapes shared with the stream; these are used by
// this file only).

// agentSummary is AgentSummary.
type agentSummary struct {
	Key         string    `json:"key"`
	Name        string    `json:"name"`
	Icon        any       `json:"icon,omitempty"` // "emoji:…" or {name, color}; omitted when unset
	Description string    `json:"description"`
	Role        string    `json:"role"`
	Meta        agentMeta `json:"meta"`
}

type agentMeta struct {
	Model  string   `json:"model"`
	Mode   string   `json:"mode"`
	Tools  []string `json:"tools"`
	Skills []string `json:"skills"`
}

// agentDetail is AgentDetail.
type agentDetail struct {
	agentSummary
	Instructions string `json:"instructions"`
}

type iconObject struct {
	Name  string `json:"name"`
	Color string `json:"color"`
}

// skillSummary is SkillSummary.
type skillSummary struct {
	Key         string    `json:"key"`
	Name        string    `json:"name"`
	Description string    `json:"description"`
	Meta        skillMeta `json:"meta"`
}

type skillMeta struct {
	PromptTruncated bool `json:"promptTruncated"`
}

// skillDetail is SkillDetail.
type skillDetail struct {
	skillSummary
	Instructions string `json:"instructions"`
}

type viewportHTML struct {
	HTML string `json:"html"`
}

// registerMeta registers the meta endpoints and GET /data.
func (s *Server) registerMeta() {
	s.mux.HandleFunc("GET /api/ap/agents", s.listAgents)
	s.mux.HandleFunc("GET /api/ap/agent", s.getAgent)
	s.mux.HandleFunc("GET /api/ap/skills", s.listSkills)
	s.mux.HandleFunc("GET /api/ap/skill", s.getSkill)
	s.mux.HandleFunc("GET /api/ap/tools", s.listTools)
	s.mux.HandleFunc("GET /api/ap/tool", s.getTool)
	s.mux.HandleFunc("GET /api/ap/viewport", s.getViewport)
	s.mux.HandleFunc("GET /api/ap/data", s.getData)
}

// snapshot returns the current definitions; an empty snapshot when there are
// none.
func (s *Server) snapshot() *agentdef.Snapshot {
	if s.opts.Defs != nil {
		if snap := s.opts.Defs(); snap != nil {
			return snap
		}
	}
	return &agentdef.Snapshot{}
}

// metaQuery returns the trimmed query parameter name; when it is blank it
// answers 400 Validation failed with data.fields.<name> and returns false.
func metaQuery(w http.ResponseWriter, r *http.Request, name string) (string, bool) {
	v := strings.TrimSpace(r.URL.Query().Get(name))
	if v == "" {
		writeValidation(w, map[string]string{name: reasonRequired})
		return "", false
	}
	return v, true
}

// tagMatches reports whether tag (lowercased, "" matches everything) is a
// substring of one of the fields, case-insensitively.
func tagMatches(tag string, fields ...string) bool {
	if tag == "" {
		return true
	}
	for _, f := range fields {
		if strings.Contains(strings.ToLower(f), tag) {
			return true
		}
	}
	return false
}

// tagParam is the lowercased, trimmed tag filter.
func tagParam(r *http.Request) string {
	return strings.ToLower(strings.TrimSpace(r.URL.Query().Get("tag")))
}

func (s *Server) listAgents(w http.ResponseWriter, r *http.Request) {
	snap, tag := s.snapshot(), tagParam(r)
	out := []agentSummary{}
	for _, a := range listedAgents(snap) { // sorted by key
		fields := slices.Concat([]string{a.Key, a.Name, a.Description, a.Role}, a.Tools, skillNames(snap, a.Skills))
		if tagMatches(tag, fields...) {
			out = append(out, s.agentSummary(a))
		}
	}
	writeOK(w, out)
}

// skillNames returns the ids and the display names of the skills ids.
func skillNames(snap *agentdef.Snapshot, ids []string) []string {
	out := slices.Clone(ids)
	for _, id := range ids {
		if k, ok := snap.Skill(id); ok {
			out = append(out, k.Name)
		}
	}
	return out
}

func (s *Server) getAgent(w http.ResponseWriter, r *http.Request) {
	key, ok := metaQuery(w, r, "agentKey")
	if !ok {
		return
	}
	snap := s.snapshot()
	a, found := snap.Agent(key)
	if !found {
		s.writeReqError(w, r, unknownAgent(key, snap))
		return
	}
	writeOK(w, agentDetail{agentSummary: s.agentSummary(a), Instructions: instructions(a)})
}

// agentSummary converts an agent.
func (s *Server) agentSummary(a agentdef.AgentDef) agentSummary {
	out := agentSummary{Key: a.Key, Name: a.Name, Description: a.Description, Role: a.Role,
		Meta: agentMeta{Model: s.modelID(primaryModelKey(a)), Mode: string(a.Mode),
			Tools: nonNil(a.Tools), Skills: nonNil(a.Skills)}}
	switch {
	case a.Icon.Text != "":
		out.Icon = a.Icon.Text
	case !a.Icon.IsZero():
		out.Icon = iconObject{Name: a.Icon.Name, Color: a.Icon.Color}
	}
	return out
}

// primaryModelKey is the agent's top-level modelKey, else the one of its
// main stage (every stage has one once loaded).
func primaryModelKey(a agentdef.AgentDef) string {
	if a.ModelConfig.ModelKey != "" {
		return a.ModelConfig.ModelKey
	}
	return a.MainStage().ModelConfig.ModelKey
}

// modelID is the provider modelId of a modelKey; without a lookup, or for a
// key it does not know, the key itself.
func (s *Server) modelID(key string) string {
	if s.opts.ModelID != nil {
		if id := s.opts.ModelID(key); id != "" {
			return id
		}
	}
	return key
}

// instructions is the agent's system prompt; PLAN_EXECUTE: the first
// non-blank of execute, summary and plan.
func instructions(a agentdef.AgentDef) string {
	pe := a.PlanExecute
	if pe == nil {
		return a.MainStage().SystemPrompt
	}
	prompts := []string{pe.Execute.SystemPrompt}
	if pe.Summary != nil {
		prompts = append(prompts, pe.Summary.SystemPrompt)
	}
	for _, p := range append(prompts, pe.Plan.SystemPrompt) {
		if strings.TrimSpace(p) != "" {
			return p
		}
	}
	return ""
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (s *Server) listSkills(w http.ResponseWriter, r *http.Request) {
	tag := tagParam(r)
	out := []skillSummary{}
	for _, k := range s.snapshot().Skills() { // sorted by id
		if tagMatches(tag, k.ID, k.Name, k.Description, k.Prompt) {
			out = append(out, summarizeSkill(k))
		}
	}
	writeOK(w, out)
}

func (s *Server) getSkill(w http.ResponseWriter, r *http.Request) {
	id, ok := metaQuery(w, r, "skillId")
	if !ok {
		return
	}
	k, found := s.snapshot().Skill(id)
	if !found {
		writeError(w, http.StatusBadRequest, "Unknown skillId: "+id, nil)
		return
	}
	writeOK(w, skillDetail{skillSummary: summarizeSkill(k), Instructions: k.Prompt})
}

func summarizeSkill(k agentdef.SkillDef) skillSummary {
	return skillSummary{Key: k.ID, Name: k.Name, Description: k.Description,
		Meta: skillMeta{PromptTruncated: k.PromptTruncated}}
}

func (s *Server) getViewport(w http.ResponseWriter, r *http.Request) {
	key, ok := metaQuery(w, r, "viewportKey")
	if !ok {
		return
	}
	v, found := s.snapshot().Viewport(key)
	if !found {
		writeError(w, http.StatusNotFound, "Viewport not found: "+key, nil)
		return
	}
	if v.Kind == agentdef.ViewportQLC {
		writeOK(w, json.RawMessage(v.QLC))
		return
	}
	writeOK(w, viewportHTML{HTML: v.HTML})
}

// toolSummary is ToolSummary.
type toolSummary struct {
	Key         string   `json:"key"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Meta        toolMeta `json:"meta"`
}

type toolMeta struct {
	Kind        string          `json:"kind"`
	ToolType    string          `json:"toolType"`
	ToolAPI     json.RawMessage `json:"toolApi,omitempty"`
	ViewportKey string          `json:"viewportKey,omitempty"`
	Strict      bool            `json:"strict"`
	Scopes      *toolScopes     `json:"scopes,omitempty"` // tools that declare `_scopes` (AGENT_PROTOCOL § 5.2)
}

// toolScopes is a tool's `_scopes` allow-list: provisioned and requestable
// scopes, in declared order.
type toolScopes struct {
	Provisioned []string `json:"provisioned"`
	Requested   []string `json:"requested"`
}

// toolDetail is ToolDetail.
type toolDetail struct {
	toolSummary
	AfterCallHint string          `json:"afterCallHint,omitempty"`
	Parameters    json.RawMessage `json:"parameters"`
}

// toolKinds are the valid values of the kind filter. The protocol kinds
// latent and delegate are accepted too; the error message keeps the
// contract's wording (PLATFORM_API row 6).
var toolKinds = map[string]agentdef.ToolKind{
	"backend": agentdef.ToolBackend, "frontend": agentdef.ToolFrontend, "action": agentdef.ToolAction,
	"latent": agentdef.ToolLatent, "delegate": agentdef.ToolDelegate,
}

func (s *Server) listTools(w http.ResponseWriter, r *http.Request) {
	var kind agentdef.ToolKind
	if k := strings.TrimSpace(r.URL.Query().Get("kind")); k != "" {
		var ok bool
		if kind, ok = toolKinds[strings.ToLower(k)]; !ok {
			writeError(w, http.StatusBadRequest, "Invalid kind: "+k+". Use backend|frontend|action", nil)
			return
		}
	}
	tag := tagParam(r)
	out := []toolSummary{}
	for _, t := range s.toolDefs() {
		if (kind == "" || t.Kind == kind) &&
			tagMatches(tag, t.Name, t.Description, t.AfterCallHint, t.Kind.ToolType(), string(t.ToolAPI), t.ViewportKey, string(t.Kind)) {
			out = append(out, summarizeTool(t))
		}
	}
	writeOK(w, out)
}

func (s *Server) getTool(w http.ResponseWriter, r *http.Request) {
	name, ok := metaQuery(w, r, "toolName")
	if !ok {
		return
	}
	defs := s.toolDefs()
	i := slices.IndexFunc(defs, func(t agentdef.ToolDef) bool { return t.Name == strings.ToLower(name) })
	if i < 0 {
		writeError(w, http.StatusBadRequest, "Unknown toolName: "+name, nil)
		return
	}
	t := defs[i]
	if len(t.Parameters) == 0 {
		t.Parameters = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	writeOK(w, toolDetail{toolSummary: summarizeTool(t), AfterCallHint: t.AfterCallHint, Parameters: t.Parameters})
}

// toolDefs returns every listed tool sorted by name: the tools of the tool
// files, and the built-in Go backend tools without a file as kind backend.
// A backend tool file without a description keeps the built-in one.
func (s *Server) toolDefs() []agentdef.ToolDef {
	defs := s.snapshot().Tools()
	byName := make(map[string]int, len(defs))
	for i, t := range defs {
		byName[t.Name] = i
	}
	if s.opts.BuiltinTools != nil {
		for _, bt := range s.opts.BuiltinTools() {
			name := strings.ToLower(bt.Name())
			if i, ok := byName[name]; ok {
				if defs[i].Kind == agentdef.ToolBackend && defs[i].Description == "" {
					defs[i].Description = bt.Description()
				}
				continue
			}
			byName[name] = len(defs)
			defs = append(defs, agentdef.ToolDef{Name: name, Description: bt.Description(),
				Parameters: bt.Parameters(), Kind: agentdef.ToolBackend})
		}
	}
	slices.SortFunc(defs, func(a, b agentdef.ToolDef) int { return strings.Compare(a.Name, b.Name) })
	return defs
}

func summarizeTool(t agentdef.ToolDef) toolSummary {
	sum := toolSummary{Key: t.Name, Name: t.Name, Description: t.Description,
		Meta: toolMeta{Kind: string(t.Kind), ToolType: t.Kind.ToolType(), ToolAPI: t.ToolAPI,
			ViewportKey: t.ViewportKey, Strict: t.Strict}}
	if provisioned, requested := t.Scopes(); provisioned != nil {
		sum.Meta.Scopes = &toolScopes{Provisioned: provisioned, Requested: requested}
	}
	return sum
}
