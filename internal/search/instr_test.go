package search

import (
	"os"
	"testing"

	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/aitexteditor/aite/internal/testbook"
	"github.com/aitexteditor/aite/internal/textnorm"
	"github.com/yuin/goldmark/text"
)

// TestInstructions runs one piece of work on the 5.6 MB novel, named by
// AITE_INSTR (none, goldmark, parse, parse+index, parse+scan: the parse and
// a keyword search that matches the words in every text, as a one-shot
// search of a book without an index does), for counting its
// instructions under valgrind, which a busy machine does not disturb:
//
//	go test -c -o search.test ./internal/search
//	AITE_INSTR=parse+index GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1 \
//	  valgrind --tool=callgrind ./search.test -test.run TestInstructions
//
// and subtracting the count of AITE_INSTR=none. Without AITE_INSTR it is
// skipped.
func TestInstructions(t *testing.T) {
	what := os.Getenv("AITE_INSTR")
	if what == "" {
		t.Skip("AITE_INSTR is not set")
	}
	src := testbook.Sized(t, testbook.NovelSize)
	switch what {
	case "none":
	case "goldmark":
		goldmarkParser.Parse(text.NewReader(src))
	case "parse":
		markdown.Parse(src)
	case "parse+index":
		Build(markdown.Parse(src))
	case "parse+scan":
		d := markdown.Parse(src)
		m := textnorm.NewMatcher("Симонов")
		for i := range d.Len() {
			m.Match(d.TextAt(i))
		}
	default:
		t.Fatalf("AITE_INSTR=%s: none, goldmark, parse, parse+index or parse+scan", what)
	}
}
