package textnorm

import (
	"strings"
	"testing"
)

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{
		"", " ", "— Позвольте, — сказал Звёздочкин, — но…", "don't 'tis o'", "кто-то",
		"Zвёздочкин iPhoneы", "ab\xffвд\xd0\x80\xe2\x82cd\xc0", "е\u0308\u0308лка", "\u212A ſ ς",
		"1990's", "''''", "'a'", "a'", "ʼ", "Ё'Ё", "yyy ying sky", "ейшейше нннн",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		toks := Tokenize(s)
		prev := 0
		for _, tk := range toks {
			if tk.Start < prev || tk.Start >= tk.End || tk.End > len(s) {
				t.Fatalf("bad span [%d,%d) after %d in %q", tk.Start, tk.End, prev, s)
			}
			if s[tk.Start:tk.End] != tk.Text {
				t.Fatalf("Text %q != s[%d:%d] %q", tk.Text, tk.Start, tk.End, s[tk.Start:tk.End])
			}
			if tk.Norm != Fold(tk.Text) {
				t.Fatalf("Norm %q != Fold(%q)", tk.Norm, tk.Text)
			}
			prev = tk.End
		}
		checkDerived(t, s, toks)
	})
}

// checkDerived checks the functions built on the tokenizer against toks.
func checkDerived(t *testing.T, s string, toks []Token) {
	if fs := Fold(s); Fold(fs) != fs {
		t.Fatalf("Fold not idempotent on %q", s)
	}
	if ns := NormalizeSpace(s); NormalizeSpace(ns) != ns {
		t.Fatalf("NormalizeSpace not idempotent on %q", s)
	}
	terms := Terms(s)
	if len(terms) != len(toks) {
		t.Fatalf("Terms: %d terms for %d tokens", len(terms), len(toks))
	}
	for i, tk := range toks {
		if terms[i] != tk.Stem {
			t.Fatalf("Terms[%d] %q != Stem %q", i, terms[i], tk.Stem)
		}
	}
	if len(toks) > 0 && !NewMatcher(s).Match(s) {
		t.Fatalf("text does not match itself as keyword: %q", s)
	}
	for _, sp := range MatchPhrase(s, s) {
		if sp.Start < 0 || sp.End > len(s) || sp.Start > sp.End {
			t.Fatalf("bad phrase span %v", sp)
		}
	}
	_ = MatchStemPhrase(s, strings.ToUpper(s))
	if sc := DetectScript(Fold(s)); (sc == ScriptOther || sc == ScriptMixed) && Stem(s) != Fold(s) {
		t.Fatalf("Stem(%q) = %q: other and mixed scripts must only be folded", s, Stem(s))
	}
}
