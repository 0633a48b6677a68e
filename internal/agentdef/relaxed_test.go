package agentdef

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestStrict(t *testing.T) {
	tests := []struct {
		name, in string
		want     map[string]any
	}{
		{"line comments", "{\n// head\n\"a\": 1, // tail\n\"b\": 2 //end\n}", map[string]any{"a": 1.0, "b": 2.0}},
		{"slashes inside strings kept", `{"u": "http://x.org//y", "e": "a\"//b"}`,
			map[string]any{"u": "http://x.org//y", "e": `a"//b`}},
		{"triple quotes with indentation", "{\"p\": \"\"\"\n    Line 1\n      indented\n\n    end\n    \"\"\"}",
			map[string]any{"p": "Line 1\n  indented\n\nend"}},
		{"triple quotes are raw and escaped on output", "{\"p\": \"\"\"\n  say \"hi\" \\n C:\\dir\ttab\n  \"\"\"}",
			map[string]any{"p": "say \"hi\" \\n C:\\dir\ttab"}},
		{"one line kept as is", `{"p": """  x // not a comment """}`, map[string]any{"p": "  x // not a comment "}},
		{"closing run of quotes", `{"p": """say "hi""""}`, map[string]any{"p": `say "hi"`}},
		{"empty", `{"p": """"""}`, map[string]any{"p": ""}},
		{"first line kept when not blank", "{\"p\": \"\"\"first\n  second\n\"\"\"}", map[string]any{"p": "first\n  second"}},
		{"CRLF", "{\"p\": \"\"\"\r\n  a\r\n  b\r\n  \"\"\"}", map[string]any{"p": "a\nb"}},
		{"BOM", "\uFEFF{\"a\": true}", map[string]any{"a": true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := Strict([]byte(tt.in))
			require.NoError(t, err)
			var got map[string]any
			require.NoError(t, json.Unmarshal(out, &got), "%s", out)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestStrictKeepsStrictJSON(t *testing.T) {
	in := []byte("{\n  \"a\": [1, 2.5e3, \"x\\\"//y\"],\n  \"b\": {\"c\": null}\n}\n")
	out, err := Strict(in)
	require.NoError(t, err)
	require.Equal(t, in, out)
}

func TestStrictKeepsLineNumbers(t *testing.T) {
	in := "{\n\"p\": \"\"\"\n  a\n  b\n  \"\"\", // c\n\"q\": ,\n}"
	_, err := parseRelaxed([]byte(in))
	require.ErrorContains(t, err, "line 6")
}

func TestStrictUnclosed(t *testing.T) {
	_, err := Strict([]byte("{\n\"p\": \"\"\"abc\n}"))
	require.ErrorIs(t, err, ErrSyntax)
	require.ErrorContains(t, err, "line 2")
}

// FuzzStrict: no panics, and strict JSON passes through unchanged.
func FuzzStrict(f *testing.F) {
	for _, s := range []string{`{"a":1}`, "{\"p\":\"\"\"\n  x\n  \"\"\"}", "// c\n[1]", `"a\"//"`, `""""""""`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := Strict(in)
		if json.Valid(in) {
			if err != nil || !bytes.Equal(out, in) {
				t.Fatalf("strict JSON changed: %q → %q, %v", in, out, err)
			}
		}
		if err == nil {
			_, _ = parseTree(out)
		}
	})
}
