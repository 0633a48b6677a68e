package postgres

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/store"
)

func TestNotesRoundTrip(t *testing.T) {
	notes := []store.Note{{RunID: "mtoewf3u", Seq: 1}, {RunID: `odd "id"\`, Seq: 99, Ended: true},
		{RunID: "r", Cancel: true}, {RunID: "r", Ended: true, Cancel: true},
		{RunID: "r", Body: []byte(`{"submit":{"id":"x","params":"é\u0000"}}` + "\x00\xff")}}
	payloads := encodeNotes(notes)
	require.Len(t, payloads, 1)
	require.Equal(t, notes, decodeNotes(payloads[0]))
	require.Nil(t, encodeNotes(nil))

	var many []store.Note
	for i := range 2000 {
		many = append(many, store.Note{RunID: strings.Repeat("x", i%40+1), Seq: int64(i)})
	}
	var back []store.Note
	for _, p := range encodeNotes(many) {
		require.Less(t, len(p), 8000)
		back = append(back, decodeNotes(p)...)
	}
	require.Equal(t, many, back)

	for _, bad := range []string{"", "x", `[["r"]]`, `[[1,2]]`, `[["",2]]`, `{}`, `[["r",2,"x"]]`} {
		require.Equal(t, []store.Note{{}}, decodeNotes(bad), "%q reads as: read everything again", bad)
	}
}
