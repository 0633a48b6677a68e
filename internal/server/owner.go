package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/aitexteditor/aite/internal/server/auth"
	"github.com/aitexteditor/aite/internal/store"
)

// The ownership rule (issue 14), one place for every handler: with auth on,
// a chat (with its runs, their streams, submits and cancels) and a document
// belong to the subject whose token created them (store.Chat.Owner,
// store.Document.Owner); for any other subject they do not exist: 404, an
// unmatched submit, absent from the lists. A token with the admin scope
// (auth.adminScope) sees and may act on everything. Chats and documents
// without an owner (created while auth was off, the sample book) belong to
// nobody: only an admin sees them once auth is on. With auth off there is
// no subject and everything is everyone's.

// ownerOf is the owner of what a request creates: its subject ("" without
// auth).
func ownerOf(ctx context.Context) string {
	subject, _ := auth.SubjectFrom(ctx)
	return subject
}

// visible reports whether the request may see a chat or document owned by
// owner.
func (s *Server) visible(ctx context.Context, owner string) bool {
	if s.opts.Auth == nil || auth.IsAdmin(ctx) {
		return true
	}
	subject, ok := auth.SubjectFrom(ctx)
	return ok && subject == owner
}

// visibleChat returns the chat chatID if the request may see it, else an
// error wrapping store.ErrNotFound.
func (s *Server) visibleChat(ctx context.Context, chatID string) (store.Chat, error) {
	chat, err := s.opts.Store.GetChat(ctx, chatID)
	if err == nil && !s.visible(ctx, chat.Owner) {
		return store.Chat{}, fmt.Errorf("chat %q: %w", chatID, store.ErrNotFound)
	}
	return chat, err
}

// checkRun returns an error wrapping ErrRunNotFound when auth is on and
// the request may not see run runID's chat (or the run does not exist).
// Without auth it checks nothing: the run's own handling answers unknown
// runs.
func (s *Server) checkRun(ctx context.Context, runID string) error {
	if s.opts.Auth == nil {
		return nil
	}
	run, err := s.opts.Store.GetRun(ctx, runID)
	if err == nil {
		_, err = s.visibleChat(ctx, run.ChatID)
	}
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%w: %q", ErrRunNotFound, runID)
	}
	return err
}

// visibleDocument checks that the request may see document id; an unknown
// or foreign document is an error wrapping store.ErrNotFound.
func (s *Server) visibleDocument(ctx context.Context, id string) error {
	owner, err := s.opts.Documents.owner(ctx, id)
	if err == nil && !s.visible(ctx, owner) {
		return fmt.Errorf("document %q: %w", id, store.ErrNotFound)
	}
	return err
}
