package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/cli"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
	"github.com/aitexteditor/aite/internal/llm/models"
)

// TestScenariosWithRecordedModel replays the scenarios of
// testdata/scenarios/scenarios.json against transcripts recorded from a real
// model. To record (or re-record) them, configure a model and run
//
//	AITE_RECORD=1 AITE_MODEL=openai:gpt-4o-mini OPENAI_API_KEY=… go test ./cmd/aite -run TestScenariosWithRecordedModel
//
// and commit testdata/scenarios/transcripts. Without transcripts the test
// skips; the same scenarios always run against the scripted fake server in
// ask_test.go.
func TestScenariosWithRecordedModel(t *testing.T) {
	for name, s := range loadScenarios(t) {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("testdata", "scenarios", "transcripts", name)
			m := recordedModel(t, dir)
			src, err := os.ReadFile(filepath.Join("..", "..", s.Book))
			require.NoError(t, err)
			book := filepath.Join(t.TempDir(), "book.md")
			require.NoError(t, os.WriteFile(book, src, 0o644))
			var out, log bytes.Buffer
			err = cli.Ask(context.Background(), cli.AskRequest{Book: book, Command: s.Question, Model: m, Yes: true,
				In: strings.NewReader(""), Out: &out, Log: &log, MaxSteps: 12})
			require.NoError(t, err, log.String())
			after, _ := os.ReadFile(book)
			switch {
			case s.ExpectPointer != "":
				require.Contains(t, out.String(), s.ExpectPointer)
			case s.ExpectUnchanged:
				require.Equal(t, src, after)
			case s.ExpectFile != "":
				want, err := os.ReadFile(filepath.Join("testdata", "scenarios", s.ExpectFile))
				require.NoError(t, err)
				require.Equal(t, string(want), string(after))
			}
		})
	}
}

type recordedMeta struct {
	ModelID            string `json:"modelId"`
	SupportsJSONSchema bool   `json:"supportsJSONSchema"`
}

// recordedModel returns a recording provider (AITE_RECORD=1) or a replaying
// one, or skips when there is nothing recorded.
func recordedModel(t *testing.T, dir string) cli.Model {
	t.Helper()
	metaPath := filepath.Join(dir, "model.json")
	if os.Getenv(llmtest.RecordEnv) == "1" {
		live, err := cli.LoadModel("", "")
		require.NoError(t, err, "recording needs a configured model")
		require.NoError(t, os.MkdirAll(dir, 0o755))
		b, _ := json.Marshal(recordedMeta{live.Info.ModelID, live.Info.SupportsJSONSchema})
		require.NoError(t, os.WriteFile(metaPath, b, 0o644))
		return cli.Model{Provider: llmtest.RecordOrReplay(dir, func() llm.Provider { return live.Provider }), Info: live.Info}
	}
	raw, err := os.ReadFile(metaPath)
	if err != nil {
		t.Skipf("no recorded transcripts in %s (record them with %s=1 and a configured model)", dir, llmtest.RecordEnv)
	}
	var meta recordedMeta
	require.NoError(t, json.Unmarshal(raw, &meta))
	return cli.Model{Provider: llmtest.RecordOrReplay(dir, nil),
		Info: models.Model{ModelID: meta.ModelID, SupportsJSONSchema: meta.SupportsJSONSchema}}
}

// TestScenarioRecordThenReplay records a scenario against the scripted fake
// server and replays it without the server: the replay gives the same answer.
func TestScenarioRecordThenReplay(t *testing.T) {
	s := loadScenarios(t)["first-mention"]
	truth := paragraphsMentioning(t, filepath.Join("..", "..", s.Book), "Звёздочкин")
	w := newWorld(t, findWith("FirstMatch", 0), truth)
	live, err := cli.LoadModel("", "")
	require.NoError(t, err)
	dir := t.TempDir()
	run := func(p llm.Provider) string {
		var out, log bytes.Buffer
		err := cli.Ask(context.Background(), cli.AskRequest{Book: w.book, Command: s.Question,
			Model: cli.Model{Provider: p, Info: live.Info}, In: strings.NewReader(""), Out: &out, Log: &log, MaxSteps: 12})
		require.NoError(t, err, log.String())
		return out.String()
	}
	recorded := run(llmtest.NewRecorder(live.Provider, dir))
	require.Contains(t, recorded, s.ExpectPointer)
	calls := len(w.srv.Requests())
	replayed := run(llmtest.NewReplayer(dir))
	require.Equal(t, recorded, replayed)
	require.Len(t, w.srv.Requests(), calls, "the replay never reaches the server")
}
