package textnorm

import (
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/testbook"
)

func TestMatcher(t *testing.T) {
	tests := []struct {
		name, keyword, text string
		want                bool
	}{
		{"single word, other form", "Звёздочкин", "Он сказал Звездочкину правду.", true},
		{"all words, any order", "правда Звездочкин", "— Правду! — крикнул ЗВЁЗДОЧКИН.", true},
		{"one word missing", "правда Звездочкин Иванов", "правду сказал Звездочкин", false},
		{"repeated keyword word", "кот кот", "кот", true},
		{"english stems", "running professors", "The professor runs.", true},
		{"case and apostrophe", "DON'T", "I don’t know", true},
		{"punctuation in keyword", "«Ёлки-палки»!", "палки, ёлки", true},
		{"no partial word", "кот", "котлета", false},
		{"mixed script only folded", "iPhoneы", "купил IPHONEЫ", true},
		{"mixed script not stemmed", "iPhoneы", "купил iPhoneов", false},
		{"digits", "1862", "в 1862 году", true},
		{"empty keyword", "", "anything", false},
		{"punctuation keyword", " — … ", "anything", false},
		{"empty text", "кот", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewMatcher(tt.keyword)
			require.Equal(t, tt.want, m.Match(tt.text))
			require.Equal(t, tt.want, m.Match(tt.text), "second call (cached)")
		})
	}
}

func TestMatcherTerms(t *testing.T) {
	m := NewMatcher("Кот, кота и КОТУ — running runs")
	require.Equal(t, []string{"кот", "и", "run"}, m.Terms())
}

func TestMatcherConcurrent(t *testing.T) {
	m := NewMatcher("Звёздочкин правда")
	texts := []string{"Звездочкину правду", "Звездочкин лгал", "правдой Звёздочкина"}
	want := []bool{true, false, true}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				k := i % len(texts)
				if m.Match(texts[k]) != want[k] {
					t.Errorf("Match(%q) != %v", texts[k], want[k])
					return
				}
			}
		}()
	}
	wg.Wait()
}

// spanTexts returns text[sp.Start:sp.End] for each span.
func spanTexts(text string, spans []Span) []string {
	var out []string
	for _, sp := range spans {
		out = append(out, text[sp.Start:sp.End])
	}
	return out
}

func TestMatchPhrase(t *testing.T) {
	tests := []struct {
		name, text, phrase string
		want               []string
	}{
		{"case and ё", "— Позвольте, — сказал ЗВЁЗДОЧКИН, — но…", "звездочкин", []string{"ЗВЁЗДОЧКИН"}},
		{"punctuation between words ignored", "— Позвольте, — сказал Звёздочкин", "позвольте сказал",
			[]string{"Позвольте, — сказал"}},
		{"whitespace ignored", "Мой  дядя\n самых", "мой дядя самых", []string{"Мой  дядя\n самых"}},
		{"phrase punctuation ignored", "Ну-с, господа", "ну, с", []string{"Ну-с"}},
		{"several matches", "да, да и да да", "да да", []string{"да, да", "да да"}},
		{"non-overlapping", "a a a", "a a", []string{"a a"}},
		{"whole words only", "котлета кот", "кот", []string{"кот"}},
		{"not stemmed", "Звездочкину", "Звездочкин", nil},
		{"apostrophes", "I don’t know", "don't", []string{"don’t"}},
		{"order matters", "сказал он", "он сказал", nil},
		{"prefix of phrase at end", "он сказал", "сказал он", nil},
		{"empty phrase", "text", "", nil},
		{"punctuation phrase", "text", " — ", nil},
		{"empty text", "", "text", nil},
		{"invalid utf8", "\xffКот\xfeкот\xff", "кот кот", []string{"Кот\xfeкот"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spans := MatchPhrase(tt.text, tt.phrase)
			require.Equal(t, tt.want, spanTexts(tt.text, spans))
		})
	}
}

func TestMatchPhraseOffsets(t *testing.T) {
	text := "Ёлки — «ёлки»; ЕЛКИ"
	require.Equal(t, []Span{{0, 8}, {15, 23}, {27, 35}}, MatchPhrase(text, "елки"))
}

func TestMatchStemPhrase(t *testing.T) {
	tests := []struct {
		name, text, phrase string
		want               []string
	}{
		{"stems", "— Звездочкину сказали, — и ушёл", "звёздочкин сказал", []string{"Звездочкину сказали"}},
		{"english", "The Professors were running", "professor", []string{"Professors"}},
		{"order matters", "сказал Звездочкин", "Звездочкину сказал", nil},
		{"empty", "text", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, spanTexts(tt.text, MatchStemPhrase(tt.text, tt.phrase)))
		})
	}
}

// plainMiss decides without the cache only words the analysis rejects.
func TestPlainMissAgreesWithTheAnalysis(t *testing.T) {
	var words []string
	for _, src := range testbook.Books(t) {
		s := string(src)
		for _, sp := range Spans(s) {
			words = append(words, s[sp.Start:sp.End])
		}
	}
	words = append(words, "ёлка", "лев", "льва", "симонов", "симоновы", "коли", "аглаи", "алексея", "я", "123", "Simonov", "lev")
	for _, q := range []string{"Симонов", "человек", "Лев", "Коля", "Аглая", "я злой", "ёлка", "the Darcy", "Симонов 1812", "Zвёздочкин"} {
		m := NewMatcher(q)
		misses := 0
		for _, w := range words {
			if m.plainMiss(w) || m.noASCII && isASCII(w) {
				misses++
				if m.analyse(w) != 0 {
					t.Fatalf("%q: %q is set aside, but the word matches", q, w)
				}
			}
		}
		if misses == 0 {
			t.Fatalf("%q: plainMiss decided nothing", q)
		}
	}
}

// FirstMatch finds the first word MatchWord accepts.
func TestFirstMatch(t *testing.T) {
	texts := []string{"", "—", "Симонов", "Я ходил к Симонову, don't я", "о'Симонов симоновы", "ёлка Ёлка ЁЛКА",
		"a\xffСимонов", "смешанноеslovo Симонов", "лев Льва"}
	for _, src := range testbook.Books(t) {
		texts = append(texts, strings.Split(string(src), "\n\n")...)
	}
	for _, q := range []string{"Симонов", "человек", "Лев", "ёлка", "the", "don't", "xyzzy"} {
		m := NewMatcher(q)
		for _, text := range texts {
			var want Span
			found := false
			for _, sp := range Spans(text) {
				if m.MatchWord(text[sp.Start:sp.End]) {
					want, found = sp, true
					break
				}
			}
			got, ok := m.FirstMatch(text)
			if ok != found || got != want {
				t.Fatalf("FirstMatch(%q) in %.80q = %v %v, want %v %v", q, text, got, ok, want, found)
			}
		}
	}
}

// Match (with its shortcuts: plain Cyrillic words set aside, English runs
// skipped for a keyword without ASCII) agrees with matching every word
// against every term (matchMany), on the books' paragraphs and on texts
// that mix scripts inside words and around the skipped runs.
func TestMatchAgreesWithEveryWord(t *testing.T) {
	texts := []string{"", "—", "Симонов", "simple English words only.", "English, then Симонову.", "xСимонов", "Симонов's",
		"don'tСимонов", "a\xffСимонов", "“quoted” Симонова — “Симонову”", "Mr. Simonov met Симоновы at 1812.",
		"смешанноеslovo Симонов", "iPhoneы и Звездочкину", "lev Льва лев", "tail English ё", "Ёлки-палки, ёлку!"}
	for _, src := range testbook.Books(t) {
		texts = append(texts, strings.Split(string(src), "\n\n")...)
	}
	for _, q := range []string{"Симонов", "человек", "Лев", "я злой", "ёлка", "the Darcy", "Симонов 1812", "iPhoneы",
		"Звездочкин", "Elizabeth", "don't"} {
		m := NewMatcher(q)
		hits := 0
		for _, text := range texts {
			want := m.matchMany(text)
			require.Equal(t, want, m.Match(text), "%q in %q", q, text)
			if want {
				hits++
			}
		}
		require.Positive(t, hits, "%q matches something", q)
	}
}
