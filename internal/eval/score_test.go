package eval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// sample is the sample book of the repository, parsed.
func sample(t *testing.T, name string) *Book {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", name))
	require.NoError(t, err)
	b, err := NewBook(name, src, nil, 0)
	require.NoError(t, err)
	return b
}

func TestAnswerLine(t *testing.T) {
	cases := []struct {
		reply string
		want  string
		ok    bool
	}{
		{"Found it.\nANSWER: 12:1.p3", "12:1.p3", true},
		{"**ANSWER:** `12:1.p3`.", "12:1.p3", true},
		{"answer: none", "none", true},
		{"> Answer : 4, 5, 6", "4, 5, 6", true},
		{"ANSWER: 1\nthen on reflection\nANSWER: 2", "2", true},
		{"The answer is 12:1.p3", "", false},
		{"", "", false},
	}
	for _, tc := range cases {
		got, ok := answerLine(tc.reply)
		require.Equal(t, tc.ok, ok, tc.reply)
		require.Equal(t, tc.want, got, tc.reply)
	}
}

func TestScoreQuestion(t *testing.T) {
	b := sample(t, "zvezdochkin.md")
	three := 3
	first := Task{Family: First, Gold: Gold{Pointers: []string{"4:1.1.p1"}}}
	list := Task{Family: Collect, Gold: Gold{Pointers: []string{"4:1.1.p1", "36:1.2.p1"}}}
	count := Task{Family: Count, Gold: Gold{Count: &three}}
	walk := Task{Family: Walk, Params: Params{Mode: "first"}, Gold: Gold{Pointers: []string{"4:1.1.p1"}}}
	cases := []struct {
		name string
		t    Task
		o    Outcome
		want Verdict
		why  string
	}{
		{"the gold pointer", first, Outcome{Done: true, Answer: "ANSWER: 4:1.1.p1"}, Exact, ""},
		{"the gold by ID alone", first, Outcome{Done: true, Answer: "ANSWER: 4"}, Exact, ""},
		{"the gold by label alone", first, Outcome{Done: true, Answer: "ANSWER: 1.1.p1"}, Exact, ""},
		{"a stale label, the right ID", first, Outcome{Done: true, Answer: "ANSWER: 4:1.1.p7"}, Exact, ""},
		{"a neighbour", first, Outcome{Done: true, Answer: "ANSWER: 5:1.1.p2"}, Wrong, "the gold is 4:1.1.p1"},
		{"two items for one", first, Outcome{Done: true, Answer: "ANSWER: 4:1.1.p1, 5:1.1.p2"}, Wrong, "names 2 items"},
		{"no such item", first, Outcome{Done: true, Answer: "ANSWER: 9999:1.1.p1"}, Wrong, "names no item"},
		{"prose instead of a pointer", first, Outcome{Done: true, Answer: "ANSWER: the first paragraph"}, Wrong, "names no item"},
		{"none", first, Outcome{Done: true, Answer: "I could not tell.\nANSWER: none"}, Failed, "answered none"},
		{"no answer line", first, Outcome{Done: true, Answer: "It is 4:1.1.p1."}, Failed, "no ANSWER line"},
		{"out of steps", first, Outcome{Done: false, Failure: "the model ran out of steps", Answer: "ANSWER: 4:1.1.p1"}, Failed, "ran out of steps"},
		{"the whole list", list, Outcome{Done: true, Answer: "ANSWER: 36:1.2.p1, 4:1.1.p1"}, Exact, ""},
		{"a list one short", list, Outcome{Done: true, Answer: "ANSWER: 4:1.1.p1"}, Wrong, "1 of 2 gold items missing"},
		{"a list one long", list, Outcome{Done: true, Answer: "ANSWER: 4:1.1.p1; 36:1.2.p1; 5:1.1.p2"}, Wrong, "1 items not in the gold"},
		{"the count", count, Outcome{Done: true, Answer: "ANSWER: 3 paragraphs"}, Exact, ""},
		{"another count", count, Outcome{Done: true, Answer: "ANSWER: 4"}, Wrong, "counted 4, the gold is 3"},
		{"not a count", count, Outcome{Done: true, Answer: "ANSWER: three"}, Wrong, "not a number"},
		{"the cursor agent's pick", walk, Outcome{Done: true, Pointers: []string{"4:1.1.p1"}}, Exact, ""},
		{"the cursor agent's wrong pick", walk, Outcome{Done: true, Pointers: []string{"5:1.1.p2"}}, Wrong, "the gold"},
		{"an incomplete walk with the right pick", walk, Outcome{Done: false, Failure: "Incomplete: 3 items could not be judged", Pointers: nil}, Failed, "Incomplete"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := b.scoreQuestion(tc.t, tc.o)
			require.Equal(t, tc.want, s.verdict, s.reason)
			require.Contains(t, s.reason, tc.why)
		})
	}
}

func TestScoreEdit(t *testing.T) {
	before := []byte("# T\n\nOne.\n\nTwo.\n")
	gold := []byte("# T\n\nOne.\n\nNew.\n\nTwo.\n")
	other := []byte("# T\n\nOne.\n\nTwo.\n\nNew.\n")
	cases := []struct {
		name        string
		o           Outcome
		after, undo []byte
		expected    []byte
		want        Verdict
		why         string
	}{
		{"the gold edit, undone", Outcome{Done: true, Answer: "ANSWER: done"}, gold, before, gold, Exact, ""},
		{"the gold edit without an answer line", Outcome{Done: true, Answer: "Inserted."}, gold, before, gold, Exact, ""},
		{"the gold edit, undo fails", Outcome{Done: true, Answer: "ANSWER: done"}, gold, gold, gold, Wrong, "undo did not restore"},
		{"the wrong place", Outcome{Done: true, Answer: "ANSWER: done"}, other, before, gold, Wrong, "differs from the gold edit"},
		{"done, nothing changed", Outcome{Done: true, Answer: "ANSWER: done"}, before, nil, gold, Wrong, "claims the work done"},
		{"none, nothing changed", Outcome{Done: true, Answer: "ANSWER: none"}, before, nil, gold, Failed, "answered none"},
		{"none, but changed", Outcome{Done: true, Answer: "ANSWER: none"}, gold, before, gold, Wrong, "reported that it did not finish"},
		{"a failed run", Outcome{Done: false, Failure: "nothing written: model_error"}, before, nil, gold, Failed, "model_error"},
		{"a failed run where nothing was due", Outcome{Done: false, Failure: "nothing written: out of steps"}, before, nil, before, Failed, "out of steps"},
		{"nothing due, claimed", Outcome{Done: true, Answer: "ANSWER: done"}, before, nil, before, Exact, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := scoreEdit(tc.o, bookState{before: before, expected: tc.expected, after: tc.after, undone: tc.undo})
			require.Equal(t, tc.want, s.verdict, s.reason)
			require.Contains(t, s.reason, tc.why)
		})
	}
}

func TestDifferingBytes(t *testing.T) {
	long := strings.Repeat("word ", 200)
	cases := []struct {
		name string
		a, b string
		want int
	}{
		{"equal", "a\nb\n", "a\nb\n", 0},
		{"one word in a long line", "x\n" + long + "cat\ny\n", "x\n" + long + "dog\ny\n", 3},
		{"a line added", "a\nb\n", "a\nnew line\nb\n", 9},
		{"a line removed", "a\nold line\nb\n", "a\nb\n", 9},
		{"two places", "a\nbc\nd\nef\ng\n", "a\nbX\nd\nYf\ng\n", 2},
		{"a last character lost", "a\nend.", "a\nend", 1},
	}
	for _, tc := range cases {
		require.Equal(t, tc.want, differingBytes([]byte(tc.a), []byte(tc.b)), tc.name)
	}
}

func TestLastSentence(t *testing.T) {
	cases := []struct {
		md    string
		start int // -1: not clear enough
	}{
		{"The sun rose over the hill. Nobody in the village was awake yet.", 28},
		{"Она вышла из дома. Никто не заметил, как она ушла.", len("Она вышла из дома. ")},
		{"Only one sentence here, long enough to count.", -1},
		{"Mr. Darcy bowed. Elizabeth said nothing at all to him.", -1},    // an abbreviation
		{"He said \"go\". Then she went away from the house.", -1},        // quotation marks
		{"First part... Then the rest of it, slowly and surely.", -1},     // an ellipsis
		{"She looked up! and then she looked down at the floor.", -1},     // a lower-case start
		{"It was A. Smith. Then came the rest of the long day.", -1},      // an initial
		{"A first sentence here. A second *emphasised* one to end.", -1},  // markup
		{"A first sentence here. Short.", -1},                             // too short to be clear
		{"Line one of it. Line two\ncontinues on another line here.", -1}, // two lines
	}
	for _, tc := range cases {
		got, ok := lastSentence(tc.md)
		if tc.start < 0 {
			require.False(t, ok, tc.md)
			continue
		}
		require.True(t, ok, tc.md)
		require.Equal(t, tc.start, got, tc.md)
	}
}
