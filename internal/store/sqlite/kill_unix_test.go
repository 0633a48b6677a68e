//go:build unix

package sqlite_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/store"
	"github.com/aitexteditor/aite/internal/store/sqlite"
)

// killChildEnv switches the test binary into the writer child of TestKillKeepsCommittedBatches;
// its value is "<sync mode>|<database path>".
const killChildEnv = "AITE_STORE_KILL_CHILD"

const killBatch = 20

// TestKillKeepsCommittedBatches runs a child process that appends event batches in a loop,
// SIGKILLs it at a random moment and checks what a restarted server finds: the chat, its run
// still marked running, and events forming a gap-free prefix 1..N of whole batches that
// contains every batch the child reported as committed.
func TestKillKeepsCommittedBatches(t *testing.T) {
	if v := os.Getenv(killChildEnv); v != "" {
		mode, path, _ := strings.Cut(v, "|")
		killChild(path, sqlite.Synchronous(mode))
		return
	}
	for _, mode := range []sqlite.Synchronous{sqlite.SyncFull, sqlite.SyncNormal} {
		t.Run(string(mode), func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "aite.db")
			acked := runAndKill(t, path, mode)
			checkAfterKill(t, path, acked)
		})
	}
}

// runAndKill starts the child, kills it 50–300 ms after it is ready and returns the last seq
// it acknowledged.
func runAndKill(t *testing.T, path string, mode sqlite.Synchronous) int64 {
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillKeepsCommittedBatches$", "-test.count=1")
	cmd.Env = append(os.Environ(), killChildEnv+"="+string(mode)+"|"+path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	var acked atomic.Int64
	ready := make(chan struct{})
	eof := make(chan struct{})
	go func() {
		defer close(eof)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			if line == "ready" {
				close(ready)
			} else if n, ok := strings.CutPrefix(line, "ack "); ok {
				v, _ := strconv.ParseInt(n, 10, 64)
				acked.Store(v)
			}
		}
	}()
	select {
	case <-ready:
	case <-eof:
		_ = cmd.Wait() // stderr is complete (and no longer written) once Wait returns
		t.Fatalf("the child ended before it was ready: %s", stderr.String())
	case <-time.After(60 * time.Second): // a loaded CI machine starts race-built children slowly
		_ = cmd.Process.Kill()
		<-eof
		_ = cmd.Wait()
		t.Fatalf("the child did not get ready: %s", stderr.String())
	}
	time.Sleep(50*time.Millisecond + rand.N(250*time.Millisecond))
	require.NoError(t, cmd.Process.Kill())
	<-eof
	err = cmd.Wait()
	require.Error(t, err, "the child must have been killed, not have finished")
	require.Contains(t, err.Error(), "killed", stderr.String())
	return acked.Load()
}

func checkAfterKill(t *testing.T, path string, acked int64) {
	s, err := sqlite.Open(path)
	require.NoError(t, err)
	defer s.Close()
	chats, err := s.ListChats(bg)
	require.NoError(t, err)
	require.Len(t, chats, 1)
	running, err := s.RunningRuns(bg)
	require.NoError(t, err)
	require.Len(t, running, 1, "the interrupted run is still marked running")
	events, err := s.ListEvents(bg, "r1", 0)
	require.NoError(t, err)
	n := int64(len(events))
	t.Logf("killed after %d acknowledged events; %d stored", acked, n)
	require.Positive(t, acked, "the child committed nothing before the kill; the test proves nothing")
	require.GreaterOrEqual(t, n, acked, "an acknowledged batch was lost")
	require.Zero(t, n%killBatch, "a torn batch: %d events", n)
	for i, e := range events {
		require.Equal(t, int64(i+1), e.Seq, "the events are not a gap-free prefix")
		require.Equal(t, string(killEvent(e.Seq).Body), string(e.Body))
	}

	// What a restarted server does: store run.error run_aborted and close the run.
	abort := store.Event{Seq: n + 1, Type: "run.error", Timestamp: time.Now().UnixMilli(),
		Body: json.RawMessage(`{"seq":` + strconv.FormatInt(n+1, 10) + `,"type":"run.error","error":{"code":"run_aborted","retriable":true}}`)}
	require.NoError(t, s.AppendEvents(bg, "r1", abort))
	require.NoError(t, s.FinishRun(bg, "r1", store.RunError, "", "run_aborted", time.Now()))
	running, err = s.RunningRuns(bg)
	require.NoError(t, err)
	require.Empty(t, running)
}

// killChild is the child process: it appends batches until it is killed (or 10 s pass) and
// prints "ack <last seq>" after every commit.
func killChild(path string, mode sqlite.Synchronous) {
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	s, err := sqlite.Open(path, sqlite.WithSynchronous(mode))
	if err != nil {
		fail(err)
	}
	if err := s.CreateChat(bg, store.Chat{ID: "c1", CreatedAt: time.Now(), UpdatedAt: time.Now()}); err != nil {
		fail(err)
	}
	if err := s.CreateRun(bg, store.Run{ID: "r1", ChatID: "c1", StartedAt: time.Now()}); err != nil {
		fail(err)
	}
	fmt.Println("ready")
	deadline := time.Now().Add(10 * time.Second)
	batch := make([]store.Event, killBatch)
	for seq := int64(1); time.Now().Before(deadline); {
		for i := range batch {
			batch[i] = killEvent(seq)
			seq++
		}
		if err := s.AppendEvents(bg, "r1", batch...); err != nil {
			fail(err)
		}
		fmt.Printf("ack %d\n", seq-1)
	}
	os.Exit(3)
}
