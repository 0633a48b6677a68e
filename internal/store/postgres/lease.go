package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/aitexteditor/aite/internal/store"
)

// RenewLease implements store.Leases: the node's row in nodes gets
// lease_until = now() + ttl by the database server's clock.
func (s *Store) RenewLease(ctx context.Context, ttl time.Duration) (lost bool, err error) {
	if ttl <= 0 {
		return false, fmt.Errorf("%w: lease of %v", store.ErrInvalid, ttl)
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	err = s.write(ctx, func(tx pgx.Tx) error {
		var expired bool
		err := tx.QueryRow(ctx, `SELECT lease_until < now() FROM nodes WHERE node_id = $1 FOR UPDATE`, s.node).Scan(&expired)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		lost = expired
		_, err = tx.Exec(ctx, `INSERT INTO nodes (node_id, started_at, lease_until)
			VALUES ($1, now(), now() + $2 * interval '1 millisecond')
			ON CONFLICT (node_id) DO UPDATE SET lease_until = excluded.lease_until`, s.node, ttl.Milliseconds())
		return err
	})
	if err != nil {
		return false, failed(ctx, err, "renewing the lease of node %q", s.node)
	}
	return lost, nil
}

// StartRun implements store.Leases: under a lock of the chat's row, so two
// nodes starting a run in one chat at once store one of them.
func (s *Store) StartRun(ctx context.Context, r store.Run) error {
	if err := store.ValidateNewRun(r); err != nil {
		return err
	}
	return s.write(ctx, func(tx pgx.Tx) error {
		var live bool
		err := tx.QueryRow(ctx, `SELECT lease_until > now() FROM nodes WHERE node_id = $1`, s.node).Scan(&live)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return failed(ctx, err, "reading the lease of node %q", s.node)
		}
		if !live {
			return fmt.Errorf("node %q has no live lease (renew it first): %w", s.node, store.ErrNotOwner)
		}
		var one int
		err = tx.QueryRow(ctx, `SELECT 1 FROM chats WHERE chat_id = $1 FOR NO KEY UPDATE`, r.ChatID).Scan(&one)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("chat %q: %w", r.ChatID, store.ErrNotFound)
		} else if err != nil {
			return failed(ctx, err, "locking chat %q", r.ChatID)
		}
		var running string
		err = tx.QueryRow(ctx, `SELECT run_id FROM runs WHERE chat_id = $1 AND status = 'running' ORDER BY run_id LIMIT 1`,
			r.ChatID).Scan(&running)
		switch {
		case err == nil:
			return &store.ChatBusyError{ChatID: r.ChatID, RunID: running}
		case !errors.Is(err, pgx.ErrNoRows):
			return failed(ctx, err, "running runs of chat %q", r.ChatID)
		}
		return s.insertRun(ctx, tx, r)
	})
}

// ClaimExpiredRuns implements store.Leases. The runs are picked with FOR
// UPDATE SKIP LOCKED: a run another claim, or its owner finishing it, has
// locked is left for the next claim. A node without a live lease of its own
// claims nothing. Rows of nodes whose lease ended a day ago and that own no
// running run are removed on the way.
//
// A run is claimed only while its owner is still the node the statement's
// snapshot saw with an expired lease: the candidates (expired) are read
// first, with their owners, and the lock compares the run's owner with
// that one. Under READ COMMITTED a row another claim updated and committed
// after this statement's snapshot is re-checked in its newest version, but
// joined with the rows of the other tables as first found (the old nodes
// row, or none); a lease test in the join alone let such a run, now owned
// by a live node, pass again and be claimed twice. A NOT EXISTS on nodes
// fails the same way (the planner makes it an anti-join, re-checked with
// no nodes row). The row's own node_id compared with the owner read from
// the snapshot drops it (TestClaimAfterAConcurrentClaim).
func (s *Store) ClaimExpiredRuns(ctx context.Context) ([]store.Run, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cols := "r." + strings.ReplaceAll(strings.Join(strings.Fields(runColumns), " "), ", ", ", r.")
	rows, err := s.pool.Query(ctx, `WITH expired AS MATERIALIZED (
			SELECT c.run_id, c.node_id FROM runs c LEFT JOIN nodes n ON n.node_id = c.node_id
			WHERE c.status = 'running' AND c.node_id <> $1 AND (n.node_id IS NULL OR n.lease_until < now())
				AND EXISTS (SELECT 1 FROM nodes me WHERE me.node_id = $1 AND me.lease_until > now()))
		UPDATE runs r SET node_id = $1
		FROM (SELECT c.run_id FROM runs c JOIN expired e ON e.run_id = c.run_id
			WHERE c.status = 'running' AND c.node_id = e.node_id
			ORDER BY c.run_id FOR UPDATE OF c SKIP LOCKED) claimed
		WHERE r.run_id = claimed.run_id
		RETURNING `+cols, s.node)
	out, err := collect(rows, err, func(r pgx.Rows) (store.Run, error) { return scanRun(r) })
	if err != nil {
		return nil, failed(ctx, err, "claiming the runs of expired nodes")
	}
	slices.SortFunc(out, func(a, b store.Run) int { return strings.Compare(a.ID, b.ID) })
	_, err = s.pool.Exec(ctx, `DELETE FROM nodes n WHERE n.lease_until < now() - interval '1 day'
		AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.node_id = n.node_id AND r.status = 'running')`)
	if err != nil {
		return out, failed(ctx, err, "removing the rows of nodes long gone")
	}
	return out, nil
}
