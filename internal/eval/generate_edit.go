package eval

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/textnorm"
)

// newSentences are the sentences edit tasks put into a book: plain, with
// a marker number so that each is unique in the book.
var newSentences = map[string][]string{
	"en": {
		"Marker %d: the lamps in the hall were lit earlier than usual that evening.",
		"Marker %d: a cold wind came up from the river and rattled the shutters.",
		"Marker %d: nobody in the house could remember such a quiet morning.",
		"Marker %d: the letter lay unopened on the table until noon.",
	},
	"ru": {
		"Метка %d: в тот вечер лампы в зале зажгли раньше обычного.",
		"Метка %d: с реки подул холодный ветер и застучал ставнями.",
		"Метка %d: никто в доме не помнил такого тихого утра.",
		"Метка %d: письмо пролежало на столе нераспечатанным до полудня.",
	},
}

// replacements are the words a relay's word steps put in place of one of
// the paragraph's own.
var replacements = map[string][]string{
	"en": {"lantern", "harbour", "violin", "meadow", "compass", "pebble"},
	"ru": {"фонарь", "гавань", "скрипка", "луг", "компас", "камешек"},
}

// sentence returns the k-th new sentence of the book's language.
func (g *gen) sentence(k int) string {
	list := newSentences[g.b.lang]
	return fmt.Sprintf(list[k%len(list)], k)
}

// insert makes "insert a sentence after the n-th paragraph that mentions
// X" tasks, n in 1..3, where that paragraph is a plain paragraph and a
// next mention exists.
func (g *gen) insert(rng *rand.Rand) []Task {
	type cand struct {
		nm name
		n  int
	}
	var cands []cand
	for _, nm := range g.names[:min(len(g.names), 60)] {
		for n := 1; n <= 3 && n < len(nm.items); n++ {
			if plainParagraph(nm.items[n-1]) {
				cands = append(cands, cand{nm, n})
			}
		}
	}
	var tasks []Task
	for k, c := range pick(rng, cands, g.opt.PerFamily) {
		t := Task{Params: Params{Name: c.nm.form, N: c.n, Text: g.sentence(k + 1)}}
		t.Gold.Edit = &EditOp{Op: string(document.OpInsertAfter), Pointer: c.nm.items[c.n-1].Pointer().String(), Markdown: t.Params.Text}
		t.Prompt = insertPrompt(t.Params)
		tasks = append(tasks, t)
	}
	return tasks
}

// firstParagraph returns the first item of a chapter, if it is a plain
// paragraph.
func (g *gen) firstParagraph(ch section) (*document.Item, bool) {
	for i := ch.heading.Index() + 1; i < ch.end; i++ {
		it := g.b.doc.At(i)
		if it.Kind == document.Paragraph {
			return it, plainParagraph(it)
		}
	}
	return nil, false
}

// replace makes "replace the last sentence of chapter C's first
// paragraph" tasks over the chapters whose first paragraph has an
// unambiguous last sentence.
func (g *gen) replace(rng *rand.Rand) []Task {
	var cands []section
	for _, ch := range g.b.chapters {
		if it, ok := g.firstParagraph(ch); ok {
			if _, ok := lastSentence(g.b.markdownOf(it)); ok {
				cands = append(cands, ch)
			}
		}
	}
	var tasks []Task
	for k, ch := range pick(rng, cands, g.opt.PerFamily) {
		it, _ := g.firstParagraph(ch)
		md := g.b.markdownOf(it)
		start, _ := lastSentence(md)
		t := Task{Params: g.chapterParams(ch)}
		t.Params.Text = g.sentence(100 + k + 1)
		t.Params.Target = it.Pointer().String()
		t.Gold.Edit = &EditOp{Op: string(document.OpReplace), Pointer: t.Params.Target, Markdown: withLastSentence(md, start, t.Params.Text)}
		t.Prompt = replacePrompt(t.Params)
		tasks = append(tasks, t)
	}
	return tasks
}

// relay makes one relay of RelayPairs forward/inverse pairs over plain
// paragraphs, distinct as long as the book has enough: a word replaced and
// put back, a last sentence replaced and put back, a paragraph inserted and
// deleted, in turn.
func (g *gen) relay(rng *rand.Rand) []Task {
	if g.opt.RelayPairs == 0 {
		return nil
	}
	var paras []*document.Item
	for _, it := range g.b.doc.Items() {
		if n := it.End() - it.Start(); plainParagraph(it) && n >= 120 && n <= 1200 {
			paras = append(paras, it)
		}
	}
	paras = pick(rng, paras, len(paras))
	used := map[int]bool{}
	kinds := []string{StepWord, StepSentence, StepInsert}
	var steps []Step
	for k := 0; len(steps) < 2*g.opt.RelayPairs; k++ {
		kind := kinds[k%len(kinds)]
		fwd, ok := g.relayStep(rng, kind, paras, used, len(steps)/2+1)
		if !ok && len(used) > 0 {
			clear(used) // a short book: its paragraphs are edited again (each pair leaves them as they were)
			fwd, ok = g.relayStep(rng, kind, paras, used, len(steps)/2+1)
		}
		if !ok {
			break
		}
		inv := fwd
		inv.Inverse = true
		fwd.Prompt, inv.Prompt = relayPrompt(fwd.Params, false), relayPrompt(fwd.Params, true)
		steps = append(steps, fwd, inv)
	}
	if len(steps) < 2*g.opt.RelayPairs {
		return nil
	}
	return []Task{{Params: Params{N: g.opt.RelayPairs}, Steps: steps}}
}

// relayStep makes the forward step of a pair on the first unused paragraph
// that suits its kind.
func (g *gen) relayStep(rng *rand.Rand, kind string, paras []*document.Item, used map[int]bool, k int) (Step, bool) {
	for _, it := range paras {
		if used[it.ID] {
			continue
		}
		md := g.b.markdownOf(it)
		p := Params{Op: kind, Target: it.Pointer().String()}
		var edit EditOp
		switch kind {
		case StepWord:
			w, rep, ok := g.wordSwap(rng, md)
			if !ok {
				continue
			}
			p.Word, p.Replacement = w, rep
			edit = EditOp{Op: string(document.OpReplace), Pointer: p.Target, Markdown: strings.Replace(md, w, rep, 1)}
		case StepSentence:
			start, ok := lastSentence(md)
			if !ok {
				continue
			}
			p.Text, p.Original = g.sentence(200+k), strings.TrimRight(md[start:], " ")
			edit = EditOp{Op: string(document.OpReplace), Pointer: p.Target, Markdown: withLastSentence(md, start, p.Text)}
		default:
			p.Text = g.sentence(200 + k)
			edit = EditOp{Op: string(document.OpInsertAfter), Pointer: p.Target, Markdown: p.Text}
		}
		used[it.ID] = true
		return Step{Params: p, Edit: edit}, true
	}
	return Step{}, false
}

// wordSwap picks a word of the paragraph to replace: lower case letters
// only, five letters at least, occurring exactly once in the Markdown
// (also inside other words), and a replacement the paragraph lacks.
func (g *gen) wordSwap(rng *rand.Rand, md string) (string, string, bool) {
	var words []string
	for _, tok := range textnorm.Tokenize(md) {
		r, _ := utf8.DecodeRuneInString(tok.Text)
		if lettersOnly(tok.Text) && unicode.IsLower(r) && utf8.RuneCountInString(tok.Text) >= 5 && strings.Count(md, tok.Text) == 1 {
			words = append(words, tok.Text)
		}
	}
	var reps []string
	for _, r := range replacements[g.b.lang] {
		if !strings.Contains(md, r) {
			reps = append(reps, r)
		}
	}
	if len(words) == 0 || len(reps) == 0 {
		return "", "", false
	}
	return words[rng.IntN(len(words))], reps[rng.IntN(len(reps))], true
}
