// Package builtins holds the built-in definitions of the aite server,
// written into the definition directories at every start
// (agentdef.WriteBuiltins, PLATFORM_API § 7.5): the book editor agent
// (bookEditor, the default agent), one demo agent per platform feature,
// their tool files, viewport and skill, and a models file; plus the Go
// demo backend tools and the model source that resolves the "default"
// model key.
//
// The demo agents (all on modelKey "default"):
//
//	demoOneshot   ONESHOT: one answer, no tools
//	demoReact     REACT with the Go backend tools current_time and word_count
//	demoPlanner   PLAN_EXECUTE: plans tasks, executes them with those tools, sums up
//	demoAction    REACT over a document with the action highlight_pointer
//	demoConfirm   REACT with the frontend tool confirm and its viewport confirm.html
//	demoSkill     REACT with the skill text-stats (a shell script)
//
// The book editor's agent file is generated: its system prompt is
// booktools.SystemPrompt and its backends are every book tool, so the file
// can never drift from the tools.
//
// The book editor on the solution protocol (AGENT_PROTOCOL § 6) comes from
// bookprotocol.Files: the protocol agents bookEditorProtocol (editGate
// advisor and guard), cursorAgent (delegate of run_cursor_agent) and
// paragraphEditor (delegate of rewrite_paragraph), their tool files
// (book_protocol.backend, cursor_agent.backend, book.delegate,
// ask_user.frontend) and the viewport ask_user.html. Their Go backends are
// bookprotocol's activities, listed in BackendNames.
package builtins

import (
	"bytes"
	"embed"
	"encoding/json"
	"io/fs"
	"strings"
	"testing/fstest" // only its MapFS: an in-memory fs.FS for WriteBuiltins
	"text/template"

	"github.com/aitexteditor/aite/internal/tool"
	"github.com/aitexteditor/aite/internal/tool/bookprotocol"
	"github.com/aitexteditor/aite/internal/tool/booktools"
)

// BookEditorKey is the key of the book editor agent.
const BookEditorKey = "bookEditor"

// bookEditorFile is the generated agent file inside FS.
const bookEditorFile = "agents/" + BookEditorKey + ".json"

var (
	//go:embed all:files
	files embed.FS
	//go:embed bookeditor.json.tmpl
	bookEditorTemplate string
)

// FS returns the built-in definition files for agentdef.WriteBuiltins:
// agents/, tools/, viewports/, skills/<id>/ and models/.
func FS() fs.FS {
	out := fstest.MapFS{}
	sub, err := fs.Sub(files, "files")
	if err != nil {
		panic(err) // the directory is embedded
	}
	err = fs.WalkDir(sub, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(sub, p)
		mode := fs.FileMode(0o644)
		if strings.HasSuffix(p, ".sh") || strings.HasSuffix(p, ".py") {
			mode = 0o755
		}
		out[p] = &fstest.MapFile{Data: data, Mode: mode}
		return err
	})
	if err != nil {
		panic(err) // reading an embed.FS does not fail
	}
	out[bookEditorFile] = &fstest.MapFile{Data: BookEditorFile(), Mode: 0o644}
	protocolFiles, err := bookprotocol.Files(bookprotocol.Config{ModelKey: DefaultModelKey})
	if err != nil {
		panic(err) // the files are embedded and the config is fixed
	}
	for p, data := range protocolFiles {
		out[p] = &fstest.MapFile{Data: data, Mode: 0o644}
	}
	return out
}

// BookEditorFile returns the generated agent file of the book editor.
func BookEditorFile() []byte {
	t := template.Must(template.New("bookEditor").Parse(bookEditorTemplate))
	var b bytes.Buffer
	err := t.Execute(&b, struct {
		ModelKey, Backends, SystemPrompt string
	}{DefaultModelKey, quoteList(BookToolNames(), "\n\t\t\t"), indent(booktools.SystemPrompt, "\t\t\t")})
	if err != nil {
		panic(err) // the template and its data are fixed
	}
	return b.Bytes()
}

// BookToolNames returns the names of the book tools, in their order.
func BookToolNames() []string {
	var out []string
	for _, t := range booktools.Tools(booktools.Env{}) {
		out = append(out, strings.ToLower(t.Name()))
	}
	return out
}

// BackendNames returns the names of every Go backend tool the server
// provides (the book tools, the protocol book activities and the demo
// tools), for agentdef.Loader.Backends.
func BackendNames() map[string]bool {
	out := map[string]bool{}
	for _, n := range BookToolNames() {
		out[n] = true
	}
	for _, n := range bookprotocol.ActivityNames() {
		out[n] = true
	}
	for _, t := range Backends() {
		out[strings.ToLower(t.Name())] = true
	}
	return out
}

// quoteList writes names as JSON strings separated by "," + sep.
func quoteList(names []string, sep string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		b, _ := json.Marshal(n) // a string always encodes
		quoted[i] = string(b)
	}
	return strings.Join(quoted, ","+sep)
}

// indent prefixes every non-blank line of text with prefix, for a """
// string (whose common indentation the loader removes again).
func indent(text, prefix string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != "" {
			lines[i] = prefix + l
		} else {
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n")
}

// jsonResult encodes v as a tool result.
func jsonResult(v any) tool.Result {
	b, err := json.Marshal(v)
	if err != nil {
		return tool.Errorf("tool_failed", "cannot encode the result: %v", err)
	}
	return tool.Result{Text: string(b)}
}
