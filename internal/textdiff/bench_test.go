package textdiff

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"testing"
)

// benchText generates a Markdown book of about size bytes in Russian and
// English, with chapter headings and paragraphs of wrapped lines.
func benchText(size int) []byte {
	words := []string{"глава", "книга", "текст", "слово", "редактор", "история",
		"the", "book", "editor", "chapter", "line", "story", "и", "в", "a", "of"}
	r := rand.New(rand.NewPCG(7, 8))
	var b bytes.Buffer
	for ch := 1; b.Len() < size; ch++ {
		b.WriteString("# Глава " + strconv.Itoa(ch) + "\n\n")
		for p := 0; p < 20 && b.Len() < size; p++ {
			for l := 0; l < 1+r.IntN(6); l++ {
				for w := 0; w < 4+r.IntN(12); w++ {
					if w > 0 {
						b.WriteByte(' ')
					}
					b.WriteString(words[r.IntN(len(words))])
				}
				b.WriteByte('\n')
			}
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// editBook makes three small edits to text: a changed line near the
// start, an inserted line in the middle and a deleted line near the end.
func editBook(text []byte) []byte {
	lines := splitLines(text)
	n := len(lines)
	out := make([][]byte, 0, n+1)
	out = append(out, lines[:n/10]...)
	out = append(out, []byte("Изменённая строка.\n"))
	out = append(out, lines[n/10+1:n/2]...)
	out = append(out, []byte("A new line.\n"))
	out = append(out, lines[n/2:9*n/10]...)
	out = append(out, lines[9*n/10+1:]...)
	return bytes.Join(out, nil)
}

// BenchmarkUnified5MB diffs a 5 MB book against itself with three edits
// spread over it, and with one edit, where only the common prefix and
// suffix scans touch most of the text.
func BenchmarkUnified5MB(b *testing.B) {
	old := benchText(5 << 20)
	one := bytes.Replace(old, []byte("# Глава 40\n"), []byte("# Глава сорок\n"), 1)
	for _, bc := range []struct {
		name string
		new  []byte
	}{{"three edits", editBook(old)}, {"one edit", one}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(old)))
			b.ReportAllocs()
			for b.Loop() {
				if Unified("old", "new", old, bc.new, 3) == "" {
					b.Fatal("no diff")
				}
			}
		})
	}
}

func BenchmarkStat5MB(b *testing.B) {
	old := benchText(5 << 20)
	new := editBook(old)
	b.SetBytes(int64(len(old)))
	b.ReportAllocs()
	for b.Loop() {
		if a, r := Stat(old, new); a != 2 || r != 2 {
			b.Fatalf("Stat = +%d -%d", a, r)
		}
	}
}
