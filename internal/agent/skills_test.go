package agent

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

// skillFiles define the skill calc with scripts and an agent using it.
func skillFiles() map[string]string {
	return map[string]string{
		"agents/a.json": react(`"key": "a", "skills": ["calc"], "toolConfig": {"backends": ["_skill_run_script_"]},
			"runtimePrompts": {"toolAppendix": {"toolDescriptionTitle": "Notes:"}}`),
		"skills/calc/SKILL.md":          "---\nname: Calculator\ndescription: Adds numbers.\ninlineCode: true\n---\nUse scripts/add.sh with two numbers.\n",
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
	e.eng.AllowInlineCode = true
	s := e.spec("a", "x")
	r := &run{e: e.eng, spec: s, agent: &s.Agent}
	skill, _ := e.snap.Skill("calc")
	require.NoError(t, os.Symlink(filepath.Join(skill.Dir, "..", "..", "outside.sh"), filepath.Join(skill.Dir, "link.sh")))
	invalid := func(text string) string { return errJSON(SkillRunScript, ToolCodeInvalidArguments, text) }
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

// Issue 14: the demo skill agent ran inline Python sent by anyone who could
// send a message, as the server's user, with the server's environment (the
// model key, the token secrets), and a `sleep` a script started outlived
// the run. Inline code runs only for a skill that declares it and a server
// that allows it; every script gets a clean environment and a scratch
// working directory, and its whole process group is killed at its end, at
// its timeout and when the run is canceled.
func TestSkillSandbox(t *testing.T) {
	files := skillFiles()
	files["agents/a.json"] = react(`"key": "a", "skills": ["calc", "plain"], "toolConfig": {"backends": ["_skill_run_script_"]}`)
	files["skills/plain/SKILL.md"] = "---\nname: Plain\n---\nNo inline code.\n"
	files["skills/calc/scripts/env.sh"] = "env\necho \"cwd=$(pwd)\"\n"
	files["skills/calc/scripts/spawn.sh"] = "sleep 30 &\necho $!\n"
	files["skills/calc/scripts/hang.sh"] = "sleep 31 &\necho $!\nsleep 32\n"
	e := newEnv(t, files)
	s := e.spec("a", "x")
	r := &run{e: e.eng, spec: s, agent: &s.Agent}
	call := func(ctx context.Context, args string) scriptResult {
		t.Helper()
		out, err := runSkillScript(ctx, r, args)
		require.NoError(t, err)
		var res scriptResult
		require.NoError(t, json.Unmarshal([]byte(out.text), &res), out.text)
		return res
	}
	refused := func(skill string) {
		t.Helper()
		out, err := runSkillScript(context.Background(), r, `{"skill":"`+skill+`","pythonCode":"print(1)"}`)
		require.NoError(t, err)
		require.Contains(t, out.text, `"code":"invalid_arguments"`)
		require.Contains(t, out.text, "inline code is not allowed for skill")
	}
	refused("calc")  // declared by the skill, not allowed by the server
	refused("plain") // allowed below, not declared
	e.eng.AllowInlineCode = true
	refused("plain")
	if _, err := exec.LookPath("python3"); err == nil {
		res := call(context.Background(), `{"skill":"calc","pythonCode":"print(6*7)"}`)
		require.Equal(t, "42\n", res.Stdout, res.Stderr)
	}

	t.Setenv("AITE_TEST_SECRET", "s3cr3t-value")
	t.Setenv("OPENAI_API_KEY", "sk-live-key")
	res := call(context.Background(), `{"skill":"calc","script":"scripts/env.sh"}`)
	require.True(t, res.OK, res.Stderr)
	require.NotContains(t, res.Stdout, "s3cr3t-value")
	require.NotContains(t, res.Stdout, "sk-live-key")
	skill, _ := e.snap.Skill("calc")
	var cwd, home string
	for _, l := range strings.Split(res.Stdout, "\n") {
		if v, ok := strings.CutPrefix(l, "cwd="); ok {
			cwd = v
		}
		if v, ok := strings.CutPrefix(l, "HOME="); ok {
			home = v
		}
	}
	require.NotEmpty(t, cwd)
	require.Equal(t, cwd, home, "HOME is the scratch directory")
	require.NotContains(t, cwd, skill.Dir, "the script does not run in the skill directory")
	_, err := os.Stat(cwd)
	require.True(t, os.IsNotExist(err), "the scratch directory is removed")
	require.Contains(t, res.Stdout, "SKILL_DIR="+skill.Dir)

	// A background process outlives neither a finished script, nor its
	// timeout, nor a canceled run.
	res = call(context.Background(), `{"skill":"calc","script":"scripts/spawn.sh"}`)
	require.True(t, res.OK, res.Stderr)
	requireGone(t, strings.TrimSpace(res.Stdout))
	res = call(context.Background(), `{"skill":"calc","script":"scripts/hang.sh","timeoutMs":200}`)
	require.True(t, res.TimedOut)
	requireGone(t, strings.TrimSpace(res.Stdout))
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	res = call(ctx, `{"skill":"calc","script":"scripts/hang.sh"}`)
	require.Less(t, time.Since(start), 5*time.Second, "the cancel ended the script")
	require.False(t, res.OK)
	requireGone(t, strings.TrimSpace(res.Stdout))
}

// requireGone waits (up to 5 s) until process pid no longer runs (gone, or
// a zombie waiting for its reaper). The process is not this one's child:
// nothing but its /proc entry tells when it is gone.
func requireGone(t *testing.T, pid string) {
	t.Helper()
	require.NotEmpty(t, pid)
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skipf("cannot read /proc: %v", err)
	}
	gone := func() bool {
		stat, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil {
			return os.IsNotExist(err)
		}
		f := strings.Fields(string(stat))
		return len(f) > 2 && f[2] == "Z"
	}
	require.Eventually(t, gone, 5*time.Second, 10*time.Millisecond, "process %s outlived the script", pid)
}
