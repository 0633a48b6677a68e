package render

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMarkdown(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"heading", "## Глава 1", "<h2>Глава 1</h2>\n"},
		{"emphasis", "Он *вошёл* в **класс**.", "<p>Он <em>вошёл</em> в <strong>класс</strong>.</p>\n"},
		{"quote", "> quote one\n> more", "<blockquote>\n<p>quote one\nmore</p>\n</blockquote>\n"},
		{"ordered list item keeps its number", "2. two", "<ol start=\"2\">\n<li>two</li>\n</ol>\n"},
		{"table", "| x | y |\n|---|---|\n| 1 | 2 |", "<table>\n<thead>\n<tr>\n<th>x</th>\n<th>y</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>1</td>\n<td>2</td>\n</tr>\n</tbody>\n</table>\n"},
		{"code is escaped", "```html\n<b>x</b>\n```", "<pre><code class=\"language-html\">&lt;b&gt;x&lt;/b&gt;\n</code></pre>\n"},
		{"strikethrough", "~~gone~~", "<p><del>gone</del></p>\n"},
		{"raw html is left out", "<script>alert(1)</script>", "<!-- raw HTML omitted -->\n"},
		{"inline raw html is left out", "a <b onclick=\"x()\">b</b>", "<p>a <!-- raw HTML omitted -->b<!-- raw HTML omitted --></p>\n"},
		{"dangerous link dropped", "[x](javascript:alert(1))", "<p><a href=\"\">x</a></p>\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, Markdown(tt.src))
		})
	}
}

func TestDiff(t *testing.T) {
	got := Diff("— Тише, — сказал <Звездочкин>.", "— Тише, — произнёс <Звездочкин>.")
	require.Equal(t, "— Тише, — <del>сказал</del><ins>произнёс</ins> &lt;Звездочкин&gt;.", got)
	require.Equal(t, "same &amp; equal", Diff("same & equal", "same & equal"))
	require.Equal(t, "<ins>new</ins>", Diff("", "new"))
}

func TestMarks(t *testing.T) {
	tests := []struct{ in, want string }{
		{"…сказал **Звёздочкин**, Аркадий…", "…сказал <mark>Звёздочкин</mark>, Аркадий…"},
		{"**a** & **b**", "<mark>a</mark> &amp; <mark>b</mark>"},
		{"<i>no</i> marks", "&lt;i&gt;no&lt;/i&gt; marks"},
		{"unpaired **x", "unpaired **x"},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, Marks(tt.in), tt.in)
		require.False(t, strings.Contains(Marks(tt.in), "<i>"))
	}
}
