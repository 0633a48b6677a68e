package store

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEventsByRun(t *testing.T) {
	ev := func(run string, seq int64) Event { return Event{RunID: run, Seq: seq, Type: "x", Body: []byte(`{}`)} }
	events := []Event{ev("a", 1), ev("a", 2), ev("b", 1), ev("a", 3), ev("c", 1), ev("c", 2)}
	orig := append([]Event(nil), events...)
	ids, byRun, err := EventsByRun(events)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "c"}, ids)
	require.Equal(t, []Event{ev("a", 1), ev("a", 2), ev("a", 3)}, byRun["a"])
	require.Equal(t, []Event{ev("b", 1)}, byRun["b"])
	require.Equal(t, []Event{ev("c", 1), ev("c", 2)}, byRun["c"])
	require.Equal(t, orig, events, "the input is left as it is")
	byRun["c"] = append(byRun["c"], ev("c", 3))
	require.Equal(t, orig, events, "appending to a run's part leaves the input as it is")

	_, _, err = EventsByRun([]Event{ev("a", 1), ev("", 2)})
	require.True(t, errors.Is(err, ErrInvalid), "%v", err)
	require.ErrorContains(t, err, "event 1 (seq 2)")
}
