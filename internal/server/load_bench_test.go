package server_test

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

// BenchmarkLoad200 is the load benchmark of issue #7: 200 concurrent runs
// stream through the whole server (handlers, run manager with SQLite
// persistence, engine, the real OpenAI adapter) from a fake model that
// emits loadDeltas content deltas, loadGap apart, each carrying the time it
// was written. Clients read the SSE streams incrementally and measure, per
// delta, the delay from the fake model writing it to the client reading it.
// The same fake model is also read straight by 200 concurrent clients in the
// same run: the baseline. Reported: events/s through the server, p50/p99
// delay through the server and straight, their ratios, errors and the peak
// heap in use.
//
//	go test -run '^$' -bench Load200 -benchtime 1x ./internal/server/
func BenchmarkLoad200(b *testing.B) {
	const (
		runs       = 200
		loadDeltas = 40
		loadGap    = 5 * time.Millisecond
	)
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		rc := http.NewResponseController(w)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_ = rc.Flush()
		// A random phase per stream, so the 200 streams do not tick in
		// lockstep in one phase and spread out in the other.
		time.Sleep(rand.N(loadGap))
		for i := range loadDeltas {
			time.Sleep(loadGap)
			chunk := llmtest.ContentChunk(fmt.Sprintf("<%d:%d>", i, time.Now().UnixNano()))
			if _, err := io.WriteString(w, "data: "+chunk+"\n\n"); err != nil {
				return
			}
			_ = rc.Flush()
		}
		_, _ = io.WriteString(w, "data: "+llmtest.FinishChunk("stop")+"\n\ndata: [DONE]\n\n")
		_ = rc.Flush()
	}))
	defer fake.Close()
	fakeURL := fake.URL
	h := newHarness(b, harnessOptions{modelURL: fakeURL})

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: runs}}
	var serverDelays, directDelays []time.Duration
	var events, errs atomic.Int64
	var peak atomic.Uint64
	stop := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
			runtime.ReadMemStats(&ms)
			for {
				old := peak.Load()
				if ms.HeapInuse <= old || peak.CompareAndSwap(old, ms.HeapInuse) {
					break
				}
			}
		}
	}()
	var elapsed time.Duration
	b.ResetTimer()
	for range b.N {
		// Baseline: the fake model read straight.
		directDelays = append(directDelays, fanOut(runs, func() ([]time.Duration, int, error) {
			resp, err := client.Post(fakeURL+"/v1/chat/completions", "application/json", strings.NewReader(`{}`))
			if err != nil {
				return nil, 0, err
			}
			defer resp.Body.Close()
			return readDelays(resp.Body, "data: ")
		}, &errs, nil)...)
		// Through the server.
		start := time.Now()
		serverDelays = append(serverDelays, fanOut(runs, func() ([]time.Duration, int, error) {
			resp, err := client.Post(h.srv.URL+"/api/ap/query", "application/json", strings.NewReader(`{"message":"Go","agentKey":"plain"}`))
			if err != nil {
				return nil, 0, err
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return nil, 0, fmt.Errorf("status %d", resp.StatusCode)
			}
			return readDelays(resp.Body, "data:")
		}, &errs, &events)...)
		elapsed += time.Since(start)
	}
	b.StopTimer()
	close(stop)
	if want := b.N * runs * loadDeltas; len(serverDelays) != want || len(directDelays) != want {
		b.Errorf("deltas received: %d through the server, %d straight, want %d each", len(serverDelays), len(directDelays), want)
	}
	sp50, sp99 := percentile(serverDelays, 50), percentile(serverDelays, 99)
	dp50, dp99 := percentile(directDelays, 50), percentile(directDelays, 99)
	b.ReportMetric(float64(events.Load())/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(sp50.Microseconds()), "p50-µs")
	b.ReportMetric(float64(sp99.Microseconds()), "p99-µs")
	b.ReportMetric(float64(dp50.Microseconds()), "direct-p50-µs")
	b.ReportMetric(float64(dp99.Microseconds()), "direct-p99-µs")
	b.ReportMetric(ratio(sp50, dp50), "p50-ratio")
	b.ReportMetric(ratio(sp99, dp99), "p99-ratio")
	b.ReportMetric(float64(errs.Load()), "errors")
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MB")
}

func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// fanOut runs f n times concurrently and collects the delays; errors and
// SSE events are counted.
func fanOut(n int, f func() ([]time.Duration, int, error), errs, events *atomic.Int64) []time.Duration {
	var mu sync.Mutex
	var all []time.Duration
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			d, ev, err := f()
			if err != nil {
				errs.Add(1)
			}
			if events != nil {
				events.Add(int64(ev))
			}
			mu.Lock()
			all = append(all, d...)
			mu.Unlock()
		})
	}
	wg.Wait()
	return all
}

// readDelays reads SSE lines, counts the data lines and returns the delay
// of every delta stamp "<i:unixnano>" found in them. A run.error counts as
// an error.
func readDelays(body io.Reader, prefix string) ([]time.Duration, int, error) {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var out []time.Duration
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		now := time.Now().UnixNano()
		n++
		if strings.Contains(line, `"type":"run.error"`) {
			return out, n, fmt.Errorf("run.error: %s", line)
		}
		if i := strings.Index(line, "<"); i >= 0 {
			if j := strings.Index(line[i:], ">"); j > 0 {
				if _, ts, ok := strings.Cut(line[i+1:i+j], ":"); ok {
					if v, err := strconv.ParseInt(ts, 10, 64); err == nil {
						out = append(out, time.Duration(now-v))
					}
				}
			}
		}
	}
	return out, n, sc.Err()
}

func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}
