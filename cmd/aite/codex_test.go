package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

func noModel(t *testing.T) {
	t.Setenv("AITE_MODEL", "")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
}

func TestCodexCommands(t *testing.T) {
	noModel(t)
	book := writeSample(t)
	r := mustRun(t, "codex", "build", book)
	require.Contains(t, r.stderr, "from the text: 10 characters and places")
	require.Contains(t, r.stderr, "no model is configured: a model would read")
	require.Contains(t, r.stderr, "AITE_MODEL", "says how to add the model's part")
	require.FileExists(t, editor.CodexPath(book))

	r = mustRun(t, "codex", book, "list") // the book first reads the same
	require.Contains(t, r.stdout, "звездочкин")
	require.Contains(t, r.stdout, "Аркадий Львович")
	require.Contains(t, r.stderr, "10 entries (stored in")
	r = mustRun(t, "--json", "codex", "list", book, "--kind", "place")
	var list struct {
		Source  string `json:"source"`
		Entries []struct {
			ID    string `json:"id"`
			Items int    `json:"items"`
		} `json:"entries"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &list))
	require.Equal(t, "stored", list.Source)
	require.Len(t, list.Entries, 3, "Верхние Ключи, Тверь, Нижней (улицы)")
	require.Equal(t, "верхние-ключи", list.Entries[0].ID)
	require.Equal(t, 5, list.Entries[0].Items)
	buildLine := regexp.MustCompile(`Верхние Ключи +place +(\d+) items`).FindStringSubmatch(mustRun(t, "codex", "build", book).stderr)
	require.NotNil(t, buildLine)
	require.Equal(t, "5", buildLine[1], "build counts an entry's items as list does")

	r = mustRun(t, "codex", "show", book, "аркадий львович")
	require.Contains(t, r.stdout, "Звёздочкин  (character, text; id звездочкин)")
	require.Contains(t, r.stdout, "ЗВЕЗДОЧКИНУ ×1")

	r = mustRun(t, "codex", "add", book, "Анфиса", "--alias", "Анфиса Павловна", "--description", "жена Кузовкова",
		"--fact", "печёт пироги@74", "--relation", "жена=Кузовков", "--notes", "private")
	require.Contains(t, r.stdout, "added Анфиса (character, id анфиса)")
	wantFail(t, 1, []string{"Анфиса Павловна", "анфиса-павловна"}, "codex", "show", book, "Анфиса Павловна") // two entries have the name
	wantFail(t, 1, []string{"no item has the ID 9999"}, "codex", "add", book, "X", "--fact", "f@9999")
	wantFail(t, 1, []string{"--kind: unknown kind \"planet\""}, "codex", "add", book, "X", "--kind", "planet")
	wantFail(t, 1, []string{"TYPE=TARGET"}, "codex", "add", book, "X", "--relation", "no equals")

	mustRun(t, "codex", "rm", book, "анфиса-павловна")
	r = mustRun(t, "codex", "show", book, "Анфиса", "--at", "1.1.p1")
	require.Contains(t, r.stdout, "facts known at 4:1.1.p1: none yet (1 known later)")
	r = mustRun(t, "codex", "show", book, "Анфиса", "--at", "74")
	require.Contains(t, r.stdout, "1. печёт пироги (74:1.3.2.p9)")
	require.Contains(t, r.stdout, "жена → Кузовков")
	require.Contains(t, r.stdout, "notes: private")

	r = mustRun(t, "codex", "edit", book, "Ерофеич", "--alias", "Ерофей Ильич", "--description", "часовщик", "--confirm")
	require.Contains(t, r.stdout, "changed Ерофеич")
	r = mustRun(t, "codex", "merge", book, "Ерофеич", "Ерофей")
	require.Contains(t, r.stdout, "merged into Ерофеич")
	require.Contains(t, r.stdout, "Ерофей Ильич")
	r = mustRun(t, "codex", "edit", book, "Ерофеич", "--name", "Ерофей Ильич", "--remove-alias", "Ерофей")
	require.Contains(t, r.stdout, "changed Ерофей Ильич")
	require.Contains(t, r.stdout, "also: Ерофеич\n", "the old name is an alias, the new one no longer")
	wantFail(t, 1, []string{"is not an alias"}, "codex", "edit", book, "Ерофеич", "--remove-alias", "Кто-то")
	wantFail(t, 1, []string{"no such entry"}, "codex", "rm", book, "Раскольников")

	// A rebuild keeps what the user did.
	r = mustRun(t, "codex", "build", book, "--no-model")
	require.Contains(t, r.stderr, "left out (you removed them): Анфиса Павловна")
	r = mustRun(t, "codex", "show", book, "Ерофей Ильич")
	require.Contains(t, r.stdout, "часовщик")

	md := mustRun(t, "codex", "export", book).stdout
	require.Contains(t, md, "## Characters\n")
	require.NotContains(t, md, "private")
	js := filepath.Join(t.TempDir(), "codex.json")
	mustRun(t, "codex", "export", book, "--format", "json", "-o", js)
	other := writeSample(t)
	r = mustRun(t, "codex", "import", other, js)
	require.Contains(t, r.stdout, "imported 9 entries")
	r = mustRun(t, "codex", "import", other, js)
	require.Contains(t, r.stdout, "imported 0 entries")
	require.Contains(t, r.stderr, "skipped Варя (already варя)")
	mdFile := filepath.Join(t.TempDir(), "codex.md")
	require.NoError(t, os.WriteFile(mdFile, []byte(md), 0o644))
	r = mustRun(t, "codex", "import", other, mdFile, "--replace")
	require.Contains(t, r.stdout, "imported 9 entries; the codex has 9 entries")
	wantFail(t, 1, []string{"has no appendix section"}, "codex", "import", other, "--appendix")
	wantFail(t, 1, []string{"either FILE or --appendix"}, "codex", "import", other)

	r = mustRun(t, "find", book, "--entry", "Ф. К. Штейн", "--headings")
	require.Contains(t, r.stdout, "**Штейна**")
	require.Contains(t, r.stdout, "**Фёдора Карловича**")
	require.Contains(t, r.stderr, "4 items")
	wantFail(t, 1, []string{"no such entry"}, "find", book, "--entry", "Раскольников")
	wantFail(t, 1, []string{"only BOOK.md"}, "find", book, "word", "--entry", "Варя")
	wantFail(t, 1, []string{"one of --exact, --ranked, --semantic, --hybrid and --entry"}, "find", book, "--entry", "Варя", "--ranked")
	r = mustRun(t, "cursor", book, "--entry", "Штейн", "--no-content")
	require.Contains(t, r.stdout, "52:1.2.p17")
	wantFail(t, 1, []string{"one of --keywords, --entry and --targets"}, "cursor", book, "--entry", "Штейн", "--keywords", "x")
	wantFail(t, 1, []string{`unknown codex subcommand "lst"`, "build, list"}, "codex", "lst", book)
	wantFail(t, 1, []string{`--kind: unknown kind "bogus" (character, place,`}, "codex", "list", book, "--kind", "bogus")
	wantFail(t, 1, []string{`--kind: unknown kind "bogus"`}, "codex", "add", book, "Тест", "--kind", "bogus")
	wantFail(t, 1, []string{`unknown codex subcommand "lst"`}, "codex", book, "lst")
	require.Contains(t, mustRun(t, "codex", "--json", book, "list").stdout, `"entries"`, "a flag before the book")
}

func TestCodexBuildWithAModel(t *testing.T) {
	book := writeSample(t)
	srv := llmtest.NewServerFunc(t, func(r llmtest.Request) llmtest.Response {
		rf, _ := r.JSON["response_format"].(map[string]any)
		js, _ := rf["json_schema"].(map[string]any)
		if js["name"] == "cursor_decision" {
			return cursorOracle(r, map[int]bool{}) // no item matches: facts come from nowhere
		}
		var msg struct {
			Entry struct {
				ID    string   `json:"id"`
				Kind  string   `json:"kind"`
				Names []string `json:"names"`
			} `json:"entry"`
		}
		for _, m := range messagesOf(r) {
			if m.Role == "user" {
				_ = json.Unmarshal([]byte(text(m)), &msg)
			}
		}
		a := map[string]any{"keep": true, "kind": msg.Entry.Kind, "name": msg.Entry.Names[0], "description": "про " + msg.Entry.Names[0],
			"sameAs": []string{}, "aliases": []string{}, "facts": []any{}, "relations": []any{}}
		if msg.Entry.Names[0] == "Ерофеич" {
			a["sameAs"] = []string{"ерофей"}
		}
		if msg.Entry.Names[0] == "Нижней" {
			a["keep"] = false
		}
		b, _ := json.Marshal(a)
		return say(string(b))
	})
	t.Setenv("AITE_MODEL", "openai:test-model")
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test-key")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())

	r := mustRun(t, "codex", "build", book, "--estimate")
	require.Contains(t, r.stderr, "the model (openai:test-model) will read the")
	require.Contains(t, r.stderr, "the price of the model is unknown")
	require.Empty(t, srv.Requests(), "an estimate calls no model")
	r = run(t, "", "codex", "build", book)
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "not a terminal")
	require.Contains(t, r.stdout, "the codex of")
	require.Empty(t, srv.Requests(), "nothing is spent unconfirmed")

	r = mustRun(t, "codex", "build", book, "--yes", "--entries", "12")
	require.Contains(t, r.stdout, "the model read 9 entries: 8 kept, 1 merged into others, 1 dropped")
	require.Contains(t, r.stderr, "✓ 1/10 Варя")
	require.NotEmpty(t, srv.Requests())
	r = mustRun(t, "codex", "show", book, "Ерофей")
	require.Contains(t, r.stdout, "Ерофеич  (character, model, confirmed")
	require.Contains(t, r.stdout, "про Ерофеич")
	wantFail(t, 1, []string{"no such entry"}, "codex", "show", book, "Нижней")
	r = mustRun(t, "codex", "build", book, "--yes")
	require.Contains(t, r.stderr, "the model has nothing to read")
	require.NotContains(t, r.stdout, "the model read", "confirmed entries are not read again")
	require.True(t, strings.Contains(r.stderr, "kept as they were"))
}

func TestNavigateAnEntry(t *testing.T) {
	truth := paragraphsMentioning(t, filepath.Join("..", "..", "examples", "zvezdochkin.md"), "Штейн")
	w := newWorld(t, func(llmtest.Request, int) llmtest.Response { return say("unused") }, truth)
	mustRun(t, "codex", "build", w.book, "--no-model")
	r := mustRun(t, "navigate", w.book, "a paragraph about the master", "--entry", "Ф. К. Штейн", "--mode", "last")
	require.Contains(t, r.stdout, "89:1.4.p10", "the letter's signature: the last item naming him by any name")
	require.Contains(t, r.stderr, "batch 1 of ~1")
	wantFail(t, 1, []string{"one of --keywords, --entry and --targets"}, "navigate", w.book, "x", "--entry", "Штейн", "--keywords", "y")
	wantFail(t, 1, []string{"no such entry"}, "navigate", w.book, "x", "--entry", "Раскольников")
}
