package aite_test

// The architecture test: it keeps the dependency direction of ARCHITECTURE.md true.
// Every package under internal/ may import only the internal packages its row in the table below
// allows; the core never imports anything about LLMs, HTTP or storage; internal/ never imports cmd/.
// Only non-test files are considered (tests may use fakes from anywhere).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

const (
	modulePath     = "github.com/aitexteditor/aite"
	internalPrefix = modulePath + "/internal/"
)

// architecture maps each internal package (path below internal/) to the internal packages it may
// import directly. What an allowed package may import is allowed too (see allowedFor), so checking
// direct imports enforces the transitive rule. "x/*" stands for every package below x/.
// Keep this table in step with ARCHITECTURE.md.
var architecture = map[string][]string{
	"pointer":         nil,
	"document":        {"pointer"},
	"markdown":        {"document", "pointer"},
	"textnorm":        nil,
	"textdiff":        nil,
	"render":          {"textdiff"}, // HTML of Markdown blocks, word diffs and search excerpts for the web app
	"atomicfile":      nil,
	"testbook":        nil, // test data access for tests and benchmarks only
	"cursor":          {"document", "pointer", "textnorm", "search"},
	"search":          {"document", "pointer", "textnorm"},
	"codex":           {"document", "pointer", "textnorm"},
	"bookcache":       {"document", "search", "pointer", "textnorm", "atomicfile"},
	"bookview":        {"document", "pointer", "textnorm", "cursor", "search"},
	"codex/assist":    {"codex", "cursoragent", "editor", "cursor", "search", "llm"},
	"codex/codexgold": {"codex", "document", "markdown", "pointer", "textnorm", "testbook"}, // gold measurement for tests
	"editor":          {"document", "markdown", "pointer", "textnorm", "cursor", "search", "codex", "atomicfile", "textdiff", "bookcache", "bookview"},
	"reading":         {"bookview", "cursor", "document", "pointer", "search", "textnorm"},
	"quick":           {"reading", "bookcache", "bookview", "cursor", "document", "pointer", "search", "textnorm", "atomicfile"},
	"llm":             nil,
	"llm/openai":      {"llm", "llm/wire"},
	"llm/wire":        nil,
	"llm/llmtest":     {"llm", "llm/openai", "textnorm"},
	"llm/anthropic":   {"llm", "llm/wire"},
	"llm/models":      {"llm", "llm/openai", "llm/anthropic", "llm/wire"},
	"cursoragent":     {"llm", "tool", "agentdef", "store", "cursor", "editor", "document", "markdown", "pointer", "textnorm", "search", "atomicfile", "textdiff"},
	"tool":            {"llm"},
	"tool/booktools":  {"tool", "editor", "codex", "codex/assist", "cursor", "cursoragent", "search", "document", "markdown", "pointer", "textnorm", "atomicfile", "textdiff", "llm", "agentdef", "store"},
	// THE agent runtime (issue 15): Runner.Run(ctx, Spec) → its events, for the CLI, the server and
	// the evaluation alike; the turn strategies (react, oneshot, planExecute, the solution protocol)
	// are private to it. It knows no wire: the server's assembler maps its events to api.Event.
	"agent":          {"llm", "llm/models", "tool", "agentdef", "store", "agent/agentctx", "agent/protocol"},
	"agent/agentctx": {"jsontext"},
	"agentdef":       {"llm", "tool", "llm/models", "agent/agentctx", "agent/protocol"},
	"store":          nil,
	"store/*":        {"store", "document", "pointer"},
	"store/postgres": {"store", "document", "pointer"},
	// pgtest: a schema of the test PostgreSQL server per test, for tests only.
	"store/postgres/pgtest": {"store", "store/postgres"},
	"api":                   {"jsontext"},
	// JSON strings written as encoding/json writes them, without reflection (the API's events, the
	// runtime's context values).
	"jsontext": nil,
	// The platform server: handlers, the chat service, the assembler (agent.Event → api.Event), the
	// run manager, /submit parsing (typed answers for the runtime's Waiter), documents.
	"server": {"api", "agent", "agentdef", "store", "store/*", "store/postgres", "editor", "document", "tool", "tool/booktools", "llm", "llm/models",
		"cursoragent", "server/auth", "server/config", "server/builtins", "mcpserver", "render", "codex", "codex/assist"},
	"server/auth":     nil,
	"server/config":   {"server/auth"},
	"server/builtins": {"tool", "tool/booktools", "tool/bookprotocol", "llm", "llm/models"},
	"mcpserver":       {"editor", "document", "textdiff", "cursoragent", "tool", "tool/booktools"},
	// The command line: aite ask/chat run any agent the server runs through the same runtime.
	"cli": {"document", "markdown", "pointer", "textdiff", "atomicfile", "editor", "codex", "codex/assist", "cursor", "search", "textnorm", "reading",
		"agent", "tool", "tool/booktools", "cursoragent", "llm", "llm/models", "server", "server/config", "mcpserver", "eval"},

	// The evaluation (ARCHITECTURE: "eval/ task generation with gold from the index and codex, scoring,
	// reports"): gold from the core, the agents only through its Runner interface (implemented by cli).
	"eval":                    {"document", "markdown", "pointer", "search", "textnorm", "editor", "textdiff", "atomicfile", "llm"},
	"eval/evaltest":           {"eval", "llm", "llm/llmtest", "textnorm"}, // the oracle fake model, for tests
	"eval/evaltest/fakemodel": {"eval", "eval/evaltest", "editor", "llm/llmtest"},

	// The solution protocol and the book editor on it (AGENT_PROTOCOL).
	"agent/protocol":    {"agent/agentctx", "llm"},
	"tool/bookprotocol": {"tool", "tool/booktools", "agent/protocol", "agent/agentctx", "editor", "codex", "cursor", "document", "pointer"},
}

// corePackages must stay free of LLMs, HTTP and storage, also through third-party dependencies.
var corePackages = []string{"pointer", "document", "markdown", "textnorm", "cursor", "search", "codex", "bookcache", "bookview", "editor", "reading"}

// runtimePackages are the agent runtime and its algebra: they never import the wire (the server's
// api package, HTTP); the server maps their events onto it.
var runtimePackages = []string{"agent", "agent/protocol", "agent/agentctx"}

// runtimeForbidden lists the direct imports the runtime packages must not have.
var runtimeForbidden = []string{"net/http", internalPrefix + "api", internalPrefix + "server"}

// coreForbidden lists import paths (and everything below them) the core must not depend on.
var coreForbidden = []string{
	"net/http",
	"database/sql",
	"modernc.org/sqlite",
	"github.com/mattn/go-sqlite3",
	"github.com/jackc/pgx",
	"github.com/lib/pq",
	"github.com/pressly/goose",
	"github.com/openai/openai-go",
	"github.com/anthropics/anthropic-sdk-go",
	"github.com/modelcontextprotocol/go-sdk",
	"google.golang.org/genai",
}

// quickPackages answer the reading commands before the rest of aite initialises
// (internal/quick): they must not depend on the Markdown parser or the command-line framework
// either, whose initialisation is what that path avoids.
var quickPackages = []string{"quick", "reading", "bookview", "bookcache"}

// quickForbidden adds to coreForbidden what the quick path must not depend on.
var quickForbidden = append(slices.Clone(coreForbidden), "github.com/yuin/goldmark", "github.com/spf13/cobra")

// listedPackage is the part of `go list -json` output the check reads.
type listedPackage struct {
	ImportPath string
	Imports    []string // direct imports of the non-test files
	Deps       []string // all transitive dependencies of the non-test files
	Error      *struct{ Err string }
}

// under reports whether path is root or below it.
func under(path, root string) bool {
	return path == root || strings.HasPrefix(path, root+"/")
}

// tableKey finds the row of an internal package: its own, or the nearest "x/*" above it.
func tableKey(name string) (string, bool) {
	if _, ok := architecture[name]; ok {
		return name, true
	}
	for dir := name; strings.Contains(dir, "/"); {
		dir = dir[:strings.LastIndex(dir, "/")]
		if _, ok := architecture[dir+"/*"]; ok {
			return dir + "/*", true
		}
	}
	return "", false
}

// allowedFor returns the table entries a package may import: its row, closed transitively.
func allowedFor(key string) map[string]bool {
	allowed := map[string]bool{}
	var add func(string)
	add = func(k string) {
		for _, dep := range architecture[k] {
			if !allowed[dep] {
				allowed[dep] = true
				add(dep)
			}
		}
	}
	add(key)
	return allowed
}

// permits reports whether the internal package name is covered by an allowed entry.
func permits(allowed map[string]bool, name string) bool {
	key, ok := tableKey(name)
	return ok && allowed[key]
}

// checkArchitecture returns one line per violation, in package order.
func checkArchitecture(pkgs []listedPackage) []string {
	var problems []string
	for _, p := range pkgs {
		name, ok := strings.CutPrefix(p.ImportPath, internalPrefix)
		if !ok {
			continue
		}
		if p.Error != nil {
			problems = append(problems, fmt.Sprintf("package %s could not be loaded, so its imports are unchecked: %s", p.ImportPath, p.Error.Err))
		}
		key, known := tableKey(name)
		if !known {
			problems = append(problems, fmt.Sprintf("package %s is not in the architecture table; add it to arch_test.go and ARCHITECTURE.md", p.ImportPath))
			continue
		}
		problems = append(problems, checkImports(p, name, allowedFor(key))...)
		if slices.Contains(corePackages, name) {
			problems = append(problems, checkForbidden(p, coreForbidden,
				"the core never imports anything about LLMs, HTTP or storage")...)
		}
		if slices.Contains(quickPackages, name) {
			problems = append(problems, checkForbidden(p, quickForbidden,
				"the quick path never loads the parser, cobra, LLMs, HTTP or storage")...)
		}
		if slices.Contains(runtimePackages, name) {
			direct := listedPackage{ImportPath: p.ImportPath, Imports: p.Imports} // the runtime's own imports
			problems = append(problems, checkForbidden(direct, runtimeForbidden,
				"the agent runtime knows no wire types (the server's assembler maps its events)")...)
		}
	}
	return problems
}

func checkImports(p listedPackage, name string, allowed map[string]bool) []string {
	var problems []string
	for _, imp := range p.Imports {
		dep, internal := strings.CutPrefix(imp, internalPrefix)
		switch {
		case internal && !permits(allowed, dep):
			problems = append(problems, fmt.Sprintf("internal/%s imports internal/%s, which the architecture does not allow (allowed: %s)",
				name, dep, allowedList(allowed)))
		case under(imp, modulePath+"/cmd"):
			problems = append(problems, fmt.Sprintf("internal/%s imports %s: internal packages must never import cmd/", name, imp))
		case !internal && under(imp, modulePath):
			problems = append(problems, fmt.Sprintf("internal/%s imports %s, which is outside internal/ and not in the architecture table", name, imp))
		}
	}
	return problems
}

// checkForbidden reports each forbidden dependency of a package once: the direct import if there
// is one, else the first (go list sorts Deps, so the shortest) transitive dependency.
func checkForbidden(p listedPackage, forbidden []string, why string) []string {
	var problems []string
	for _, bad := range forbidden {
		isBad := func(path string) bool { return under(path, bad) }
		how, dep := "imports", ""
		if i := slices.IndexFunc(p.Imports, isBad); i >= 0 {
			dep = p.Imports[i]
		} else if i := slices.IndexFunc(p.Deps, isBad); i >= 0 {
			how, dep = "depends (transitively) on", p.Deps[i]
		} else {
			continue
		}
		problems = append(problems, fmt.Sprintf("package %s %s %s: %s", p.ImportPath, how, dep, why))
	}
	return problems
}

func allowedList(allowed map[string]bool) string {
	if len(allowed) == 0 {
		return "no internal packages"
	}
	names := make([]string, 0, len(allowed))
	for name := range allowed {
		names = append(names, name)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// listPackages runs `go list -e -json ./...` for the host platform and, so that files behind build
// constraints are seen too, for windows and darwin; imports are merged. Load errors count only
// on the host platform (elsewhere a package may legitimately have no files).
func listPackages(t *testing.T) []listedPackage {
	t.Helper()
	platforms := []string{runtime.GOOS}
	for _, goos := range []string{"windows", "darwin"} {
		if goos != runtime.GOOS {
			platforms = append(platforms, goos)
		}
	}
	results := make([][]listedPackage, len(platforms))
	errs := make([]error, len(platforms))
	var wg sync.WaitGroup
	for i, goos := range platforms {
		wg.Go(func() { results[i], errs[i] = goList(goos, i == 0) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return mergePackages(results)
}

func goList(goos string, host bool) ([]listedPackage, error) {
	cmd := exec.Command("go", "list", "-e", "-json", "./...")
	if !host {
		cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH=amd64")
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("GOOS=%s go list -e -json ./...: %v\n%s", goos, err, stderr.Bytes())
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			return pkgs, nil
		} else if err != nil {
			return nil, fmt.Errorf("GOOS=%s go list: decoding its output: %v", goos, err)
		}
		if !host {
			p.Error = nil
		}
		pkgs = append(pkgs, p)
	}
}

// mergePackages unions the imports each platform reports, keeping the first platform's order.
func mergePackages(perPlatform [][]listedPackage) []listedPackage {
	var merged []listedPackage
	index := map[string]int{}
	for _, pkgs := range perPlatform {
		for _, p := range pkgs {
			i, seen := index[p.ImportPath]
			if !seen {
				index[p.ImportPath] = len(merged)
				merged = append(merged, p)
				continue
			}
			m := &merged[i]
			m.Imports = union(m.Imports, p.Imports)
			m.Deps = union(m.Deps, p.Deps)
		}
	}
	return merged
}

func union(a, b []string) []string {
	for _, s := range b {
		if !slices.Contains(a, s) {
			a = append(a, s)
		}
	}
	return a
}

func TestArchitecture(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not in PATH, so the architecture cannot be listed; skipping")
	}
	pkgs := listPackages(t)
	recordInputs(t)
	internal := 0
	for _, p := range pkgs {
		if strings.HasPrefix(p.ImportPath, internalPrefix) {
			internal++
		}
	}
	if internal == 0 {
		t.Fatalf("go list found no packages under %s; the check would prove nothing", internalPrefix)
	}
	for _, problem := range checkArchitecture(pkgs) {
		t.Error(problem)
	}
}

// recordInputs stats go.mod and every Go file under internal/ and opens its directories. go test
// caches a result keyed by the files the test process itself touches; go list reads the sources in
// a child process, so without this a changed import could be answered by a stale cached pass.
func recordInputs(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("go.mod"); err != nil {
		t.Fatal(err)
	}
	err := filepath.WalkDir("internal", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".go") {
			_, err = os.Stat(path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestArchitectureTable keeps the table itself sound: every entry names a row, rows form no cycle,
// and every core package has a row.
func TestArchitectureTable(t *testing.T) {
	for key, deps := range architecture {
		for _, dep := range deps {
			if _, ok := architecture[dep]; !ok {
				t.Errorf("row %q allows %q, which has no row of its own", key, dep)
			}
		}
		if allowedFor(key)[key] {
			t.Errorf("row %q allows itself through a cycle in the table", key)
		}
	}
	for _, core := range corePackages {
		if _, ok := architecture[core]; !ok {
			t.Errorf("core package %q has no row in the table", core)
		}
	}
}

// TestArchitectureChecker proves the check can fail: fake import maps with known answers.
func TestArchitectureChecker(t *testing.T) {
	in := func(name string) string { return internalPrefix + name }
	pkg := func(name string, imports ...string) listedPackage {
		return listedPackage{ImportPath: in(name), Imports: imports, Deps: imports}
	}
	tests := []struct {
		name string
		pkgs []listedPackage
		want []string // substrings, one per expected problem; none means the packages pass
	}{
		{"allowed direct import", []listedPackage{pkg("document", in("pointer"), "strings")}, nil},
		{"allowed through the closure", []listedPackage{pkg("server", in("pointer"), in("store/sqlite"), "net/http")}, nil},
		{"backend under store/*", []listedPackage{pkg("store/sqlite", in("store"), "database/sql")}, nil},
		{"outside internal is not checked", []listedPackage{{ImportPath: modulePath + "/cmd/aite", Imports: []string{in("server"), "net/http"}}}, nil},
		{"upward import", []listedPackage{pkg("pointer", in("document"))},
			[]string{"internal/pointer imports internal/document, which the architecture does not allow (allowed: no internal packages)"}},
		{"backend importing the editor", []listedPackage{pkg("store/sqlite", in("store"), in("editor"))},
			[]string{"internal/store/sqlite imports internal/editor"}},
		{"unknown package", []listedPackage{pkg("frobnicator")},
			[]string{"package " + in("frobnicator") + " is not in the architecture table; add it to arch_test.go and ARCHITECTURE.md"}},
		{"internal imports cmd", []listedPackage{pkg("cli", modulePath+"/cmd/aite")},
			[]string{"internal/cli imports " + modulePath + "/cmd/aite: internal packages must never import cmd/"}},
		{"core imports HTTP", []listedPackage{pkg("editor", "net/http")},
			[]string{"package " + in("editor") + " imports net/http: the core never"}},
		{"core depends on storage transitively", []listedPackage{{ImportPath: in("markdown"), Deps: []string{"modernc.org/sqlite/lib"}}},
			[]string{"package " + in("markdown") + " depends (transitively) on modernc.org/sqlite/lib"}},
		{"the quick path depends on the parser", []listedPackage{{ImportPath: in("reading"), Deps: []string{"github.com/yuin/goldmark/parser"}}},
			[]string{"package " + in("reading") + " depends (transitively) on github.com/yuin/goldmark/parser: the quick path never"}},
		{"core imports an LLM client", []listedPackage{pkg("search", "github.com/openai/openai-go/v3")},
			[]string{"imports github.com/openai/openai-go/v3"}},
		{"the runtime imports HTTP", []listedPackage{pkg("agent", in("llm"), "net/http")},
			[]string{"package " + in("agent") + " imports net/http: the agent runtime knows no wire types"}},
		{"load error", []listedPackage{{ImportPath: in("document"), Error: &struct{ Err string }{"syntax error"}}},
			[]string{"could not be loaded, so its imports are unchecked: syntax error"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := checkArchitecture(tc.pkgs)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d problems, want %d:\n%s", len(got), len(tc.want), strings.Join(got, "\n"))
			}
			for i, want := range tc.want {
				if !strings.Contains(got[i], want) {
					t.Errorf("problem %d = %q, want it to contain %q", i, got[i], want)
				}
			}
		})
	}
}
