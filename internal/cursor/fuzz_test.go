package cursor

import (
	"math/rand"
	"regexp"
	"strings"
	"testing"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/aitexteditor/aite/internal/search"
	"github.com/aitexteditor/aite/internal/textnorm"
)

var words = []string{"Звёздочкин", "Звездочкина", "Варя", "часы", "башня", "clock", "Clocks", "tower", "ёлка", "елки", "и", "—"}

// randomBook builds a random document from a seed: headings, paragraphs,
// lists, quotes and code with words drawn from a small vocabulary.
func randomBook(rng *rand.Rand) string {
	var b strings.Builder
	sentence := func() string {
		n := 1 + rng.Intn(6)
		ws := make([]string, n)
		for i := range ws {
			ws[i] = words[rng.Intn(len(words))]
		}
		return strings.Join(ws, " ") + "."
	}
	for i := 0; i < 5+rng.Intn(25); i++ {
		switch rng.Intn(6) {
		case 0:
			b.WriteString(strings.Repeat("#", 1+rng.Intn(3)) + " " + sentence() + "\n\n")
		case 1:
			b.WriteString("- " + sentence() + "\n- " + sentence() + "\n  - " + sentence() + "\n\n")
		case 2:
			b.WriteString("> " + sentence() + "\n\n")
		case 3:
			b.WriteString("```\n" + sentence() + "\n```\n\n")
		default:
			b.WriteString(sentence() + "\n\n")
		}
	}
	return b.String()
}

func randomSpec(rng *rand.Rand, d *document.Document) Spec {
	s := NewSpec([]Type{FullScan, Keyword, Filtered}[rng.Intn(3)])
	s.MaxElements = 1 + rng.Intn(5)
	s.MaxBytes = 1 + rng.Intn(120)
	s.Backward = rng.Intn(2) == 0
	s.IncludeHeadings = rng.Intn(3) > 0
	s.IncludeContent = rng.Intn(4) > 0
	if s.Type != FullScan {
		for i := 0; i < 1+rng.Intn(2); i++ {
			s.Keywords = append(s.Keywords, words[rng.Intn(len(words)-2)]+" "+words[rng.Intn(len(words)-2)])
		}
	}
	if s.Type == Filtered {
		if rng.Intn(2) == 0 {
			s.Kinds = []document.Kind{document.Paragraph, document.ListItem, document.Code}[:1+rng.Intn(3)]
		}
		if rng.Intn(3) == 0 {
			s.Regex = "(?i)" + words[rng.Intn(5)][:2]
		}
		if heads := headings(d); len(heads) > 0 && rng.Intn(2) == 0 {
			s.Within = heads[rng.Intn(len(heads))]
		}
	}
	if rng.Intn(3) == 0 && d.Len() > 0 {
		s.StartAfter = d.At(rng.Intn(d.Len())).Pointer().String() // a bare heading label "1" would read as an ID
	}
	return s
}

func headings(d *document.Document) []string {
	var out []string
	for _, it := range d.Items() {
		if it.Kind == document.Heading {
			out = append(out, it.Pointer().String())
		}
	}
	return out
}

// reference filters the items by brute force.
func reference(d *document.Document, s Spec) []int {
	from, to := 0, d.Len()
	if s.Within != "" {
		w, _ := d.Resolve(s.Within)
		from, to = w.Index(), d.SectionEnd(w.Index())
	}
	var rx *regexp.Regexp
	if s.Regex != "" {
		rx = regexp.MustCompile(s.Regex)
	}
	var ids []int
	for i := from; i < to; i++ {
		it := d.At(i)
		ok := (s.IncludeHeadings || it.Kind != document.Heading) && (rx == nil || rx.MatchString(it.Text))
		if len(s.Kinds) > 0 {
			in := false
			for _, k := range s.Kinds {
				in = in || k == it.Kind
			}
			ok = ok && in
		}
		if len(s.Keywords) > 0 {
			any := false
			for _, k := range s.Keywords {
				any = any || textnorm.NewMatcher(k).Match(it.Text)
			}
			ok = ok && any
		}
		if ok {
			ids = append(ids, it.ID)
		}
	}
	start := -1
	if s.StartAfter != "" {
		st, _ := d.Resolve(s.StartAfter)
		start = st.Index()
	}
	var out []int
	if s.Backward {
		for i := len(ids) - 1; i >= 0; i-- {
			if it := d.ByID(ids[i]); start < 0 || it.Index() < start {
				out = append(out, ids[i])
			}
		}
		return out
	}
	for _, id := range ids {
		if it := d.ByID(id); it.Index() > start {
			out = append(out, id)
		}
	}
	return out
}

// FuzzCursor: the concatenation of all portions equals the filtered item
// list, in order, with no duplicates; every portion respects its limits.
func FuzzCursor(f *testing.F) {
	for i := int64(0); i < 20; i++ {
		f.Add(i)
	}
	f.Fuzz(func(t *testing.T, seed int64) {
		rng := rand.New(rand.NewSource(seed))
		d := markdown.Parse([]byte(randomBook(rng)))
		x := search.Build(d)
		for round := 0; round < 8; round++ {
			s := randomSpec(rng, d)
			var idx KeywordIndex
			if round%2 == 1 {
				idx = x // the index path must agree with the scan
			}
			r := NewRegistry(d)
			info, err := r.Create(d, s)
			if err != nil {
				t.Fatalf("spec %+v: %v", s, err)
			}
			want := reference(d, info.Spec)
			var got []int
			for {
				p, err := r.Next(d, idx, info.Name)
				if err != nil {
					t.Fatal(err)
				}
				checkPortion(t, p, info.Spec)
				for _, it := range p.Items {
					got = append(got, it.Pointer.ID)
				}
				if !p.HasMore {
					break
				}
			}
			if len(got) != len(want) || strings.Trim(strings.Join(strings.Fields(fmtInts(got)), ","), "[]") != strings.Trim(strings.Join(strings.Fields(fmtInts(want)), ","), "[]") {
				t.Fatalf("spec %+v\n got  %v\n want %v\n%s", info.Spec, got, want, d.Source())
			}
		}
	})
}

func checkPortion(t *testing.T, p Portion, s Spec) {
	t.Helper()
	if len(p.Items) > s.MaxElements {
		t.Fatalf("%d items > maxElements %d", len(p.Items), s.MaxElements)
	}
	size := 0
	for _, it := range p.Items {
		size += len(it.Markdown)
	}
	if len(p.Items) > 1 && size > s.MaxBytes {
		t.Fatalf("%d bytes > maxBytes %d with %d items", size, s.MaxBytes, len(p.Items))
	}
	if p.HasMore && len(p.Items) == 0 {
		t.Fatal("an empty portion claims more")
	}
}

func fmtInts(xs []int) string {
	var b strings.Builder
	for _, x := range xs {
		b.WriteString(" ")
		b.WriteString(strings.TrimSpace(strings.Repeat(" ", 0) + itoa(x)))
	}
	return b.String()
}

func itoa(x int) string {
	const digits = "0123456789"
	if x == 0 {
		return "0"
	}
	var b []byte
	for ; x > 0; x /= 10 {
		b = append([]byte{digits[x%10]}, b...)
	}
	return string(b)
}
