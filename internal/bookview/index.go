package bookview

import (
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/search"
)

// IndexFor returns x when it reflects d, else a new index of d: a book's
// search index is built when a search or a cursor filtered by keywords
// first needs it (the editor session and Book alike), and kept.
func IndexFor(x *search.Index, d *document.Document) *search.Index {
	if x == nil || x.Version() != d.Version() {
		return search.Build(d)
	}
	return x
}
