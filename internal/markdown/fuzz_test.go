package markdown

import (
	"bytes"
	"testing"
)

var fuzzSeeds = []string{
	"# T\n\nintro\n\n## S\n\n- a\n  - b\n\n> q\n>\n> r\n\n```\nc\n```\n",
	"| a | b |\n|---|---|\n| 1 | 2 |\n\n[^1]: note\n\n---\ntext\n",
	"---\ntitle: x\n---\n\nSetext\n===\n\n<div>\nx\n</div>\n",
	"- a\r\n- b\r\n\r\n1. c\r\n",
	"\xff\xfe bad \xc3\x28 utf8\n\n- \xe2\x82\n",
	"[x]: /url\n\n[x]\n",
	"> - a\n>   - b\n> > c\n",
	"[^1]: a\n|-\n\n> [^2]: b\n> |---|\n\n- [^3]: c\n  |x|\n  |-\n",
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		in := append([]byte(nil), src...)
		d := Parse(src)
		if !bytes.Equal(d.Source(), in) {
			t.Fatal("round trip changed the bytes")
		}
		if err := checkInvariants(d); err != nil {
			t.Fatalf("%v\ninput %q", err, in)
		}
	})
}

// FuzzEdit: any accepted edit keeps locality and matches a full re-parse;
// any refused edit leaves the document as it was. Undo restores the input.
func FuzzEdit(f *testing.F) {
	for i, s := range fuzzSeeds {
		f.Add([]byte(s), uint8(i), uint8(i%5), "New *text*")
		f.Add([]byte(s), uint8(i+1), uint8((i+2)%5), "- item")
	}
	f.Fuzz(func(t *testing.T, src []byte, at, op uint8, text string) {
		n := Parse(src).Len()
		if n == 0 {
			return
		}
		cases := func(it *documentItem, md string) []editCase {
			cs := editCases(it, md)
			cs[0].run = replaceWith(text)
			cs[2].run = insertBeforeWith(text)
			return cs
		}
		if _, err := tryEdit(src, int(at)%n, cases, int(op)%5); err != nil {
			t.Fatalf("%v\ninput %q text %q", err, src, text)
		}
	})
}
