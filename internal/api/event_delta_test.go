package api

import "testing"

// The delta events written directly are the bytes the generic path
// (Encode of the payload) gives.
func TestDeltaEventsMatchEncode(t *testing.T) {
	for _, s := range []string{"", "Hi", "a<b> & \"ü\" 📚\n\t\x01", "bad \xff \u2028"} {
		for _, p := range []any{ContentDelta{ContentID: "r_c_1" + s, Delta: s}, ReasoningDelta{ReasoningID: "r_r_2", Delta: s}} {
			got, err := Event{Seq: 12, Type: TypeContentDelta, Timestamp: 1770863186548, Payload: p}.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			body, err := Encode(p)
			if err != nil {
				t.Fatal(err)
			}
			want := `{"seq":12,"type":"content.delta","timestamp":1770863186548,` + string(body[1:])
			if string(got) != want {
				t.Errorf("%#v:\n got %s\nwant %s", p, got, want)
			}
		}
	}
}
