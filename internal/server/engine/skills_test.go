package engine

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/api"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

// skillFiles define the skill calc with scripts and an agent using it.
func skillFiles() map[string]string {
	return map[string]string{
		"agents/a.json": react(`"key": "a", "skills": ["calc"], "toolConfig": {"backends": ["_skill_run_script_"]},
			"runtimePrompts": {"toolAppendix": {"toolDescriptionTitle": "Notes:"}}`),
		"skills/calc/SKILL.md":          "---\nname: Calculator\ndescription: Adds numbers.\n---\nUse scripts/add.sh with two numbers.\n",
		"skills/calc/scripts/add.sh":    "echo $(( $1 + $2 ))\necho warn >&2\n",
		"skills/calc/scripts/fail.sh":   "exit 3\n",
		"skills/calc/scripts/sleep.sh":  "exec sleep 5\n",
		"skills/calc/scripts/big.sh":    "head -c 70000 /dev/zero | tr '\\0' 'x'\n",
		"skills/calc/notes.txt":         "not a script",
		"skills/other/SKILL.md":         "Other skill.\n",
		"skills/other/scripts/other.sh": "echo other\n",
		"outside.sh":                    "echo outside\n",
	}
}

// Row 60, §§ 6.2, 7.2: the skill catalog is only in the system prompt; a
// disclosure appears once, in every turn after the first
// _skill_run_script_ naming the skill, and is never stored.
func TestSkillCatalogAndDisclosure(t *testing.T) {
	e := newEnv(t, skillFiles())
	run := `{"skill":"calc","script":"scripts/add.sh","args":["2","3"]}`
	p := scripted(llmtest.Calls(call("c1", SkillRunScript, run)), llmtest.Calls(call("c2", SkillRunScript, run)),
		llmtest.Text("5"))
	e.provide(p)
	rec, s := e.run("a", "add")
	rec.requireTerminal(t, "complete:stop")
	require.Equal(t, `result:c1:{"ok":true,"exitCode":0,"stdout":"5\n","stderr":"warn\n","timedOut":false}`,
		rec.filter("result:c1")[0])
	reqs := p.Requests()
	catalog := "Available skills:\n\nskillId: calc\nname: Calculator\ndescription: Adds numbers."
	disclosure := "Skill instructions:\nCalculator\nInstructions:\nUse scripts/add.sh with two numbers."
	require.True(t, strings.HasPrefix(reqs[0].Messages[0].Content, "You act.\n\n"+catalog+"\n\nNotes:\n- _skill_run_script_: "))
	require.NotContains(t, reqs[0].Messages[0].Content, "Skill instructions:")
	for _, req := range reqs[1:] {
		sys := req.Messages[0].Content
		require.Equal(t, 1, strings.Count(sys, disclosure), sys)
		require.Less(t, strings.Index(sys, catalog), strings.Index(sys, disclosure))
		require.Less(t, strings.Index(sys, disclosure), strings.Index(sys, "Notes:"))
		for _, m := range req.Messages[1:] {
			require.NotContains(t, m.Content, "Available skills:")
			require.NotContains(t, m.Content, "Skill instructions:")
		}
	}
	msgs, err := e.st.ListMessages(context.Background(), s.RunID)
	require.NoError(t, err)
	for _, m := range msgs {
		require.NotContains(t, string(m.Body), "Skill instructions:")
	}
	systems, err := e.st.ListSystems(context.Background(), s.RunID)
	require.NoError(t, err)
	require.Len(t, systems, 3)
	for _, sys := range systems {
		require.NotContains(t, string(sys.Body), "Skill instructions:")
		require.Contains(t, string(sys.Body), `"stream":true`)
	}
}

// § 7.2: _skill_run_script_ runs .sh/.py files inside the skill directory
// with a timeout and rejects traversal, files outside the directory,
// other suffixes and bad argument combinations as invalid_arguments.
func TestSkillRunScript(t *testing.T) {
	e := newEnv(t, skillFiles())
	s := e.spec("a", "x")
	r := &run{spec: s, agent: &s.Agent}
	skill, _ := e.snap.Skill("calc")
	require.NoError(t, os.Symlink(filepath.Join(skill.Dir, "..", "..", "outside.sh"), filepath.Join(skill.Dir, "link.sh")))
	invalid := func(text string) string { return errJSON(SkillRunScript, api.ToolCodeInvalidArguments, text) }
	cases := []struct {
		name, args, want string
	}{
		{"exit code", `{"skill":"calc","script":"scripts/fail.sh"}`,
			`{"ok":false,"exitCode":3,"stdout":"","stderr":"","timedOut":false}`},
		{"timeout", `{"skill":"calc","script":"scripts/sleep.sh","timeoutMs":30}`,
			`{"ok":false,"exitCode":-1,"stdout":"","stderr":"","timedOut":true}`},
		{"traversal", `{"skill":"calc","script":"../../outside.sh"}`,
			invalid(`script must stay inside the skill directory: "../../outside.sh"`)},
		{"other skill", `{"skill":"calc","script":"../other/scripts/other.sh"}`,
			invalid(`script must stay inside the skill directory: "../other/scripts/other.sh"`)},
		{"absolute", `{"skill":"calc","script":"/bin/sh"}`,
			invalid(`script must be a relative path inside the skill directory: "/bin/sh"`)},
		{"symlink outside", `{"skill":"calc","script":"link.sh"}`,
			invalid(`script must stay inside the skill directory: "link.sh"`)},
		{"suffix", `{"skill":"calc","script":"notes.txt"}`, invalid(`script must be a .py or .sh file: "notes.txt"`)},
		{"missing", `{"skill":"calc","script":"scripts/none.sh"}`, invalid(`script not found: "scripts/none.sh"`)},
		{"both", `{"skill":"calc","script":"scripts/add.sh","pythonCode":"print(1)"}`,
			invalid("give exactly one of script or pythonCode")},
		{"neither", `{"skill":"calc"}`, invalid("give exactly one of script or pythonCode")},
		{"unknown skill", `{"skill":"other","script":"scripts/other.sh"}`, invalid(`unknown skill: "other"`)},
		{"too much code", `{"skill":"calc","pythonCode":"` + strings.Repeat("#", maxPythonCode+1) + `"}`,
			invalid("pythonCode exceeds 65536 bytes")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := runSkillScript(context.Background(), r, c.args)
			require.NoError(t, err)
			require.Equal(t, c.want, out.text)
		})
	}
	t.Run("output cap", func(t *testing.T) {
		out, err := runSkillScript(context.Background(), r, `{"skill":"calc","script":"scripts/big.sh"}`)
		require.NoError(t, err)
		var res scriptResult
		require.NoError(t, json.Unmarshal([]byte(out.text), &res))
		require.Len(t, res.Stdout, maxScriptOutput)
		require.True(t, res.OK)
	})
	t.Run("python code", func(t *testing.T) {
		if _, err := exec.LookPath("python3"); err != nil {
			t.Skip("python3 not installed")
		}
		out, err := runSkillScript(context.Background(), r,
			`{"skill":"calc","pythonCode":"import os, sys\nprint(sys.argv[1])\nprint(os.getcwd())","args":["hi"]}`)
		require.NoError(t, err)
		var res scriptResult
		require.NoError(t, json.Unmarshal([]byte(out.text), &res))
		require.True(t, res.OK, res.Stderr)
		lines := strings.Split(strings.TrimSpace(res.Stdout), "\n")
		require.Equal(t, "hi", lines[0])
		_, err = os.Stat(lines[1])
		require.True(t, os.IsNotExist(err), "the temporary directory is removed")
	})
}
