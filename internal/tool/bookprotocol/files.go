package bookprotocol

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
)

var (
	//go:embed files/agents files/tools files/viewports
	files embed.FS
	//go:embed files/prompts/book_editor.md
	bookEditorPrompt string
	//go:embed files/prompts/cursor_agent.md
	cursorAgentPrompt string
	//go:embed files/prompts/paragraph_editor.md
	paragraphEditorPrompt string
)

// BookEditorPrompt is the system prompt of the protocol book editor:
// cursors and the cursor-agent delegate, the editGate advisor, instanced
// multi-target edits with references, ask_user, and approval of edits.
func BookEditorPrompt() string { return bookEditorPrompt }

// CursorAgentPrompt is the system prompt of cursorAgent: the cursor
// scanning rules (copy pointers exactly, excerpts verbatim, no ordinal words
// in reasons, one evidence per item).
func CursorAgentPrompt() string { return cursorAgentPrompt }

// ParagraphEditorPrompt is the system prompt of paragraphEditor.
func ParagraphEditorPrompt() string { return paragraphEditorPrompt }

// DefaultMinMeanWeight is the editGate guard's threshold (§ 5.1).
const DefaultMinMeanWeight = 30

// Config fills the generated agent files.
type Config struct {
	// ModelKey is the modelKey of the three agents; "" keeps "default".
	ModelKey string
	// MinMeanWeight is the book editor's guard threshold (minMeanWeight);
	// 0 keeps DefaultMinMeanWeight. Edit calls whose editGate mean is lower
	// are denied.
	MinMeanWeight float64
}

// prompts maps each agent file to the mode block that receives its system
// prompt and the prompt.
var prompts = map[string]struct{ block, text string }{
	"agents/" + BookEditorProtocolKey + ".json": {"react", bookEditorPrompt},
	"agents/" + CursorAgentKey + ".json":        {"react", cursorAgentPrompt},
	"agents/" + ParagraphEditorKey + ".json":    {"plain", paragraphEditorPrompt},
}

// Files returns the definition files of the protocol book editor, by path
// relative to the definition root, as agentdef.WriteBuiltins takes them:
//
//	agents/bookEditorProtocol.json  the book editor (REACT protocol agent, editGate advisor, guard)
//	agents/cursorAgent.json         the cursor sub-agent (delegate of run_cursor_agent)
//	agents/paragraphEditor.json     the paragraph editor (ONESHOT; delegate of rewrite_paragraph)
//	tools/book_protocol.backend     cursors, read, create_targets and the four edit operations
//	tools/cursor_agent.backend      read_cursor_batch and note_evidence
//	tools/book.delegate             run_cursor_agent (§ 6.2) and rewrite_paragraph (§ 6.3)
//	tools/ask_user.frontend         ask_user (§ 6.4)
//	viewports/ask_user.html         its viewport
//
// The agent files get their system prompts from the embedded .md files and
// cfg's model key and guard threshold; the other files are as embedded.
func Files(cfg Config) (map[string][]byte, error) {
	if cfg.MinMeanWeight < 0 || cfg.MinMeanWeight > 100 {
		return nil, fmt.Errorf("minMeanWeight must be between 0 and 100 (got %v)", cfg.MinMeanWeight)
	}
	out := map[string][]byte{}
	err := fs.WalkDir(files, "files", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(p, "files/")
		if strings.HasPrefix(rel, "agents/") {
			if data, err = renderAgent(rel, data, cfg); err != nil {
				return fmt.Errorf("%s: %w", rel, err)
			}
		}
		out[rel] = data
		return nil
	})
	return out, err
}

// FileNames returns the paths of Files in sorted order.
func FileNames() []string {
	m, _ := Files(Config{}) // the embedded files always render
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// renderAgent fills an agent file: system prompt, model key and, for the
// book editor, the guard threshold. Key order is kept.
func renderAgent(rel string, data []byte, cfg Config) ([]byte, error) {
	v, err := agentctx.Decode(data)
	if err != nil {
		return nil, err
	}
	root, ok := v.(*agentctx.Object)
	if !ok {
		return nil, fmt.Errorf("not a JSON object")
	}
	if p, ok := prompts[rel]; ok {
		block, err := child(root, p.block)
		if err != nil {
			return nil, err
		}
		block.Set("systemPrompt", p.text)
	}
	if cfg.ModelKey != "" {
		mc, err := child(root, "modelConfig")
		if err != nil {
			return nil, err
		}
		mc.Set("modelKey", cfg.ModelKey)
	}
	if path.Base(rel) == BookEditorProtocolKey+".json" && cfg.MinMeanWeight != 0 {
		pr, err := child(root, "protocol")
		if err != nil {
			return nil, err
		}
		g, err := child(pr, "guard")
		if err != nil {
			return nil, err
		}
		g.Set("minMeanWeight", json.Number(strconv.FormatFloat(cfg.MinMeanWeight, 'f', -1, 64)))
	}
	compact, err := agentctx.Encode(root)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, compact, "", "\t"); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

func child(o *agentctx.Object, key string) (*agentctx.Object, error) {
	v, _ := o.Get(key)
	c, ok := v.(*agentctx.Object)
	if !ok {
		return nil, fmt.Errorf("%s is not an object", key)
	}
	return c, nil
}
