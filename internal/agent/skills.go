package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// SkillRunScript is the name of the built-in skill script tool (§ 7.2).
const SkillRunScript = "_skill_run_script_"

// Limits of _skill_run_script_.
const (
	maxPythonCode        = 64 << 10
	maxScriptOutput      = 64 << 10
	defaultScriptTimeout = 10 * time.Second
	maxScriptTimeout     = 120 * time.Second
)

// scriptArgs are the arguments of _skill_run_script_.
type scriptArgs struct {
	Skill      string   `json:"skill"`
	Script     string   `json:"script"`
	PythonCode string   `json:"pythonCode"`
	Args       []string `json:"args"`
	TimeoutMs  int      `json:"timeoutMs"`
}

// scriptResult is the result JSON of _skill_run_script_.
type scriptResult struct {
	OK       bool   `json:"ok"`
	ExitCode int    `json:"exitCode"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	TimedOut bool   `json:"timedOut"`
}

var skillBuiltin = &builtin{name: SkillRunScript, call: runSkillScript,
	desc: "Run a script of a skill: either `script`, the path of a .py or .sh file relative to the skill's directory " +
		"(e.g. scripts/run.py), or `pythonCode`, inline Python (only for skills that allow inline code). The result is JSON " +
		"{ok, exitCode, stdout, stderr, timedOut}.",
	params: json.RawMessage(`{"type":"object","properties":{` +
		`"skill":{"type":"string","description":"The skill id."},` +
		`"script":{"type":"string","description":"Path of a .py or .sh file relative to the skill directory."},` +
		`"pythonCode":{"type":"string","description":"Inline Python code (at most 64 KiB), instead of script; only where the skill allows it."},` +
		`"args":{"type":"array","items":{"type":"string"},"description":"Command-line arguments."},` +
		`"timeoutMs":{"type":"integer","description":"Timeout in ms (default 10000, max 120000)."}},` +
		`"required":["skill"],"additionalProperties":false}`)}

// discloseFor marks the skill named by a _skill_run_script_ call as
// disclosed: later turns get its instructions (§ 6.2 item 3). Unknown
// skills are ignored; each skill is disclosed once per run.
func (r *run) discloseFor(args string) {
	var a scriptArgs
	if json.Unmarshal([]byte(args), &a) != nil {
		return
	}
	id, ok := r.agentSkill(a.Skill)
	if ok && !slices.Contains(r.disclosed, id) {
		r.disclosed = append(r.disclosed, id)
	}
}

// agentSkill resolves a skill id among the agent's skills.
func (r *run) agentSkill(id string) (string, bool) {
	id = lower(id)
	if !slices.Contains(r.agent.Skills, id) {
		return "", false
	}
	_, ok := r.spec.Defs.Skill(id)
	return id, ok
}

// runSkillScript is _skill_run_script_. It runs in a tool goroutine: it
// only reads the run's definitions. What may run (the sandbox of
// docs/server.md "Security model"): a .sh or .py file shipped in the
// skill's own directory; code sent with the call (pythonCode) only when the
// skill declares inlineCode: true and the server allows it
// (Runner.AllowInlineCode, skills.allowInlineCode). Either runs through
// sandboxedRun.
func runSkillScript(ctx context.Context, r *run, raw string) (outcome, error) {
	var a scriptArgs
	dec := json.NewDecoder(strings.NewReader(string(nonEmpty(raw))))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return invalidScript("invalid arguments: %v", err), nil
	}
	id, ok := r.agentSkill(a.Skill)
	if !ok {
		return invalidScript("unknown skill: %q", a.Skill), nil
	}
	skill, _ := r.spec.Defs.Skill(id)
	timeout, err := scriptTimeout(a.TimeoutMs)
	if err != nil {
		return invalidScript("%v", err), nil
	}
	switch {
	case (a.Script == "") == (a.PythonCode == ""):
		return invalidScript("give exactly one of script or pythonCode"), nil
	case a.PythonCode != "" && !(skill.InlineCode && r.e.AllowInlineCode):
		return invalidScript("inline code is not allowed for skill %q: run one of its scripts (inline code needs "+
			"inlineCode: true in the skill's SKILL.md and skills.allowInlineCode in the server configuration)", id), nil
	case len(a.PythonCode) > maxPythonCode:
		return invalidScript("pythonCode exceeds %d bytes", maxPythonCode), nil
	case a.PythonCode != "":
		return sandboxedRun(ctx, skill.Dir, "python3", "", a.PythonCode, a.Args, timeout)
	}
	path, err := scriptPath(skill.Dir, a.Script)
	if err != nil {
		return invalidScript("%v", err), nil
	}
	interp := "sh"
	if strings.EqualFold(filepath.Ext(path), ".py") {
		interp = "python3"
	}
	return sandboxedRun(ctx, skill.Dir, interp, path, "", a.Args, timeout)
}

func invalidScript(format string, args ...any) outcome {
	return errorOutcome(SkillRunScript, ToolCodeInvalidArguments, fmt.Sprintf(format, args...))
}

// scriptTimeout applies the default and the maximum.
func scriptTimeout(ms int) (time.Duration, error) {
	d := time.Duration(ms) * time.Millisecond
	switch {
	case ms < 0:
		return 0, fmt.Errorf("timeoutMs must not be negative")
	case ms == 0:
		return defaultScriptTimeout, nil
	}
	return min(d, maxScriptTimeout), nil
}

// scriptPath resolves a script path inside the skill directory; absolute
// paths, traversal, files outside the directory (symlinks included) and
// other suffixes than .py and .sh are rejected.
func scriptPath(dir, rel string) (string, error) {
	if filepath.IsAbs(rel) || strings.Contains(rel, `\`) {
		return "", fmt.Errorf("script must be a relative path inside the skill directory: %q", rel)
	}
	clean := filepath.Clean(filepath.FromSlash(rel))
	if clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("script must stay inside the skill directory: %q", rel)
	}
	if ext := strings.ToLower(filepath.Ext(clean)); ext != ".py" && ext != ".sh" {
		return "", fmt.Errorf("script must be a .py or .sh file: %q", rel)
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", fmt.Errorf("skill directory unavailable")
	}
	real, err := filepath.EvalSymlinks(filepath.Join(root, clean))
	if err != nil {
		return "", fmt.Errorf("script not found: %q", rel)
	}
	inside, err := filepath.Rel(root, real)
	if err != nil || inside == ".." || strings.HasPrefix(inside, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("script must stay inside the skill directory: %q", rel)
	}
	if fi, err := os.Stat(real); err != nil || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("script not found: %q", rel)
	}
	return real, nil
}

// scriptPATH is the PATH of a skill script.
const scriptPATH = "/usr/local/bin:/usr/bin:/bin"

// sandboxedRun runs interp with script (a path), or with code written to
// a file, and args, the way every skill script runs: in a scratch working
// directory of its own, removed afterwards (also its HOME and TMPDIR); with
// a clean environment (PATH, HOME, TMPDIR, LANG, SKILL_DIR: nothing of the
// server's, so no model keys or token secrets); in a process group of its
// own, killed as a whole when the script ends (a `sleep &` it started does
// not outlive it), when timeout passes and when ctx ends (the run is
// canceled or the server shuts down). stdout and stderr go to files in
// the scratch directory, so a child that keeps them open never holds up
// the result.
func sandboxedRun(ctx context.Context, skillDir, interp, script, code string, args []string, timeout time.Duration) (outcome, error) {
	scratch, err := os.MkdirTemp("", "aite-skill-*")
	if err != nil {
		return outcome{}, fmt.Errorf("scratch directory: %w", err)
	}
	defer os.RemoveAll(scratch)
	if code != "" {
		script = filepath.Join(scratch, "main.py")
		if err := os.WriteFile(script, []byte(code), 0o600); err != nil {
			return outcome{}, fmt.Errorf("write code: %w", err)
		}
	}
	stdout, err := os.Create(filepath.Join(scratch, ".stdout"))
	if err != nil {
		return outcome{}, fmt.Errorf("scratch directory: %w", err)
	}
	defer stdout.Close()
	stderr, err := os.Create(filepath.Join(scratch, ".stderr"))
	if err != nil {
		return outcome{}, fmt.Errorf("scratch directory: %w", err)
	}
	defer stderr.Close()

	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, interp, append([]string{script}, args...)...)
	cmd.Dir = scratch
	cmd.Env = []string{"PATH=" + scriptPATH, "HOME=" + scratch, "TMPDIR=" + scratch, "LANG=C.UTF-8", "LC_ALL=C.UTF-8",
		"PYTHONDONTWRITEBYTECODE=1", "PYTHONNOUSERSITE=1", "SKILL_DIR=" + skillDir}
	cmd.Stdin = nil
	cmd.Stdout, cmd.Stderr = stdout, stderr
	ownGroup(cmd) // cmd.Cancel kills the whole group
	err = cmd.Run()
	killGroup(cmd) // whatever the script left running
	res := scriptResult{Stdout: readCapped(stdout), Stderr: readCapped(stderr)}
	var exit *exec.ExitError
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		res.TimedOut, res.ExitCode = true, -1
	case errors.As(err, &exit):
		res.ExitCode = exit.ExitCode()
	case err != nil:
		res.ExitCode = -1
		res.Stderr = capOutput([]byte(res.Stderr + err.Error()))
	}
	res.OK = err == nil && !res.TimedOut
	b, _ := marshal(res) // plain fields: cannot fail
	return outcome{text: string(b)}, nil
}

// readCapped reads back an output file, capped (capOutput).
func readCapped(f *os.File) string {
	b, _ := io.ReadAll(io.LimitReader(io.NewSectionReader(f, 0, maxScriptOutput+utf8.UTFMax), maxScriptOutput+utf8.UTFMax))
	return capOutput(b)
}

// capOutput keeps at most maxScriptOutput bytes, cut at a rune boundary.
func capOutput(b []byte) string {
	if len(b) > maxScriptOutput {
		b = b[:maxScriptOutput]
		for i := 0; i < utf8.UTFMax-1 && len(b) > 0; i++ {
			if r, size := utf8.DecodeLastRune(b); r != utf8.RuneError || size > 1 {
				break
			}
			b = b[:len(b)-1] // a rune cut in two
		}
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}
