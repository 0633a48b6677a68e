package agentdef

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/aitexteditor/aite/internal/llm"
)

// ToolKind is the kind of a tool, set by its file's suffix (§ 7.1).
type ToolKind string

// The tool kinds.
const (
	ToolBackend  ToolKind = "backend"  // *.backend: a Go implementation runs it
	ToolFrontend ToolKind = "frontend" // *.frontend: the client answers through /submit
	ToolAction   ToolKind = "action"   // *.action: answered "OK" at once, the client acts
	ToolLatent   ToolKind = "latent"   // *.latent: the model writes the result (`_output`); protocol agents only
	ToolDelegate ToolKind = "delegate" // *.delegate: a sub-run of another agent (`_delegate`); protocol agents only
)

// ToolType returns the toolType of listings: "function" for backend
// tools, else the kind.
func (k ToolKind) ToolType() string {
	if k == ToolBackend {
		return "function"
	}
	return string(k)
}

// ToolDef is one tool described by a tool file.
type ToolDef struct {
	Name          string // lowercased
	Description   string // "" when the file gives none (a backend tool may keep its built-in one)
	AfterCallHint string
	// Parameters is the JSON Schema object as written (strict JSON, property
	// order kept), meta-properties (`_`-properties, AGENT_PROTOCOL § 1.4)
	// included; StrippedParameters is what ordinary agents see.
	Parameters  json.RawMessage
	Strict      bool
	ToolAPI     json.RawMessage // as written, nil when absent
	Kind        ToolKind
	ViewportKey string // frontend tools: the file's basename, lowercased
	File        string
}

// LLMTool returns the tool as offered to a model by an ordinary (non
// protocol) agent: its parameters without meta-properties.
func (t ToolDef) LLMTool() llm.Tool {
	return llm.Tool{Name: t.Name, Description: t.Description, Parameters: t.StrippedParameters()}
}

// toolNamePattern is what model APIs accept as a function name.
var toolNamePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9_-]{1,64}$`) })

// emptyParameters is the schema of a tool whose file gives none.
var emptyParameters = json.RawMessage(`{"type":"object","properties":{}}`)

var toolSuffixes = map[string]ToolKind{".backend": ToolBackend, ".frontend": ToolFrontend, ".action": ToolAction,
	".latent": ToolLatent, ".delegate": ToolDelegate}

type toolEntry struct {
	Type          string          `json:"type"`
	Name          string          `json:"name"`
	Description   string          `json:"description"`
	AfterCallHint string          `json:"afterCallHint"`
	Parameters    json.RawMessage `json:"parameters"`
	Strict        bool            `json:"strict"`
	ToolAPI       json.RawMessage `json:"toolApi"`
}

// checkToolFile is the syntax check of a tool file: relaxed JSON holding
// an object with a "tools" array.
func checkToolFile(data []byte) error {
	_, err := toolList(data)
	return err
}

func toolList(data []byte) (*node, error) {
	tree, err := parseRelaxed(data)
	if err != nil {
		return nil, err
	}
	list := tree.get("tools")
	if list == nil || list.kind != nArray {
		return nil, fmt.Errorf(`expected {"tools": [...]}`)
	}
	return list, nil
}

// loadTools reads the tool files of dir. A name defined twice is skipped
// everywhere; a backend tool needs a Go implementation (backends, or a plan
// tool); a frontend or action tool may not take the name of one.
func loadTools(dir string, entries []os.DirEntry, backends map[string]bool, src *sources, ws warnings) []ToolDef {
	var all []parsedTool
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasPrefix(name, ".") {
			continue
		}
		path := filepath.Join(dir, name)
		kind, ok := toolSuffixes[strings.ToLower(filepath.Ext(name))]
		if !ok {
			ws.warn(path, "", "not a .backend, .frontend, .action, .latent or .delegate file; ignored")
			continue
		}
		data, ok := src.read(path, checkToolFile, ws)
		if !ok {
			continue
		}
		all = append(all, parseToolFile(path, data, kind, ws)...)
	}
	files := map[string][]string{}
	for _, t := range all {
		files[t.Name] = append(files[t.Name], t.File)
	}
	var out []ToolDef
	for _, pt := range all {
		t, field := pt.ToolDef, pt.field
		switch {
		case len(files[t.Name]) > 1:
			ws.reject(t.File, field, "tool %q is defined more than once (%s); skipped in both places", t.Name,
				strings.Join(files[t.Name], ", "))
		case t.Kind == ToolBackend && !backends[t.Name] && !isPlanTool(t.Name):
			ws.reject(t.File, field, "backend tool %q has no Go implementation; skipped", t.Name)
		case t.Kind != ToolBackend && (backends[t.Name] || isPlanTool(t.Name)):
			ws.reject(t.File, field, "%s tool %q takes the name of a built-in backend tool; skipped", t.Kind, t.Name)
		default:
			out = append(out, t)
		}
	}
	return out
}

// parsedTool is a tool entry with the JSON path of its name.
type parsedTool struct {
	ToolDef
	field string
}

// parseToolFile decodes the entries of one tool file; a bad entry is
// skipped with a warning, the others load.
func parseToolFile(path string, data []byte, kind ToolKind, ws warnings) []parsedTool {
	list, err := toolList(data)
	if err != nil {
		ws.reject(path, "", "%v", err) // not reached: src.read checked the syntax
		return nil
	}
	var out []parsedTool
	for i, e := range list.elems {
		field := indexPath("tools", i)
		var te toolEntry
		if e.kind != nObject {
			ws.reject(path, field, "expected object, found %s", e.kind)
			continue
		}
		if err := json.Unmarshal(e.bytes(), &te); err != nil {
			ws.reject(path, field, "%v", err)
			continue
		}
		if te.Type != "function" {
			ws.warn(path, joinPath(field, "type"), "type %q is not \"function\"; entry ignored", te.Type)
			continue
		}
		t, err := te.def(kind, path)
		if err != nil {
			r := asRejection(err)
			ws.reject(path, joinPath(field, r.field), "%s", r.reason)
			continue
		}
		out = append(out, parsedTool{t, joinPath(field, "name")})
	}
	return out
}

// def checks an entry and converts it.
func (te toolEntry) def(kind ToolKind, path string) (ToolDef, error) {
	name := strings.ToLower(strings.TrimSpace(te.Name))
	if !toolNamePattern().MatchString(name) {
		return ToolDef{}, rejectf("name", "%q is not a valid tool name ([A-Za-z0-9_-]{1,64})", te.Name)
	}
	t := ToolDef{Name: name, Description: strings.TrimSpace(te.Description), AfterCallHint: strings.TrimSpace(te.AfterCallHint),
		Parameters: te.Parameters, Strict: te.Strict, Kind: kind, File: path}
	if p := strings.TrimSpace(string(te.Parameters)); p == "" || p == "null" {
		t.Parameters = slices.Clone(emptyParameters)
	} else if p[0] != '{' {
		return ToolDef{}, rejectf("parameters", "expected a JSON Schema object")
	}
	if err := checkMeta(t); err != nil {
		return ToolDef{}, err
	}
	if a := strings.TrimSpace(string(te.ToolAPI)); a != "" && a != "null" {
		t.ToolAPI = te.ToolAPI
	}
	if kind == ToolFrontend {
		base := filepath.Base(path)
		t.ViewportKey = strings.ToLower(strings.TrimSuffix(base, filepath.Ext(base)))
	}
	return t, nil
}
