package main

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

func embedWorld(t *testing.T) *llmtest.EmbedServer {
	t.Helper()
	srv := llmtest.NewEmbedServer(t, llmtest.EmbedModels(map[string]int{"emb-a": 4096, "emb-b": 512},
		map[string]string{"letter": "letter", "конверт": "letter", "письмо": "letter", "post": "post", "почта": "post"}))
	t.Setenv("AITE_MODEL", "")
	t.Setenv("AITE_EMBED_MODEL", "openai:emb-a")
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	return srv
}

func TestFindByMeaningAndIndex(t *testing.T) {
	srv := embedWorld(t)
	book := writeSample(t)
	r := mustRun(t, "index", book, "--estimate")
	require.Contains(t, r.stderr, "105 of 105 items need embedding: ≈")
	require.Contains(t, r.stderr, "the model's price is unknown")
	require.Empty(t, srv.Requests(), "an estimate embeds nothing")

	r = mustRun(t, "index", book)
	require.Contains(t, r.stderr, "embedding 105 of 105 items with openai:emb-a")
	require.Contains(t, r.stdout, "holds 105 of 105 items (openai:emb-a, 4096 dimensions), stored in")
	require.FileExists(t, editor.VectorsPath(book))
	calls := len(srv.Requests())
	r = mustRun(t, "index", book)
	require.Contains(t, r.stdout, "holds 105 of 105 items")
	require.NotContains(t, r.stderr, "embedding")
	require.Len(t, srv.Requests(), calls, "nothing new, nothing embedded")

	r = mustRun(t, "find", book, "--semantic", "the letter left at the post office", "--limit", "3")
	require.Contains(t, r.stdout, "Paragraph")
	require.Regexp(t, "почт|конверт|письм", r.stdout)
	require.Len(t, srv.Requests(), calls+1, "only the query is embedded")
	r = mustRun(t, "--json", "find", book, "--hybrid", "часы на башне", "--limit", "5")
	var found struct {
		Mode     string `json:"mode"`
		RankedBy string `json:"rankedBy"`
		Results  []struct {
			Score   float64 `json:"score"`
			Snippet string  `json:"snippet"`
		} `json:"results"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &found))
	require.Equal(t, "hybrid", found.Mode)
	require.Equal(t, "hybrid", found.RankedBy)
	require.Len(t, found.Results, 5)
	require.Contains(t, found.Results[0].Snippet, "**", "the words' snippet, with the matches")

	// An edit by another program: only the changed item is embedded again.
	src := readFile(t, book)
	require.NoError(t, os.WriteFile(book, []byte(src+"\nНовое письмо пришло на почту.\n"), 0o644))
	before := srv.Inputs()
	r = mustRun(t, "find", book, "--semantic", "a letter at the post", "--limit", "3")
	require.Contains(t, r.stderr, "embedding 1 of 106 items")
	require.Equal(t, before+2, srv.Inputs(), "the new item and the query")
	require.Contains(t, r.stdout, "Новое письмо пришло на почту", "the new item is found by meaning")

	// Another model: the index is built again, never mixed.
	t.Setenv("AITE_EMBED_MODEL", "openai:emb-b")
	r = mustRun(t, "index", book)
	require.Contains(t, r.stderr, "made with openai:emb-a, not openai:emb-b")
	require.Contains(t, r.stdout, "512 dimensions")

	// A dead endpoint: the search falls back to words and says so.
	srv.FailWith(func(int) *llmtest.Response { return &llmtest.Response{Status: 503, Body: `{"error":"down"}`} })
	r = mustRun(t, "find", book, "--hybrid", "часы на башне", "--limit", "3")
	require.Contains(t, r.stderr, "search by meaning failed")
	require.Contains(t, r.stdout, "**часы**")
}

func TestSearchByMeaningWithoutAModel(t *testing.T) {
	t.Setenv("AITE_EMBED_MODEL", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	book := writeSample(t)
	for _, args := range [][]string{{"find", book, "--semantic", "x"}, {"find", book, "--hybrid", "x"}, {"index", book}} {
		wantFail(t, 1, []string{"no embedding model is configured", "AITE_EMBED_MODEL=openai:text-embedding-3-small", "search by words works"}, args...)
	}
	wantFail(t, 1, []string{"one of --exact, --ranked, --semantic, --hybrid and --entry"}, "find", book, "x", "--semantic", "--ranked")
	r := mustRun(t, "find", book, "--ranked", "часы")
	require.Contains(t, r.stdout, "**часы**", "search by words works as ever")
}
