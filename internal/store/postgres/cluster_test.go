package postgres_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/store"
	"github.com/aitexteditor/aite/internal/store/postgres"
	"github.com/aitexteditor/aite/internal/store/postgres/pgtest"
)

var (
	bg = context.Background()
	t0 = time.Date(2026, 2, 12, 11, 0, 0, 0, time.UTC)
)

// twoNodes opens two stores, nodes a and b, on one new schema, both with a
// live lease.
func twoNodes(t *testing.T) (dsn string, a, b *postgres.Store) {
	t.Helper()
	dsn = pgtest.DSN(t)
	a, b = pgtest.Open(t, dsn, "a"), pgtest.Open(t, dsn, "b")
	for _, s := range []*postgres.Store{a, b} {
		lost, err := s.RenewLease(bg, time.Minute)
		require.NoError(t, err)
		require.False(t, lost, "a first lease is not lost")
	}
	return dsn, a, b
}

func chat(t *testing.T, s store.Store, id string) {
	t.Helper()
	require.NoError(t, s.CreateChat(bg, store.Chat{ID: id, Name: id, CreatedAt: t0, UpdatedAt: t0}))
}

func event(seq int64, typ string) store.Event {
	return store.Event{Seq: seq, Type: typ, Timestamp: seq,
		Body: json.RawMessage(fmt.Sprintf(`{"seq":%d,"type":%q,"timestamp":%d}`, seq, typ, seq))}
}

func TestStartRunOneRunningRunPerChat(t *testing.T) {
	_, a, b := twoNodes(t)
	chat(t, a, "c1")
	chat(t, a, "c2")
	require.NoError(t, a.StartRun(bg, store.Run{ID: "r1", ChatID: "c1", StartedAt: t0}))
	err := b.StartRun(bg, store.Run{ID: "r2", ChatID: "c1", StartedAt: t0})
	var busy *store.ChatBusyError
	require.ErrorAs(t, err, &busy, "another node starting a run in the busy chat")
	require.Equal(t, "r1", busy.RunID)
	require.ErrorIs(t, err, store.ErrConflict)
	require.NoError(t, b.StartRun(bg, store.Run{ID: "r3", ChatID: "c2", StartedAt: t0}), "other chats are free")
	chat(t, a, "c3")
	require.ErrorIs(t, b.StartRun(bg, store.Run{ID: "r3", ChatID: "c3", StartedAt: t0}), store.ErrExists)
	require.ErrorIs(t, b.StartRun(bg, store.Run{ID: "r4", ChatID: "nope", StartedAt: t0}), store.ErrNotFound)

	require.NoError(t, a.AppendEvents(bg, "r1", event(1, "run.complete")))
	require.NoError(t, a.FinishRun(bg, "r1", store.RunCompleted, "stop", "", t0))
	require.NoError(t, b.StartRun(bg, store.Run{ID: "r2", ChatID: "c1", StartedAt: t0}), "a finished run frees its chat")
}

// TestStartRunRaces starts one run per node in the same chat at once, many
// times: exactly one of each pair is stored.
func TestStartRunRaces(t *testing.T) {
	_, a, b := twoNodes(t)
	for i := range 20 {
		id := fmt.Sprintf("c%d", i)
		chat(t, a, id)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for j, s := range []*postgres.Store{a, b} {
			wg.Go(func() {
				errs[j] = s.StartRun(bg, store.Run{ID: fmt.Sprintf("%s-r%d", id, j), ChatID: id, StartedAt: t0})
			})
		}
		wg.Wait()
		require.True(t, (errs[0] == nil) != (errs[1] == nil), "chat %s: %v", id, errs)
		runs, err := a.ListRuns(bg, id)
		require.NoError(t, err)
		require.Len(t, runs, 1)
	}
}

func TestStartRunNeedsALiveLease(t *testing.T) {
	s := pgtest.Open(t, pgtest.DSN(t), "n")
	chat(t, s, "c1")
	require.ErrorIs(t, s.StartRun(bg, store.Run{ID: "r1", ChatID: "c1"}), store.ErrNotOwner, "no lease yet")
	_, err := s.RenewLease(bg, time.Millisecond)
	require.NoError(t, err)
	// While the lease lives the unknown chat is the error; then the lease.
	waitUntil(t, func() bool { return errors.Is(s.StartRun(bg, store.Run{ID: "r1", ChatID: "nope"}), store.ErrNotOwner) })
	lost, err := s.RenewLease(bg, time.Minute)
	require.NoError(t, err)
	require.True(t, lost, "the lease had expired")
	require.NoError(t, s.StartRun(bg, store.Run{ID: "r1", ChatID: "c1"}))
	_, err = s.RenewLease(bg, 0)
	require.ErrorIs(t, err, store.ErrInvalid)
}

// waitUntil polls cond until it holds, for at most 10 s (a lease expiring
// on the database server's clock).
func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 10 s")
		}
	}
}

// sixRunsOfA opens nodes a, b and c on one new schema, all with a live
// lease; a has started runs r0…r5 in chats c0…c5.
func sixRunsOfA(t *testing.T) (dsn string, a, b, c *postgres.Store) {
	t.Helper()
	dsn, a, b = twoNodes(t)
	c = pgtest.Open(t, dsn, "c")
	_, err := c.RenewLease(bg, time.Minute)
	require.NoError(t, err)
	for i := range 6 {
		chat(t, a, fmt.Sprintf("c%d", i))
		require.NoError(t, a.StartRun(bg, store.Run{ID: fmt.Sprintf("r%d", i), ChatID: fmt.Sprintf("c%d", i), StartedAt: t0}))
	}
	return dsn, a, b, c
}

// TestClaimExpiredRuns: b claims a's runs once a's lease has expired, and
// only then; a can no longer write them; c, claiming at the same time,
// never gets a run b got.
func TestClaimExpiredRuns(t *testing.T) {
	_, a, b, c := sixRunsOfA(t)
	require.NoError(t, a.AppendEvents(bg, "r0", event(1, "run.start")))
	chat(t, b, "cb")
	require.NoError(t, b.StartRun(bg, store.Run{ID: "rb", ChatID: "cb", StartedAt: t0}))

	got, err := b.ClaimExpiredRuns(bg)
	require.NoError(t, err)
	require.Empty(t, got, "a's lease is live")

	_, err = a.RenewLease(bg, time.Millisecond)
	require.NoError(t, err)
	claimed := map[string]string{} // run → the node that claimed it
	waitUntil(t, func() bool {
		var wg sync.WaitGroup
		var errB, errC error
		var gotB, gotC []store.Run
		wg.Go(func() { gotB, errB = b.ClaimExpiredRuns(bg) })
		wg.Go(func() { gotC, errC = c.ClaimExpiredRuns(bg) })
		wg.Wait()
		require.NoError(t, errB)
		require.NoError(t, errC)
		for node, got := range map[string][]store.Run{"b": gotB, "c": gotC} {
			for _, r := range got {
				require.Empty(t, claimed[r.ID], "run %s claimed twice: by %s and by %s", r.ID, claimed[r.ID], node)
				require.Equal(t, store.RunRunning, r.Status)
				claimed[r.ID] = node
			}
		}
		return len(claimed) == 6
	})
	require.Len(t, claimed, 6)
	require.NotContains(t, claimed, "rb", "b's own run stays b's")

	// The old owner is fenced off; the new one closes the run.
	owner := map[string]*postgres.Store{"b": b, "c": c}[claimed["r0"]]
	require.ErrorIs(t, a.AppendEvents(bg, "r0", event(2, "content.delta")), store.ErrNotOwner)
	require.ErrorIs(t, a.AppendEventLogs(bg, store.Event{RunID: "r0", Seq: 2, Type: "x", Body: json.RawMessage(`{}`)}), store.ErrNotOwner)
	require.ErrorIs(t, a.FinishRun(bg, "r0", store.RunCompleted, "stop", "", t0), store.ErrNotOwner)
	require.NoError(t, owner.AppendEvents(bg, "r0", event(2, "run.error")))
	require.NoError(t, owner.FinishRun(bg, "r0", store.RunError, "", "run_aborted", t0))
	events, err := b.ListEvents(bg, "r0", 0)
	require.NoError(t, err)
	require.Len(t, events, 2)

	got, err = b.ClaimExpiredRuns(bg)
	require.NoError(t, err)
	require.Empty(t, got, "claimed runs are not claimed again")
	lost, err := a.RenewLease(bg, time.Minute)
	require.NoError(t, err)
	require.True(t, lost, "a learns that its lease had expired")
}

func TestClaimNeedsALiveLease(t *testing.T) {
	dsn := pgtest.DSN(t)
	s, late := pgtest.Open(t, dsn, "s"), pgtest.Open(t, dsn, "late")
	chat(t, s, "c1")
	require.NoError(t, s.CreateRun(bg, store.Run{ID: "r1", ChatID: "c1"})) // s never took a lease
	got, err := late.ClaimExpiredRuns(bg)
	require.NoError(t, err)
	require.Empty(t, got, "a node without a lease claims nothing")
	_, err = late.RenewLease(bg, time.Minute)
	require.NoError(t, err)
	got, err = late.ClaimExpiredRuns(bg)
	require.NoError(t, err)
	require.Len(t, got, 1, "a run whose node never had a lease is claimed at once")
}

// listen collects the notes of s until the test ends.
type listener struct {
	mu    sync.Mutex
	notes []store.Note
	ready chan struct{}
	once  sync.Once
}

func listen(t *testing.T, s *postgres.Store) *listener {
	t.Helper()
	l := &listener{ready: make(chan struct{})}
	ctx, cancel := context.WithCancel(bg)
	done := make(chan error, 1)
	go func() {
		done <- s.Listen(ctx, func(n store.Note) {
			l.mu.Lock()
			l.notes = append(l.notes, n)
			l.mu.Unlock()
			l.once.Do(func() { close(l.ready) })
		})
	}()
	t.Cleanup(func() {
		cancel()
		require.ErrorIs(t, <-done, context.Canceled)
	})
	select {
	case <-l.ready:
	case <-time.After(10 * time.Second):
		t.Fatal("Listen did not start")
	}
	return l
}

// wait returns the notes once cond holds for them.
func (l *listener) wait(t *testing.T, cond func([]store.Note) bool) []store.Note {
	t.Helper()
	var out []store.Note
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		l.mu.Lock()
		out = append([]store.Note(nil), l.notes...)
		l.mu.Unlock()
		if cond(out) {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("notes after 10 s: %+v", out)
		}
	}
}

func has(n store.Note) func([]store.Note) bool {
	return func(notes []store.Note) bool {
		for _, m := range notes {
			if reflect.DeepEqual(m, n) {
				return true
			}
		}
		return false
	}
}

// TestFeed: every committed append is announced to every node with each
// run's last seq; a refused append announces nothing; Announce reaches
// every node; a lost connection is followed by a zero note.
func TestFeed(t *testing.T) {
	dsn, a, b := twoNodes(t)
	la, lb := listen(t, a), listen(t, b)
	require.Equal(t, []store.Note{{}}, la.wait(t, func(n []store.Note) bool { return len(n) == 1 }), "listening starts with a zero note")

	chat(t, a, "c1")
	for _, id := range []string{"r1", "r2", "r 3"} {
		require.NoError(t, a.CreateRun(bg, store.Run{ID: id, ChatID: "c1"}))
	}
	require.NoError(t, a.AppendEvents(bg, "r1", event(1, "x"), event(2, "x")))
	require.ErrorIs(t, a.AppendEvents(bg, "r1", event(2, "x")), store.ErrConflict)
	require.NoError(t, a.AppendEventLogs(bg, store.Event{RunID: "r2", Seq: 1, Type: "x", Body: json.RawMessage(`{}`)},
		store.Event{RunID: "r 3", Seq: 7, Type: "x", Body: json.RawMessage(`{}`)},
		store.Event{RunID: "r2", Seq: 2, Type: "x", Body: json.RawMessage(`{}`)}))
	require.NoError(t, b.Announce(bg, store.Note{RunID: "r1", Seq: 2, Ended: true}))
	require.ErrorIs(t, b.Announce(bg, store.Note{RunID: "r1", Body: make([]byte, store.MaxNoteBody+1)}), store.ErrInvalid)
	want := []store.Note{{}, {RunID: "r1", Seq: 2}, {RunID: "r2", Seq: 2}, {RunID: "r 3", Seq: 7}, {RunID: "r1", Seq: 2, Ended: true}}
	for _, l := range []*listener{la, lb} {
		got := l.wait(t, func(n []store.Note) bool { return len(n) >= len(want) })
		require.Equal(t, want, got)
	}

	// Cut b's listening connection: b listens again and says so.
	conn, err := pgx.Connect(bg, dsn)
	require.NoError(t, err)
	defer conn.Close(bg)
	_, err = conn.Exec(bg, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE pid <> pg_backend_pid() AND query = 'LISTEN "aite_runs_'||current_schema()||'"'`)
	require.NoError(t, err)
	lb.wait(t, func(n []store.Note) bool { return len(n) > len(want) && reflect.DeepEqual(n[len(want)], store.Note{}) })
	require.NoError(t, a.AppendEvents(bg, "r1", event(3, "x")))
	lb.wait(t, has(store.Note{RunID: "r1", Seq: 3}))
}

// TestFeedSplitsLongNoteLists: a group commit of many runs is announced in
// several notifications, none lost.
func TestFeedSplitsLongNoteLists(t *testing.T) {
	_, a, _ := twoNodes(t)
	l := listen(t, a)
	chat(t, a, "c1")
	var group []store.Event
	for i := range 600 {
		id := fmt.Sprintf("run-with-a-long-id-%04d", i)
		require.NoError(t, a.CreateRun(bg, store.Run{ID: id, ChatID: "c1"}))
		group = append(group, store.Event{RunID: id, Seq: 1, Type: "x", Body: json.RawMessage(`{}`)})
	}
	require.NoError(t, a.AppendEventLogs(bg, group...))
	got := l.wait(t, func(n []store.Note) bool { return len(n) >= 601 })
	require.Len(t, got, 601)
}

// TestDocumentLocks: the lock of a document is held by one node at a time,
// the revision is read under it, and releasing it lets the next one in.
func TestDocumentLocks(t *testing.T) {
	_, a, b := twoNodes(t)
	_, err := a.CreateDocument(bg, store.Document{ID: "d1", Markdown: "# A\n", ItemCount: 1})
	require.NoError(t, err)
	_, _, err = a.LockDocument(bg, "nope")
	require.ErrorIs(t, err, store.ErrNotFound)

	rev, unlockA, err := a.LockDocument(bg, "d1")
	require.NoError(t, err)
	require.Zero(t, rev)
	got := make(chan int, 1)
	go func() {
		rev, unlock, err := b.LockDocument(bg, "d1")
		if err != nil {
			t.Error(err)
			got <- -1
			return
		}
		got <- rev
		unlock()
	}()
	// While a holds the lock, b waits: a edits, then releases.
	ctx, cancel := context.WithTimeout(bg, 50*time.Millisecond)
	_, _, err = b.LockDocument(ctx, "d1")
	cancel()
	require.ErrorIs(t, err, context.DeadlineExceeded, "the lock is held by a")
	_, err = a.ApplyDocumentEdit(bg, "d1", store.DocumentContent{Markdown: "# B\n", ItemCount: 1},
		store.DocumentEdit{Revision: 1, Op: "replace", At: t0})
	require.NoError(t, err)
	select {
	case r := <-got:
		t.Fatalf("b got the lock (revision %d) while a held it", r)
	default:
	}
	unlockA()
	unlockA() // a second call does nothing
	require.Equal(t, 1, <-got, "b reads the revision a wrote")

	// Locks of other documents are independent.
	_, err = b.CreateDocument(bg, store.Document{ID: "d2", Markdown: "x", ItemCount: 1})
	require.NoError(t, err)
	_, u1, err := a.LockDocument(bg, "d1")
	require.NoError(t, err)
	_, u2, err := b.LockDocument(bg, "d2")
	require.NoError(t, err)
	u2()
	u1()
}

// TestDocumentLockDiesWithTheNode: closing a node's store (its connections
// end, as when the process dies) releases its locks.
func TestDocumentLockDiesWithTheNode(t *testing.T) {
	dsn, a, _ := twoNodes(t)
	_, err := a.CreateDocument(bg, store.Document{ID: "d1", Markdown: "x", ItemCount: 1})
	require.NoError(t, err)
	dying := pgtest.Open(t, dsn, "dying")
	_, _, err = dying.LockDocument(bg, "d1")
	require.NoError(t, err)
	require.NoError(t, dying.Close())
	ctx, cancel := context.WithTimeout(bg, 10*time.Second)
	defer cancel()
	_, unlock, err := a.LockDocument(ctx, "d1")
	require.NoError(t, err)
	unlock()
}

// TestConcurrentEditsAcrossNodes: 40 edits from two nodes on one document,
// each under the lock and each written as the revision after the one read
// under the lock, are all applied in one contiguous history.
func TestConcurrentEditsAcrossNodes(t *testing.T) {
	_, a, b := twoNodes(t)
	_, err := a.CreateDocument(bg, store.Document{ID: "d1", Markdown: "", ItemCount: 0})
	require.NoError(t, err)
	var wg sync.WaitGroup
	for i := range 40 {
		s := []*postgres.Store{a, b}[i%2]
		wg.Go(func() {
			rev, unlock, err := s.LockDocument(bg, "d1")
			if err != nil {
				t.Error(err)
				return
			}
			defer unlock()
			doc, err := s.GetDocument(bg, "d1")
			if err != nil {
				t.Error(err)
				return
			}
			_, err = s.ApplyDocumentEdit(bg, "d1", store.DocumentContent{Markdown: doc.Markdown + fmt.Sprintf("<%d>", i)},
				store.DocumentEdit{Revision: rev + 1, Op: "insert_after", At: t0})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	doc, err := a.GetDocument(bg, "d1")
	require.NoError(t, err)
	require.Equal(t, 40, doc.Revision)
	for i := range 40 {
		require.Contains(t, doc.Markdown, fmt.Sprintf("<%d>", i), "no edit lost")
	}
	edits, err := b.ListDocumentEdits(bg, "d1", 0)
	require.NoError(t, err)
	for i, e := range edits {
		require.Equal(t, i+1, e.Revision)
	}
}

// TestEditsWithoutTheLockConflict: the revision check holds across nodes
// without the lock too: of two edits claiming one revision, one fails.
func TestEditsWithoutTheLockConflict(t *testing.T) {
	_, a, b := twoNodes(t)
	_, err := a.CreateDocument(bg, store.Document{ID: "d1", Markdown: "x", ItemCount: 1})
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, s := range []*postgres.Store{a, b} {
		wg.Go(func() {
			_, errs[i] = s.ApplyDocumentEdit(bg, "d1", store.DocumentContent{Markdown: fmt.Sprint(i), ItemCount: 1},
				store.DocumentEdit{Revision: 1, Op: "replace", At: t0})
		})
	}
	wg.Wait()
	require.True(t, (errs[0] == nil) != (errs[1] == nil), "%v", errs)
	require.ErrorIs(t, errors.Join(errs...), store.ErrConflict)
}

func TestListEventsAfter(t *testing.T) {
	_, a, b := twoNodes(t)
	chat(t, a, "c1")
	for _, id := range []string{"r1", "r2", "r3"} {
		require.NoError(t, a.CreateRun(bg, store.Run{ID: id, ChatID: "c1"}))
		require.NoError(t, a.AppendEvents(bg, id, event(1, "x"), event(2, "x"), event(3, "x")))
	}
	got, err := b.ListEventsAfter(bg, map[string]int64{"r3": 1, "r1": 2, "nope": 0, "r2": 3})
	require.NoError(t, err)
	var keys []string
	for _, e := range got {
		keys = append(keys, fmt.Sprintf("%s/%d", e.RunID, e.Seq))
	}
	require.Equal(t, []string{"r1/3", "r3/2", "r3/3"}, keys)
	require.Equal(t, string(event(3, "x").Body), string(got[0].Body))
	got, err = b.ListEventsAfter(bg, nil)
	require.NoError(t, err)
	require.Empty(t, got)
}

// TestClaimAfterAConcurrentClaim makes the race of two claims happen every
// time: c's claim takes its snapshot, locks and updates its first run and
// then waits (a test-only trigger on runs waits on an advisory lock the
// test holds); b claims the other runs and commits; then c goes on and
// reaches runs that b owns now, that c's snapshot still shows as a's.
// READ COMMITTED re-checks such a row against its newest version, and c
// must leave it to b.
func TestClaimAfterAConcurrentClaim(t *testing.T) {
	dsn, a, b, c := sixRunsOfA(t)
	admin, err := pgx.Connect(bg, dsn)
	require.NoError(t, err)
	t.Cleanup(func() { _ = admin.Close(bg) })
	// Key (7301, 22) is this test's own: the two-key advisory locks never
	// meet the one-key locks of the store's logs.
	_, err = admin.Exec(bg, `CREATE FUNCTION hold_claims_by_c() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF NEW.node_id = 'c' AND OLD.node_id <> 'c' THEN PERFORM pg_advisory_xact_lock(7301, 22); END IF;
			RETURN NEW;
		END $$`)
	require.NoError(t, err)
	_, err = admin.Exec(bg, `CREATE TRIGGER hold_claims_by_c BEFORE UPDATE ON runs
		FOR EACH ROW EXECUTE FUNCTION hold_claims_by_c()`)
	require.NoError(t, err)
	_, err = admin.Exec(bg, `SELECT pg_advisory_lock(7301, 22)`)
	require.NoError(t, err)
	held := true
	release := func() {
		if held {
			_, err := admin.Exec(bg, `SELECT pg_advisory_unlock(7301, 22)`)
			require.NoError(t, err)
			held = false
		}
	}
	defer release()

	_, err = a.RenewLease(bg, time.Millisecond)
	require.NoError(t, err)
	waitUntil(t, func() bool {
		var expired bool
		require.NoError(t, admin.QueryRow(bg, `SELECT lease_until < now() FROM nodes WHERE node_id = 'a'`).Scan(&expired))
		return expired
	})

	var gotC []store.Run
	var errC error
	done := make(chan struct{})
	go func() {
		defer close(done)
		gotC, errC = c.ClaimExpiredRuns(bg)
	}()
	waitUntil(t, func() bool { // c has claimed its first run and waits in the trigger
		var waiting bool
		require.NoError(t, admin.QueryRow(bg, `SELECT EXISTS (SELECT 1 FROM pg_locks
			WHERE locktype = 'advisory' AND classid = 7301 AND objid = 22 AND NOT granted)`).Scan(&waiting))
		return waiting
	})
	gotB, err := b.ClaimExpiredRuns(bg)
	require.NoError(t, err)
	require.NotEmpty(t, gotB, "c's claim locked every run before its first update: this plan cannot show the race")
	release()
	<-done
	require.NoError(t, errC)
	require.NotEmpty(t, gotC)

	owners := map[string]string{}
	for _, r := range gotB {
		owners[r.ID] = "b"
	}
	for _, r := range gotC {
		require.Empty(t, owners[r.ID], "run %s claimed by both b and c (b got %v, c got %v)", r.ID, ids(gotB), ids(gotC))
		owners[r.ID] = "c"
	}
	require.Len(t, owners, 6)
	rows, err := admin.Query(bg, `SELECT run_id, node_id FROM runs`)
	require.NoError(t, err)
	stored, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) ([2]string, error) {
		var p [2]string
		return p, r.Scan(&p[0], &p[1])
	})
	require.NoError(t, err)
	for _, p := range stored {
		require.Equal(t, owners[p[0]], p[1], "the owner of run %s", p[0])
	}
}

// ids returns the ids of runs, in order.
func ids(runs []store.Run) []string {
	out := make([]string, len(runs))
	for i, r := range runs {
		out[i] = r.ID
	}
	return out
}
