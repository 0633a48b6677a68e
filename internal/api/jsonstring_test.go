package api

import (
	"strings"
	"testing"
)

// appendString writes every string byte for byte as Encode does.
func TestAppendStringMatchesEncode(t *testing.T) {
	var all strings.Builder
	for c := range 0x80 {
		all.WriteByte(byte(c))
	}
	for _, s := range []string{"", "content.delta", "a<b> & \"ü\" 📚\n\t", all.String(), "\u2028 \u2029 \u2027 \u202a",
		"bad \xff utf-8 \xc3", "\xed\xa0\x80 surrogate", "Записки из подполья", "\\\"\x00\x1f\x7f", "\xf4\x90\x80\x80"} {
		checkAppendString(t, s)
	}
}

// FuzzAppendString: go test ./internal/api -run XXX -fuzz FuzzAppendString
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "x", "a<b>&\"\\\n\u2028\xff", "📚 ü"} {
		f.Add(s)
	}
	f.Fuzz(checkAppendString)
}

func checkAppendString(t *testing.T, s string) {
	want, err := Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	if got := appendString(nil, s); string(got) != string(want) {
		t.Errorf("appendString(%q) = %s, Encode gives %s", s, got, want)
	}
}

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
