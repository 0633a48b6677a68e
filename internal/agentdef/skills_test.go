package agentdef

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSkills(t *testing.T) {
	d := newDirs(t)
	long := strings.Repeat("ж", 9000)
	write(t, d.Skills, map[string]string{
		"PDF/SKILL.md":     "---\nname: \"PDF tools\"\ndescription: Reads PDF\n  files and forms.\nlicense: MIT\n---\n\n# Use\nRun scripts/x.py.\n",
		"PDF/scripts/x.py": "print(1)",
		"plain/SKILL.md":   "Just a prompt.",
		"block/SKILL.md":   "---\ndescription: |\n  line one\n  line two\nname: 'It''s'\n---\nbody",
		"long/SKILL.md":    long,
		"open/SKILL.md":    "---\nname: x\nno end",
		"empty/README.md":  "no SKILL.md",
		"bad id/SKILL.md":  "x",
		"README.md":        "a file in the root",
	})
	s, ws := load(t, d)
	ids := []string{}
	for _, k := range s.Skills() {
		ids = append(ids, k.ID)
	}
	require.Equal(t, []string{"block", "long", "open", "pdf", "plain"}, ids, dump(ws))

	pdf, ok := s.Skill("Pdf")
	require.True(t, ok)
	require.Equal(t, SkillDef{ID: "pdf", Name: "PDF tools", Description: "Reads PDF files and forms.",
		Prompt: "# Use\nRun scripts/x.py.", Dir: filepath.Join(d.Skills, "PDF")}, pdf)

	plain, _ := s.Skill("plain")
	require.Equal(t, "plain", plain.Name)
	require.Empty(t, plain.Description)
	require.Equal(t, "Just a prompt.", plain.Prompt)

	block, _ := s.Skill("block")
	require.Equal(t, "line one\nline two", block.Description)
	require.Equal(t, "It's", block.Name)

	lg, _ := s.Skill("long")
	require.True(t, lg.PromptTruncated)
	require.Equal(t, strings.Repeat("ж", DefaultMaxSkillPromptChars), lg.Prompt)
	require.False(t, pdf.PromptTruncated)

	open, _ := s.Skill("open")
	require.Equal(t, "---\nname: x\nno end", open.Prompt)
	requireWarning(t, ws, filepath.Join(d.Skills, "open", SkillFile), "", "not closed")
	requireWarning(t, ws, filepath.Join(d.Skills, "empty", SkillFile), "", "not found")
	requireWarning(t, ws, filepath.Join(d.Skills, "bad id"), "", "not a valid skill id")
	w := requireWarning(t, ws, filepath.Join(d.Skills, "README.md"), "", "skills root")
	require.False(t, w.Rejected)
}

func TestSkillPromptLimit(t *testing.T) {
	d := newDirs(t)
	write(t, d.Skills, map[string]string{"s/SKILL.md": "abcdef"})
	s, _ := Loader{Dirs: d, MaxSkillPromptChars: 4}.Load()
	k, _ := s.Skill("s")
	require.Equal(t, "abcd", k.Prompt)
	require.True(t, k.PromptTruncated)
}

func TestSkillDuplicateIDs(t *testing.T) {
	d := newDirs(t)
	write(t, d.Skills, map[string]string{"Docs/SKILL.md": "first", "docs/SKILL.md": "second"})
	s, ws := load(t, d)
	k, _ := s.Skill("docs")
	require.Equal(t, "first", k.Prompt)
	requireWarning(t, ws, filepath.Join(d.Skills, "docs"), "", "duplicate skill id")
}

// inlineCode: true in the front matter marks a skill that asks to run code
// sent with the call; anything but a boolean leaves it off with a warning.
func TestSkillInlineCode(t *testing.T) {
	d := newDirs(t)
	write(t, d.Skills, map[string]string{
		"calc/SKILL.md":  "---\nname: Calc\ninlineCode: true\n---\nbody",
		"shy/SKILL.md":   "---\nname: Shy\n---\nbody",
		"typo/SKILL.md":  "---\ninlineCode: sure\n---\nbody",
		"false/SKILL.md": "---\ninlineCode: false\n---\nbody",
	})
	s, ws := load(t, d)
	for id, want := range map[string]bool{"calc": true, "shy": false, "typo": false, "false": false} {
		sk, ok := s.Skill(id)
		require.True(t, ok, id)
		require.Equal(t, want, sk.InlineCode, id)
	}
	requireWarning(t, ws, filepath.Join(d.Skills, "typo", SkillFile), "inlineCode", "not true or false")
}
