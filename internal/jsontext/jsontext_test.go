package jsontext

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// AppendString writes every string byte for byte as encoding/json does.
func TestAppendStringMatchesEncoder(t *testing.T) {
	var all strings.Builder
	for c := range 0x80 {
		all.WriteByte(byte(c))
	}
	for _, s := range []string{"", "content.delta", "a<b> & \"ü\" 📚\n\t", all.String(), "\u2028 \u2029 \u2027 \u202a",
		"bad \xff utf-8 \xc3", "\xed\xa0\x80 surrogate", "Записки из подполья", "\\\"\x00\x1f\x7f", "\xf4\x90\x80\x80"} {
		checkAppendString(t, s)
	}
}

// FuzzAppendString: go test ./internal/jsontext -run XXX -fuzz FuzzAppendString
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "x", "a<b>&\"\\\n\u2028\xff", "📚 ü"} {
		f.Add(s)
	}
	f.Fuzz(checkAppendString)
}

func checkAppendString(t *testing.T, s string) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	want := strings.TrimSuffix(buf.String(), "\n")
	if got := AppendString(nil, s); string(got) != want {
		t.Errorf("AppendString(%q) = %s, encoding/json gives %s", s, got, want)
	}
}
