package agentctx

import (
	"bytes"
	"encoding/json"
	"testing"
)

// stdEncode is encoding/json with HTML escaping off: the reference the
// direct encoder must match byte for byte.
func stdEncode(t testing.TB, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func TestEncodeMatchesEncodingJSON(t *testing.T) {
	strs := []string{"", "plain", "quote \" and \\ backslash", "ctl \x00\x01\x1f\t\n\r\b\f", "<html> & 'x'",
		"ёлка — «цитата»", "bad \xff utf8 \xc3", "line\u2028sep\u2029", "emoji 📚", "\x7f del"}
	for _, s := range strs {
		got, err := Encode(s)
		if err != nil {
			t.Fatal(err)
		}
		if want := stdEncode(t, s); !bytes.Equal(got, want) {
			t.Errorf("Encode(%q) = %s, want %s", s, got, want)
		}
	}
	v := NewObject("b", []any{json.Number("1.5e3"), true, nil, "x"}, "a", NewObject("n", 3, "f", 2.5, "i64", int64(-7)))
	got, err := Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"b":[1.5e3,true,null,"x"],"a":{"n":3,"f":2.5,"i64":-7}}`; string(got) != want {
		t.Errorf("Encode = %s, want %s", got, want)
	}
	for _, bad := range []string{"", "01", "1.", "-", "1e", "+1", "NaN", "1.5x"} {
		if _, err := Encode(json.Number(bad)); err == nil {
			t.Errorf("Encode(json.Number(%q)) gave no error", bad)
		}
	}
	for _, good := range []string{"0", "-0.5", "12", "1E+9", "3.25e-2"} {
		if got, err := Encode(json.Number(good)); err != nil || string(got) != good {
			t.Errorf("Encode(json.Number(%q)) = %s, %v", good, got, err)
		}
	}
}

func FuzzEncodeString(f *testing.F) {
	f.Add("ёлка \" \\ \x00 \u2028 \xff")
	f.Fuzz(func(t *testing.T, s string) {
		got, err := Encode(s)
		if err != nil {
			t.Fatal(err)
		}
		if want := stdEncode(t, s); !bytes.Equal(got, want) {
			t.Fatalf("Encode(%q) = %s, want %s", s, got, want)
		}
	})
}
