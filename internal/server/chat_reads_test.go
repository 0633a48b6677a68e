package server

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/store"
	"github.com/aitexteditor/aite/internal/store/postgres"
	"github.com/aitexteditor/aite/internal/store/postgres/pgtest"
)

// runLister counts the reads of a chat's runs of a store shared by several
// nodes (it stays one: the embedded store keeps its cluster methods).
type runLister struct {
	*postgres.Store
	lists atomic.Int32
}

func (c *runLister) ListRuns(ctx context.Context, chatID string) ([]store.Run, error) {
	c.lists.Add(1)
	return c.Store.ListRuns(ctx, chatID)
}

// On a cluster GET /chat reads the chat's runs once: its events and its
// active run come from the same list.
func TestChatDetailListsRunsOnce(t *testing.T) {
	st := &runLister{Store: pgtest.Open(t, pgtest.DSN(t), "a")}
	e := newChEnvOn(t, st, chAnswer("Hi"), nil)
	require.NotNil(t, e.runs.cl, "a cluster")
	s := e.query(`{"message":"hello","agentKey":"alpha"}`)
	var chatID string
	s.event().field(t, "chatId", &chatID)
	s.until("run.complete")
	e.waitIdle()

	before := st.lists.Load()
	d, _, evs := e.chatDetail(chatID, "")
	require.Equal(t, chatID, d.ChatID)
	require.NotEmpty(t, evs)
	require.Equal(t, int32(1), st.lists.Load()-before, "GET /chat lists the chat's runs once")
}
