package server

import (
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/examples"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
	"github.com/aitexteditor/aite/internal/store/postgres/pgtest"
)

// TestAppsShareAPostgresStore starts two apps at once on one PostgreSQL
// schema (storage.store): they register one sample book between them,
// keep no SQLite file, and a run on one is listed and followed on the
// other.
func TestAppsShareAPostgresStore(t *testing.T) {
	appLeakCheck(t)
	dsn := pgtest.DSN(t)
	srv := llmtest.NewServer(t, llmtest.Response{Chunks: []string{llmtest.ContentChunk("Hello from the fake model."), llmtest.FinishChunk("stop")}})
	env := appEnv{"AITE_MODEL": "vllm:tiny", "AITE_VLLM_BASE_URL": srv.URL + "/v1"}
	apps := make([]*appRunning, 2)
	dirs := []string{t.TempDir(), t.TempDir()}
	var wg sync.WaitGroup
	for i := range apps {
		wg.Go(func() {
			apps[i] = appStartWith(t, dirs[i], env, map[string]string{"storage.store": dsn, "cluster.leaseMs": "2000"})
		})
	}
	wg.Wait()
	for _, a := range apps {
		var docs []documentSummary
		appGet(t, a.base+"/api/ap/documents", &docs)
		require.Len(t, docs, 1, "one sample book for both nodes")
		require.Equal(t, examples.SampleName, docs[0].Name)
	}
	for _, dir := range dirs {
		_, err := os.Stat(filepath.Join(dir, "aite.db"))
		require.ErrorIs(t, err, os.ErrNotExist, "no SQLite file next to PostgreSQL")
	}
	var runID string
	types, _ := appQueryFunc(t, apps[0], `{"message": "hello", "agentKey": "demoOneshot"}`, func(ev map[string]any) {
		if ev["type"] == "run.start" {
			runID, _ = ev["runId"].(string)
		}
	})
	require.Equal(t, "run.complete", types[len(types)-1])
	var chats []struct {
		LastRunID string `json:"lastRunId"`
	}
	appGet(t, apps[1].base+"/api/ap/chats", &chats)
	require.Len(t, chats, 1)
	require.Equal(t, runID, chats[0].LastRunID, "node B lists node A's chat")
	resp, err := appClient.Get(apps[1].base + "/api/ap/run/stream?runId=" + runID)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	resp.Body.Close()
	require.Contains(t, string(body), `"type":"run.complete"`, "node B replays node A's run")
	for _, a := range apps {
		a.stop()
	}
	srv.CloseClientConnections()
}

func TestUUIDv5(t *testing.T) {
	a, b := uuidV5("zvezdochkin"), uuidV5("zvezdochkin")
	require.Equal(t, a, b, "the same name, the same id on every node")
	require.NotEqual(t, a, uuidV5("other"))
	canon, ok := uuidCanonical(a)
	require.True(t, ok)
	require.Equal(t, a, canon)
	require.Equal(t, byte('5'), a[14], "version 5")
	require.Contains(t, "89ab", string(a[19]), "RFC 9562 variant")
}
