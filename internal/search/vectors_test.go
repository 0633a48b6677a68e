package search

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
	"github.com/aitexteditor/aite/internal/markdown"
)

// fakeEmbedder embeds in process with llmtest.HashEmbedding and counts
// what it embedded; fail, when set, fails the call of that number.
type fakeEmbedder struct {
	embed func(string) []float32
	calls int
	texts int
	fail  int
}

func (f *fakeEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	f.calls++
	if f.calls == f.fail {
		return nil, errors.New("rate limited")
	}
	f.texts += len(texts)
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = f.embed(t)
	}
	return out, nil
}

// synonyms lets the fake see a few paraphrases of the sample book, in
// English and Russian, as a real embedding model would.
var synonyms = map[string]string{
	"letter": "letter", "письмо": "letter", "конверт": "letter",
	"post": "post", "почта": "post", "почтмейстер": "post",
	"stairs": "stairs", "steps": "stairs", "ступенька": "stairs", "лестница": "stairs",
	"key": "key", "ключ": "key",
}

func newFake(dim int) *fakeEmbedder {
	return &fakeEmbedder{embed: llmtest.HashEmbedding(dim, synonyms)}
}

func indexed(t *testing.T, d *document.Document, e Embedder) *Vectors {
	t.Helper()
	v := NewVectors("fake")
	p, total := v.Missing(d)
	require.Equal(t, len(p), total, "a new index lacks every item with words")
	require.NoError(t, v.Embed(context.Background(), e, p, 16, nil))
	return v
}

func TestNearestFindsParaphrases(t *testing.T) {
	d := markdown.Parse(example(t))
	f := newFake(4096) // few collisions: unrelated words stay apart
	v := indexed(t, d, f)
	require.Equal(t, 4096, v.Dim())
	x := Build(d)
	for query, want := range map[string][]string{
		"the letter left at the post office": {"почт", "конверт", "письм"},
		"how many steps up the stairs":       {"ступен", "лестниц"},
	} {
		words, err := x.Ranked(d, query, Options{Limit: 3})
		require.NoError(t, err)
		require.Empty(t, words, "no word of %q is in the book", query)
		q, err := v.Query(context.Background(), f, query)
		require.NoError(t, err)
		res, err := v.Nearest(d, q, Options{Limit: 3})
		require.NoError(t, err)
		require.Len(t, res, 3)
		for _, r := range res {
			require.Regexp(t, strings.Join(want, "|"), strings.ToLower(d.ByID(r.ID).Text), "%q found %s", query, r.Pointer)
			require.LessOrEqual(t, r.Score, 1.0001)
			require.Positive(t, r.Score)
		}
		require.GreaterOrEqual(t, res[0].Score, res[1].Score, "best first")
	}
	q, err := v.Query(context.Background(), f, "конверт")
	require.NoError(t, err)
	res, err := v.Nearest(d, q, Options{Limit: 50, Kinds: []document.Kind{document.Quote}})
	require.NoError(t, err)
	for _, r := range res {
		require.Equal(t, document.Quote, r.Kind, "filters apply")
	}
	_, err = v.Query(context.Background(), f, "—")
	require.ErrorIs(t, err, ErrEmptyQuery)
}

func TestVectorsFollowEdits(t *testing.T) {
	d := markdown.Parse(example(t))
	f := newFake(64)
	v := indexed(t, d, f)
	before := v.Len()
	res, err := d.ReplaceText("4:1.1.p1", "Поезд пришёл вовремя, и никто не замёрз.")
	require.NoError(t, err)
	p, _ := v.Missing(d)
	require.Len(t, p, 1, "only the edited item lacks a vector")
	require.Equal(t, res.Pointer.ID, p[0].ID)
	f.texts = 0
	require.NoError(t, v.Embed(context.Background(), f, p, 0, nil))
	require.Equal(t, 1, f.texts, "only the edited item is embedded again")
	require.Equal(t, 1, v.Prune(d), "the old text's vector is dropped")
	require.Equal(t, before, v.Len())
	_, err = d.Delete("5:1.1.p2")
	require.NoError(t, err)
	p, _ = v.Missing(d)
	require.Empty(t, p)
	require.Equal(t, 1, v.Prune(d))
}

func TestVectorsNeverMixDimensions(t *testing.T) {
	d := markdown.Parse(example(t))
	v := indexed(t, d, newFake(64))
	n := v.Len()
	_, err := d.ReplaceText("4:1.1.p1", "Новый текст.")
	require.NoError(t, err)
	p, _ := v.Missing(d)
	err = v.Embed(context.Background(), newFake(32), p, 0, nil)
	require.ErrorIs(t, err, ErrDimension)
	require.Equal(t, n, v.Len(), "nothing of the other model is stored")
	_, err = v.Query(context.Background(), newFake(32), "часы")
	require.ErrorIs(t, err, ErrDimension)
}

func TestEmbedKeepsTheBatchesBeforeAnError(t *testing.T) {
	d := markdown.Parse(example(t))
	v := NewVectors("fake")
	p, _ := v.Missing(d)
	f := newFake(16)
	f.fail = 3
	var done []int
	err := v.Embed(context.Background(), f, p, 10, func(n, total int) { done = append(done, n) })
	require.ErrorContains(t, err, "rate limited")
	require.Equal(t, []int{10, 20}, done)
	require.Equal(t, 20, v.Len())
	left, _ := v.Missing(d)
	require.Len(t, left, len(p)-20, "the next update embeds only the rest")
}

func TestVectorFileRoundTrip(t *testing.T) {
	d := markdown.Parse(example(t))
	v := indexed(t, d, newFake(24))
	b, err := v.MarshalBinary()
	require.NoError(t, err)
	back, err := UnmarshalVectors(b)
	require.NoError(t, err)
	require.Equal(t, "fake", back.Model())
	require.Equal(t, v.vecs, back.vecs)
	p, _ := back.Missing(d)
	require.Empty(t, p)
	empty, err := NewVectors("m").MarshalBinary()
	require.NoError(t, err)
	_, err = UnmarshalVectors(empty)
	require.NoError(t, err)
	for name, bad := range map[string][]byte{
		"empty":     nil,
		"magic":     append([]byte("NOTAVEC1"), b[8:]...),
		"cut":       b[:len(b)-3],
		"longer":    append(append([]byte{}, b...), 0),
		"header":    append(append([]byte{}, b[:12]...), []byte("{garbage")...),
		"short hdr": b[:10],
	} {
		_, err := UnmarshalVectors(bad)
		require.ErrorIs(t, err, ErrVectorFile, name)
	}
}

func TestFuse(t *testing.T) {
	d := parse("# T\n\na\n\nb\n\nc\n\nd\n")
	r := func(id int, snip string) Result {
		it := d.ByID(id)
		return result(it, 0, 1, snip)
	}
	words := []Result{r(3, "**b**"), r(2, "a"), r(4, "c")}
	meaning := []Result{r(4, "c"), r(3, "b"), r(5, "d")}
	got := Fuse(3, words, meaning)
	require.Equal(t, []int{3, 4, 2}, []int{got[0].ID, got[1].ID, got[2].ID})
	require.InDelta(t, 1.0/61+1.0/62, got[0].Score, 1e-12)
	require.Equal(t, "**b**", got[0].Snippet, "the first list's snippet")
	require.Equal(t, 2, got[0].Matches)
	all := Fuse(0, words, meaning)
	require.Len(t, all, 4)
	require.Equal(t, []int{2, 5}, []int{all[2].ID, all[3].ID}, "rank 2 of one list before rank 3 of the other")
	tie := Fuse(0, []Result{r(5, "d")}, []Result{r(2, "a")})
	require.Equal(t, []int{2, 5}, []int{tie[0].ID, tie[1].ID}, "equal scores: document order")
}
