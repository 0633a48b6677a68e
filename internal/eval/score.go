package eval

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/aitexteditor/aite/internal/textdiff"
)

// Verdict is how a task (or a relay step) was scored.
type Verdict string

// The verdicts.
const (
	Exact  Verdict = "exact"
	Wrong  Verdict = "wrong"
	Failed Verdict = "failed"
)

// score is a verdict with its reason and the answer as read.
type score struct {
	verdict Verdict
	reason  string
	answer  string
}

func exact(answer string) score { return score{Exact, "", answer} }

func wrong(answer, format string, args ...any) score {
	return score{Wrong, fmt.Sprintf(format, args...), answer}
}

func failed(answer, reason string) score { return score{Failed, reason, answer} }

// answerRE finds an ANSWER line, also in bold, a quote, a list or code.
var answerRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("(?im)^[\\s>*_`#-]*answer[\\s*_`]*[:：][\\s*_`]*(.*?)[\\s*_`.]*$")
})

// answerLine returns the value of the reply's last ANSWER line.
func answerLine(reply string) (string, bool) {
	m := answerRE().FindAllStringSubmatch(reply, -1)
	if len(m) == 0 {
		return "", false
	}
	v := strings.TrimSpace(m[len(m)-1][1])
	return strings.Trim(v, "«»\"'` "), true
}

func declined(v string) bool { return strings.EqualFold(strings.TrimSpace(v), "none") }

// scoreQuestion scores a task that asks for items or a count: the answer
// against the gold.
func (b *Book) scoreQuestion(t Task, o Outcome) score {
	if !o.Done {
		return failed("", o.Failure)
	}
	if t.Family == Walk {
		return b.scorePointers(t, o.Pointers, strings.Join(o.Pointers, ", "))
	}
	v, ok := answerLine(o.Answer)
	switch {
	case !ok:
		return failed("", "the reply has no ANSWER line")
	case declined(v):
		return failed(v, "the agent answered none (could not establish it)")
	case t.Gold.Count != nil:
		return scoreCount(*t.Gold.Count, v)
	}
	return b.scorePointers(t, pointerTokens(v), v)
}

var numberRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\d+`) })

func scoreCount(gold int, v string) score {
	m := numberRE().FindString(v)
	if m == "" {
		return wrong(v, "the answer is not a number")
	}
	n, _ := strconv.Atoi(m)
	if n != gold {
		return wrong(v, "counted %d, the gold is %d", n, gold)
	}
	return exact(v)
}

// pointerTokens splits a list of pointers.
func pointerTokens(v string) []string {
	return strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ';' || r == ' ' || r == '\t' })
}

// scorePointers compares the items the answer names with the gold items.
func (b *Book) scorePointers(t Task, answer []string, shown string) score {
	single := t.Family != Collect && (t.Family != Walk || t.Params.Mode != "collect")
	if len(answer) == 0 {
		return wrong(shown, "the answer names no item")
	}
	got := map[int]bool{}
	for _, a := range answer {
		it, err := b.resolve(a)
		if err != nil {
			return wrong(shown, "%q names no item of the book", a)
		}
		got[it.ID] = true
	}
	if single && len(got) > 1 {
		return wrong(shown, "the answer names %d items where one was asked for", len(got))
	}
	want := map[int]bool{}
	for _, g := range t.Gold.Pointers {
		it, _ := b.resolve(g)
		want[it.ID] = true
	}
	missing, extra := 0, 0
	for id := range want {
		if !got[id] {
			missing++
		}
	}
	for id := range got {
		if !want[id] {
			extra++
		}
	}
	switch {
	case missing == 0 && extra == 0:
		return exact(shown)
	case single:
		return wrong(shown, "the gold is %s", t.Gold.Pointers[0])
	}
	return wrong(shown, "%d of %d gold items missing, %d items not in the gold", missing, len(want), extra)
}

// bookState is a book file before and after a command, and after undo
// (nil: undo is not checked).
type bookState struct {
	before, expected, after, undone []byte
	undoErr                         error
}

// scoreEdit scores a command that edits: the book after it against the
// book with the gold edit applied, byte for byte, and undo. Exact needs the
// agent to claim the work done (a finished run, no "ANSWER: none") and the
// book to be the gold; a changed book that is not the gold, or a claim with
// nothing changed where a change was due, is wrong; an unchanged book
// without a claim is an honest failure.
func scoreEdit(o Outcome, s bookState) score {
	v, hasLine := answerLine(o.Answer)
	refused := hasLine && declined(v)
	claimed := o.Done && !refused
	changed := !bytes.Equal(s.after, s.before)
	right := bytes.Equal(s.after, s.expected)
	switch {
	case right && claimed && changed && s.undone != nil && !bytes.Equal(s.undone, s.before):
		return wrong(v, "the edit is right but undo did not restore the book (%v)", s.undoErr)
	case right && claimed:
		return exact(v)
	case changed && !right:
		return wrong(v, "the book differs from the gold edit in %d bytes (first at byte %d)",
			differingBytes(s.expected, s.after), textdiff.CommonPrefix(s.expected, s.after))
	case changed:
		return wrong(v, "the book was changed, although the agent reported that it did not finish")
	case claimed:
		return wrong(v, "the reply claims the work done but the book is unchanged")
	case refused:
		return failed(v, "the agent answered none (could not do it)")
	}
	return failed(v, o.Failure)
}
