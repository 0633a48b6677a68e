package server

import (
	"context"
	"errors"
	"time"

	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/store"
)

// docData is the editor session's DataStore over the document store: the
// codex, the vector index and the plan of a codex build of each document
// are kept beside it (store.DocumentData), so they survive restarts.
type docData struct {
	st    store.DocumentData
	clock func() time.Time
}

// dataTimeout bounds one call of the document store made under the
// session's lock.
const dataTimeout = 30 * time.Second

var _ editor.DataStore = docData{}

// LoadData implements editor.DataStore.
func (d docData) LoadData(book, name string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), dataTimeout)
	defer cancel()
	v, err := d.st.GetDocumentData(ctx, book, name)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return v.Data, nil
}

// SaveData implements editor.DataStore.
func (d docData) SaveData(book, name string, data []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), dataTimeout)
	defer cancel()
	return d.st.PutDocumentData(ctx, book, name, data, d.clock())
}

// SetEmbeddings turns search by meaning on for the documents (nil: off).
func (d *Documents) SetEmbeddings(e *editor.Embeddings) { d.session.SetEmbeddings(e) }
