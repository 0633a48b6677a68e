package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/codex/assist"
)

// Every progress bar of the command line is drawn by barLine: aite codex
// build's (an entry's batches fill its share) and the embedding count look
// like aite eval's (TestEvalBar).
func TestCodexBarIsTheSharedBar(t *testing.T) {
	var tty, plain bytes.Buffer
	b := newBar(&tty, true)
	b.update(assist.Progress{Entry: 2, Entries: 4, Name: "Штейн", Batch: 1, Batches: 2})
	b.count(5, 10, "items embedded")
	b.update(assist.Progress{Entry: 2, Entries: 4, Name: "Штейн", Done: true, Calls: 3, InputTokens: 10, OutputTokens: 2})
	require.Equal(t, "\r\033[K"+strings.Repeat("█", 9)+strings.Repeat("░", 15)+" 2/4 Штейн: batch 1 of ~2"+
		"\r\033[K"+strings.Repeat("█", 12)+strings.Repeat("░", 12)+" 5/10 items embedded"+
		"\r\033[K✓ 2/4 Штейн (3 calls, 12 tokens so far)\n", tty.String())

	p := newBar(&plain, false)
	p.update(assist.Progress{Entry: 1, Entries: 1, Name: "x", Batch: 9, Batches: 2})
	p.count(1, 2, "items embedded")
	require.Empty(t, plain.String(), "no bar without a terminal")
	require.Equal(t, "\r\033[K"+strings.Repeat("░", 24)+" 0/0 x", barLine(0, 0, "0/0 x"), "an empty total is an empty bar")
	require.Equal(t, "\r\033[K"+strings.Repeat("█", 24)+" over", barLine(7, 5, "over"), "never more than full")
}
