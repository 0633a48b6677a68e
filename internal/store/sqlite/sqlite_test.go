package sqlite_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/store"
	"github.com/aitexteditor/aite/internal/store/sqlite"
	"github.com/aitexteditor/aite/internal/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := sqlite.Open(filepath.Join(t.TempDir(), "aite.db"))
		require.NoError(t, err)
		return s
	})
}

func TestConformanceSyncNormal(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := sqlite.Open(filepath.Join(t.TempDir(), "aite.db"), sqlite.WithSynchronous(sqlite.SyncNormal), sqlite.WithReaders(2))
		require.NoError(t, err)
		return s
	})
}

var (
	bg = context.Background()
	t1 = time.Date(2026, 2, 12, 10, 0, 0, 0, time.UTC)
)

func TestOpenCreatesDirectoryAndUsesWAL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "var", "nested", "aite.db")
	s, err := sqlite.Open(path)
	require.NoError(t, err)
	require.NoError(t, s.CreateChat(bg, store.Chat{ID: "c1", CreatedAt: t1, UpdatedAt: t1}))
	_, err = os.Stat(path + "-wal")
	require.NoError(t, err, "the database runs in WAL mode")
	require.NoError(t, s.Close())
	_, err = os.Stat(path)
	require.NoError(t, err)
}

func TestOpenRejects(t *testing.T) {
	_, err := sqlite.Open(filepath.Join(t.TempDir(), "a.db"), sqlite.WithSynchronous("OFF"))
	require.ErrorIs(t, err, store.ErrInvalid)
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o600))
	_, err = sqlite.Open(filepath.Join(file, "aite.db"))
	require.Error(t, err, "the parent is a file")
	garbage := filepath.Join(t.TempDir(), "garbage.db")
	require.NoError(t, os.WriteFile(garbage, []byte("this is not a database, not even close; it is long enough to have a header....."), 0o600))
	_, err = sqlite.Open(garbage)
	require.Error(t, err)
}

func TestOddPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dir with space?#%&", "ä.db")
	s, err := sqlite.Open(path)
	require.NoError(t, err)
	require.NoError(t, s.CreateChat(bg, store.Chat{ID: "c1"}))
	require.NoError(t, s.Close())
	_, err = os.Stat(path)
	require.NoError(t, err, "the file is where it was asked to be")
}

// TestReopenKeepsEverything writes one of each record, closes, reopens and reads them back.
func TestReopenKeepsEverything(t *testing.T) {
	path := filepath.Join(t.TempDir(), "aite.db")
	s, err := sqlite.Open(path)
	require.NoError(t, err)
	readAt := t1.Add(time.Minute)
	chat := store.Chat{ID: "c1", Name: "n", AgentKey: "a", CreatedAt: t1, UpdatedAt: t1, ReadStatus: 1, ReadAt: &readAt}
	run := store.Run{ID: "r1", ChatID: "c1", RequestID: "q", AgentKey: "a", Query: json.RawMessage(`{"q": 1}`), StartedAt: t1}
	event := store.Event{RunID: "r1", Seq: 1, Type: "run.start", Timestamp: 7, Body: json.RawMessage(`{"seq":1,"type":"run.start"}`)}
	message := store.Message{RunID: "r1", Ord: 1, Stage: "s", TaskID: "t", MsgID: "m_1", Body: json.RawMessage(`{"role":"user"}`)}
	plan := store.Plan{ID: "plan_r1", ChatID: "c1", RunID: "r1", Tasks: json.RawMessage(`[]`), UpdatedAt: t1}
	require.NoError(t, s.CreateChat(bg, chat))
	require.NoError(t, s.CreateRun(bg, run))
	require.NoError(t, s.AppendEvents(bg, "r1", event))
	require.NoError(t, s.AppendMessages(bg, "r1", message))
	_, err = s.AppendSystem(bg, "r1", "s", json.RawMessage(`{"model":"m"}`))
	require.NoError(t, err)
	require.NoError(t, s.SavePlan(bg, plan))
	doc, err := s.CreateDocument(bg, store.Document{ID: "d1", Markdown: "# A\n", ItemCount: 1, CreatedAt: t1, UpdatedAt: t1})
	require.NoError(t, err)
	require.NoError(t, s.SaveTask(bg, "t1", json.RawMessage(`{"x":1}`), t1))
	require.NoError(t, s.Close())

	s, err = sqlite.Open(path)
	require.NoError(t, err)
	defer s.Close()
	gotChat, err := s.GetChat(bg, "c1")
	require.NoError(t, err)
	require.Equal(t, chat, gotChat)
	gotRun, err := s.GetRun(bg, "r1")
	require.NoError(t, err)
	run.Status = store.RunRunning
	require.Equal(t, run, gotRun)
	events, err := s.ListEvents(bg, "r1", 0)
	require.NoError(t, err)
	require.Equal(t, []store.Event{event}, events)
	msgs, err := s.ListMessages(bg, "r1")
	require.NoError(t, err)
	require.Equal(t, []store.Message{message}, msgs)
	systems, err := s.ListSystems(bg, "r1")
	require.NoError(t, err)
	require.Len(t, systems, 1)
	gotPlan, err := s.LatestPlan(bg, "c1")
	require.NoError(t, err)
	require.Equal(t, plan, gotPlan)
	gotDoc, err := s.GetDocument(bg, "d1")
	require.NoError(t, err)
	require.Equal(t, doc, gotDoc)
	task, err := s.LoadTask(bg, "t1")
	require.NoError(t, err)
	require.Equal(t, `{"x":1}`, string(task.Body))
	running, err := s.RunningRuns(bg)
	require.NoError(t, err)
	require.Len(t, running, 1, "the run is still marked running after a restart")
}

// TestTwoStoresOneFile opens the file twice (as two processes would): writes from one are
// seen by the other and the writers wait for each other instead of failing.
func TestTwoStoresOneFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "aite.db")
	a, err := sqlite.Open(path)
	require.NoError(t, err)
	defer a.Close()
	b, err := sqlite.Open(path)
	require.NoError(t, err)
	defer b.Close()
	require.NoError(t, a.CreateChat(bg, store.Chat{ID: "c1"}))
	require.NoError(t, b.CreateRun(bg, store.Run{ID: "r1", ChatID: "c1"}))
	done := make(chan error, 1)
	go func() {
		for i := range 50 {
			if err := a.AppendEvents(bg, "r1", store.Event{Seq: int64(2*i + 1), Type: "x", Body: json.RawMessage(`{}`)}); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for i := range 50 {
		require.NoError(t, b.SaveTask(bg, "t", json.RawMessage(`{}`), t1.Add(time.Duration(i))))
	}
	require.NoError(t, <-done)
	last, err := b.LastSeq(bg, "r1")
	require.NoError(t, err)
	require.Equal(t, int64(99), last)
}
