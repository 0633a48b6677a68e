package server

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/store"
	"github.com/aitexteditor/aite/internal/store/postgres/pgtest"
)

// lockCounter counts the document locks taken in a store shared by several
// nodes.
type lockCounter struct {
	store.Store
	locks atomic.Int32
}

func (c *lockCounter) LockDocument(ctx context.Context, id string) (int, func(), error) {
	c.locks.Add(1)
	return c.Store.(store.DocumentLocks).LockDocument(ctx, id)
}

// On PostgreSQL a document request takes the document's lock once: the
// visibility check (owner) and the handler do not lock twice, on the node
// that holds the document and on one that loads it first.
func TestDocumentRequestLocksOnce(t *testing.T) {
	dsn := pgtest.DSN(t)
	a := &lockCounter{Store: pgtest.Open(t, dsn, "a")}
	b := &lockCounter{Store: pgtest.Open(t, dsn, "b")}
	docsA := NewDocuments(a, nil)
	doc, err := docsA.Create(context.Background(), "Book", []byte(dcBook), 0)
	require.NoError(t, err)
	for _, node := range []struct {
		name string
		st   *lockCounter
		docs *Documents
	}{{"a", a, docsA}, {"b", b, NewDocuments(b, nil)}} {
		h := New(Options{Store: node.st, Documents: node.docs}).Handler()
		for _, path := range []string{"/api/ap/document", "/api/ap/document/items", "/api/ap/document"} {
			before := node.st.locks.Load()
			env := mtGet(t, h, path+"?documentId="+doc.ID)
			require.Equal(t, 200, env.Status, env.Body)
			require.Equal(t, int32(1), node.st.locks.Load()-before, "node %s: GET %s", node.name, path)
		}
	}
}
