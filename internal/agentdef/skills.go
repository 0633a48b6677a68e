package agentdef

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// SkillFile is the file that makes a directory under skills/ a skill.
const SkillFile = "SKILL.md"

// SkillDef is one skill: skills/<id>/SKILL.md.
type SkillDef struct {
	ID              string // the directory name, lowercased
	Name            string // front matter name, default the id
	Description     string // front matter description, default ""
	Prompt          string // the body after the front matter, trimmed and cut at the prompt limit
	PromptTruncated bool
	Dir             string // the skill directory (scripts/, references/, assets/ live below it)
	// InlineCode is the front matter's inlineCode: true: the skill asks to
	// run code sent with the call (_skill_run_script_'s pythonCode), which
	// the server runs only when its configuration allows it too.
	InlineCode bool
}

// loadSkills reads the skill directories of dir; files in dir itself are
// ignored with a warning.
func loadSkills(dir string, entries []os.DirEntry, maxChars int, src *sources, ws warnings) []SkillDef {
	var out []SkillDef
	seen := map[string]string{}
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(dir, name)
		if strings.HasPrefix(name, ".") {
			continue
		}
		if !isDir(path, e) {
			ws.warn(path, "", "a file in the skills root; ignored (a skill is a directory with a %s)", SkillFile)
			continue
		}
		id := strings.ToLower(name)
		switch prev, dup := seen[id]; {
		case !keyPattern().MatchString(id):
			ws.reject(path, "", "%q is not a valid skill id ([A-Za-z0-9_-]{1,64})", name)
			continue
		case dup:
			ws.reject(path, "", "duplicate skill id %q, already defined by %s (the first in name order wins)", id, prev)
			continue
		}
		data, ok := src.read(filepath.Join(path, SkillFile), nil, ws)
		if !ok {
			continue
		}
		seen[id] = path
		out = append(out, parseSkill(id, path, string(data), maxChars, ws))
	}
	return out
}

// isDir reports whether the entry is a directory, following a symlink.
func isDir(path string, e os.DirEntry) bool {
	if e.Type()&os.ModeSymlink != 0 {
		fi, err := os.Stat(path)
		return err == nil && fi.IsDir()
	}
	return e.IsDir()
}

// parseSkill reads SKILL.md: optional front matter between "---" lines
// (name, description; other keys ignored), then the prompt.
func parseSkill(id, dir, text string, maxChars int, ws warnings) SkillDef {
	text = strings.ReplaceAll(strings.TrimPrefix(text, "\uFEFF"), "\r\n", "\n")
	s := SkillDef{ID: id, Name: id, Dir: dir}
	body := text
	lines := strings.Split(text, "\n")
	if strings.TrimSpace(lines[0]) == "---" {
		end := -1
		for i := 1; i < len(lines); i++ {
			if strings.TrimSpace(lines[i]) == "---" {
				end = i
				break
			}
		}
		if end < 0 {
			ws.warn(filepath.Join(dir, SkillFile), "", "front matter not closed by a --- line; the whole file is the prompt")
		} else {
			fm := frontMatter(lines[1:end])
			if v := fm["name"]; v != "" {
				s.Name = v
			}
			s.Description = fm["description"]
			if v, ok := fm["inlineCode"]; ok {
				b, err := strconv.ParseBool(v)
				if err != nil {
					ws.warn(filepath.Join(dir, SkillFile), "inlineCode", "%q is not true or false; inline code stays off", v)
				}
				s.InlineCode = b
			}
			body = strings.Join(lines[end+1:], "\n")
		}
	}
	s.Prompt = strings.TrimSpace(body)
	if r := []rune(s.Prompt); len(r) > maxChars {
		s.Prompt, s.PromptTruncated = string(r[:maxChars]), true
	}
	return s
}

// frontMatter reads the top-level "key: value" pairs of a YAML front
// matter: plain or quoted scalars (continued on indented lines) and "|" or
// ">" block scalars. Nested structures are not interpreted.
func frontMatter(lines []string) map[string]string {
	out := map[string]string{}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") || strings.HasPrefix(l, "#") {
			continue
		}
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		var cont []string
		for i+1 < len(lines) && (strings.TrimSpace(lines[i+1]) == "" || strings.HasPrefix(lines[i+1], " ") ||
			strings.HasPrefix(lines[i+1], "\t")) {
			i++
			cont = append(cont, lines[i])
		}
		out[strings.TrimSpace(k)] = scalar(strings.TrimSpace(v), cont)
	}
	return out
}

// scalar interprets a front matter value and its continuation lines.
func scalar(v string, cont []string) string {
	switch {
	case strings.HasPrefix(v, "|"):
		return strings.TrimRight(dedent("\n"+strings.Join(cont, "\n")), "\n")
	case strings.HasPrefix(v, ">"):
		return strings.Join(strings.Fields(strings.Join(cont, " ")), " ")
	}
	parts := []string{v}
	for _, c := range cont {
		if c = strings.TrimSpace(c); c != "" {
			parts = append(parts, c)
		}
	}
	v = strings.Join(parts, " ")
	switch {
	case len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"':
		if u, err := strconv.Unquote(v); err == nil {
			return u
		}
		return v[1 : len(v)-1]
	case len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'':
		return strings.ReplaceAll(v[1:len(v)-1], "''", "'")
	}
	return v
}
