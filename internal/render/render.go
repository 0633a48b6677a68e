// Package render turns book text into the HTML the web app shows, so the
// browser needs no Markdown parser and no diff algorithm: one Markdown block
// (an item of the book, a chat answer) as HTML, a word-level diff of two
// versions of an item, and search excerpts with their matches marked.
//
// The HTML is safe to insert into a page: raw HTML in the Markdown is left
// out (goldmark's default), link and image destinations with a dangerous
// scheme (javascript:, vbscript:, file:, data: other than images) are
// dropped, and every text is escaped.
package render

import (
	"bytes"
	"html"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/aitexteditor/aite/internal/textdiff"
)

// gm is the Markdown converter: CommonMark with the extensions the book
// parser knows (tables, strikethrough, footnotes) plus GFM autolinks and
// task lists for chat answers. Raw HTML is not rendered.
var gm = sync.OnceValue(func() goldmark.Markdown {
	return goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough,
		extension.Footnote, extension.Linkify, extension.TaskList))
})

// Markdown returns the HTML of src. A conversion error (only a failing
// writer can cause one) gives the escaped source in a paragraph.
func Markdown(src string) string {
	var b bytes.Buffer
	if err := gm().Convert([]byte(src), &b); err != nil {
		return "<p>" + html.EscapeString(src) + "</p>"
	}
	return b.String()
}

// Diff returns the word-level difference of two texts as HTML: unchanged
// text escaped, deletions in <del>, insertions in <ins>. Line breaks are
// kept as they are (show it with white-space: pre-wrap).
func Diff(before, after string) string {
	var b strings.Builder
	for _, s := range textdiff.Words(before, after) {
		t := html.EscapeString(s.Text)
		switch s.Kind {
		case textdiff.Delete:
			b.WriteString("<del>" + t + "</del>")
		case textdiff.Insert:
			b.WriteString("<ins>" + t + "</ins>")
		default:
			b.WriteString(t)
		}
	}
	return b.String()
}

// Marks returns a search excerpt, whose matches are wrapped in ** ** (the
// form of search snippets and of the command line's find), as HTML: the
// text escaped and every match in <mark>. An unpaired ** stays as it is.
func Marks(excerpt string) string {
	var b strings.Builder
	parts := strings.Split(excerpt, "**")
	for i, p := range parts {
		switch {
		case i%2 == 0:
			b.WriteString(html.EscapeString(p))
		case i == len(parts)-1: // an opening ** without its closing one
			b.WriteString("**" + html.EscapeString(p))
		default:
			b.WriteString("<mark>" + html.EscapeString(p) + "</mark>")
		}
	}
	return b.String()
}
