package server

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/api"
)

// TestTailAndView: the tail of a long run keeps at least tailSize of its
// latest events, and a view hands out exactly the events after the cursor
// up to the visible one, or says the cursor is behind the tail.
func TestTailAndView(t *testing.T) {
	var tail []logEntry
	for seq := int64(1); seq <= 5000; seq++ {
		tail = trimTail(append(tail, logEntry{ev: api.Event{Seq: seq}}))
		require.LessOrEqual(t, len(tail), 2*tailSize)
		require.GreaterOrEqual(t, len(tail), min(int(seq), tailSize))
		require.Equal(t, seq, tail[len(tail)-1].ev.Seq)
	}
	first := tail[0].ev.Seq
	v := viewOf(tail, first-2, 5000, false)
	require.True(t, v.behind, "a cursor before the tail reads the store")
	v = viewOf(tail, first-1, 4000, false)
	require.False(t, v.behind)
	require.Len(t, v.events, int(4000-first+1))
	v = viewOf(tail, 4990, 4995, false)
	var seqs []int64
	for _, e := range v.events {
		seqs = append(seqs, e.Seq)
	}
	require.Equal(t, []int64{4991, 4992, 4993, 4994, 4995}, seqs)
	require.Empty(t, viewOf(tail, 5000, 5000, true).events)
}
