package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

// bigAnswer makes the fake model stream n content deltas of size bytes,
// more than a connection's buffers hold.
func bigAnswer(h *harness, n, size int) {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = strings.Repeat("x", size-1) + " "
	}
	h.llm.SetHandler(func(llmtest.Request) llmtest.Response { return text(parts...) })
}

// waitRunEnded waits until run runID has ended: a subscriber of its own
// reads it up to the terminal event.
func waitRunEnded(t *testing.T, h *harness, runID string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sub, err := h.runs.Subscribe(ctx, runID, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	for {
		_, done, err := sub.Next(ctx)
		switch {
		case err != nil:
			t.Fatal(err)
		case done:
			return
		}
		select {
		case <-sub.Ready():
		case <-ctx.Done():
			t.Fatal("the run does not end")
		}
	}
}

// Issue 14: a client with more than 256 unsent events was dropped and its
// stream just ended (seen at 982 of 5,006 events, without run.complete). A
// client that stops reading while a run streams 10 MB, and then reads on,
// gets every event and the terminal one.
func TestSlowClientIsNotDropped(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	bigAnswer(h, 1250, 8192)
	resp := h.query(`{"message":"Write a lot","agentKey":"plain"}`)
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	first := readFrames(t, br, func(frame) bool { return false }) // request.query
	waitRunEnded(t, h, runOfChat(t, h, first))                    // the client read nothing meanwhile
	rest := readFrames(t, br, nil)
	all := append(first, rest...)
	deltas := 0
	for i, f := range all {
		if frameSeq(f) != int64(i+1) {
			t.Fatalf("frame %d has seq %d", i, frameSeq(f))
		}
		if f.typ() == "content.delta" {
			deltas++
		}
	}
	if last := all[len(all)-1].typ(); last != "run.complete" || deltas != 1250 {
		t.Fatalf("the slow client got %d events, %d deltas, ending with %s", len(all), deltas, last)
	}
}

// A client that takes nothing for longer than sse.stallTimeoutMs is given
// up (the frame's write deadline): its connection closes without the
// terminal event, and it reattaches with Last-Event-ID for the rest.
func TestStalledClientIsCutAndReattaches(t *testing.T) {
	// The stall timeout is long enough that a client that keeps reading
	// (even under the race detector on a busy machine) is never cut.
	h := newHarness(t, harnessOptions{stall: time.Second})
	bigAnswer(h, 1250, 8192)
	resp := h.query(`{"message":"Write a lot","agentKey":"plain"}`)
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	got := readFrames(t, br, func(frame) bool { return false })
	waitRunEnded(t, h, runOfChat(t, h, got))
	select { // the client reads nothing until the server gives it up
	case <-h.closed:
	case <-time.After(time.Minute):
		t.Fatal("the server does not give up the stalled client")
	}
	got = append(got, readCut(br)...)
	if len(got) == 0 || got[len(got)-1].typ() == "run.complete" {
		t.Fatalf("the stalled client was not cut off (%d events)", len(got))
	}
	// Reattach from the last event received, as a client does: should a
	// starved test process stall for the timeout again, the server cuts
	// the reattached stream too, and the client reattaches again.
	all := got
	for try := 0; all[len(all)-1].typ() != "run.complete"; try++ {
		if try == 5 {
			t.Fatalf("five reattaches, and the stream still ends with %s", all[len(all)-1].typ())
		}
		all = append(all, reattach(t, h, runOf(t, got), frameSeq(all[len(all)-1]))...)
	}
	for i, f := range all {
		if frameSeq(f) != int64(i+1) {
			t.Fatalf("after the reattach frame %d has seq %d", i, frameSeq(f))
		}
	}
}

// reattach reads a run's stream from the event after seq (Last-Event-ID)
// until it ends or the server cuts it.
func reattach(t *testing.T, h *harness, runID string, seq int64) []frame {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, h.srv.URL+"/api/ap/run/stream?runId="+runID, nil)
	req.Header.Set("Last-Event-ID", strconv.FormatInt(seq, 10))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return readCut(bufio.NewReader(resp.Body))
}

// readCut reads whole frames until the connection breaks or the stream ends.
func readCut(br *bufio.Reader) []frame {
	var out []frame
	var cur strings.Builder
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return out
		}
		cur.WriteString(line)
		if line == "\n" {
			f := parseFrameLenient(cur.String())
			cur.Reset()
			if f.data != nil {
				out = append(out, f)
			}
		}
	}
}

// runOf returns the runId of run.start among frames.
func runOf(t *testing.T, frames []frame) string {
	t.Helper()
	for _, f := range frames {
		if f.typ() == "run.start" {
			id, _ := f.data["runId"].(string)
			return id
		}
	}
	t.Fatal("no run.start")
	return ""
}

// runOfChat is the one run of the chat of frames[0] (request.query).
func runOfChat(t *testing.T, h *harness, frames []frame) string {
	t.Helper()
	chatID, _ := frames[0].data["chatId"].(string)
	runs, err := h.st.ListRuns(context.Background(), chatID)
	if err != nil || len(runs) != 1 {
		t.Fatalf("the chat %q has runs %v (%v)", chatID, runs, err)
	}
	return runs[0].ID
}

// parseFrameLenient is parseFrame for a stream that may break: a frame
// whose data does not parse is left without data.
func parseFrameLenient(raw string) frame {
	f := frame{raw: raw}
	for _, line := range strings.Split(strings.TrimSuffix(raw, "\n"), "\n") {
		if d, ok := strings.CutPrefix(line, "data:"); ok && json.Unmarshal([]byte(d), &f.data) != nil {
			f.data = nil
		}
	}
	return f
}
