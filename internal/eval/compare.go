package eval

import (
	"fmt"
	"io"
	"strings"
)

// WriteComparison writes two reports side by side, family by family: the
// share of exact answers, wrong and failed counts, mean calls, ρ and cost
// of A and of B.
func WriteComparison(w io.Writer, a, b *Report) error {
	var s strings.Builder
	fmt.Fprintf(&s, "# aite eval: %s vs %s\n\n", a.Model, b.Model)
	fmt.Fprintf(&s, "- A: `%s` on `%s`, seed %d, %d tasks per family; ρ by %s\n", a.Model, a.Book, a.Seed, a.PerFamily, a.RhoBasis)
	fmt.Fprintf(&s, "- B: `%s` on `%s`, seed %d, %d tasks per family; ρ by %s\n", b.Model, b.Book, b.Seed, b.PerFamily, b.RhoBasis)
	if a.BookSHA256 != b.BookSHA256 || a.Seed != b.Seed || a.PerFamily != b.PerFamily || a.RelayPairs != b.RelayPairs {
		s.WriteString("- Note: the two reports are not of the same book and plan (book, seed, tasks or relay differ), so their tasks differ.\n")
	}
	s.WriteString("\n| family | exact A | exact B | wrong A | wrong B | failed A | failed B | calls A | calls B | ρ A | ρ B | cost A | cost B |\n")
	s.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, name := range familyNames(a, b) {
		fa, fb := a.family(name), b.family(name)
		fmt.Fprintf(&s, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", name,
			share(fa), share(fb), count(fa, fa.Wrong), count(fb, fb.Wrong), count(fa, fa.Failed), count(fb, fb.Failed),
			mean(fa, fa.Calls, "%.1f"), mean(fb, fb.Calls, "%.1f"), mean(fa, fa.Rho, "%.3f"), mean(fb, fb.Rho, "%.3f"),
			familyCost(fa), familyCost(fb))
	}
	_, err := io.WriteString(w, s.String())
	return err
}

// familyNames lists the families of both reports (A's order first), then "all".
func familyNames(a, b *Report) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range []*Report{a, b} {
		for _, f := range r.Families {
			if !seen[f.Name] {
				seen[f.Name] = true
				out = append(out, f.Name)
			}
		}
	}
	return append(out, "all")
}

// family returns a report's row by name (nil when it has none).
func (r *Report) family(name string) *FamilyRow {
	if name == "all" {
		return &r.Total
	}
	for i := range r.Families {
		if r.Families[i].Name == name {
			return &r.Families[i]
		}
	}
	return nil
}

func share(f *FamilyRow) string {
	if f == nil || f.Tasks == 0 {
		return "–"
	}
	return fmt.Sprintf("%d/%d (%.0f %%)", f.Exact, f.Tasks, 100*float64(f.Exact)/float64(f.Tasks))
}

func count(f *FamilyRow, n int) string {
	if f == nil || f.Tasks == 0 {
		return "–"
	}
	return fmt.Sprint(n)
}

func mean(f *FamilyRow, v float64, format string) string {
	if f == nil || f.Tasks == 0 {
		return "–"
	}
	return fmt.Sprintf(format, v)
}

func familyCost(f *FamilyRow) string {
	if f == nil {
		return "–"
	}
	return costText(f.Cost)
}
