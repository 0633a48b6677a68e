package server_test

import (
	"bufio"
	"context"
	"encoding/json"
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

	"github.com/aitexteditor/aite/internal/jsontext"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
	"github.com/aitexteditor/aite/internal/store/postgres/pgtest"
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
// heap in use; and, beside the ratios, the concurrency each phase achieved
// at the fake model (its streams in flight, the mean over the phase and the
// peak), so the ratios compare the server and the baseline at the same
// concurrency (issue 21).
//
// The delays depend on how busy the machine is; two figures do not (much):
// server-cpu-µs/event, the process's CPU time (getrusage) over the phase
// through the server minus that over the straight phase (the fake model
// and the clients, direct-cpu-µs/delta), per SSE event sent; and the p99
// split in time: p99-startup-µs over the deltas the fake model wrote
// before the last of the phase's 200 streams had begun (the runs still
// being started; startup-ms long), p99-steady-µs over the rest (likewise
// direct-…).
//
// Between the two, the floor (issue 21, fourth pass): the same 200 clients
// read the same fake model through floorRelay, the thinnest server that
// does the server's unavoidable work (the adapter opening the model's
// stream, one SSE event written and flushed per delta) and nothing else.
// floor-p99-ratio, its p99 over the straight read's, is what no server can
// beat on this machine under this load; floor-cpu-µs/event is its CPU per
// event measured as server-cpu-µs/event is, and floor-events/s its rate.
//
//	go test -run '^$' -bench Load200 -benchtime 1x ./internal/server/
func BenchmarkLoad200(b *testing.B) {
	fakeURL, gauge := loadModelGauged(b)
	h := newHarness(b, harnessOptions{modelURL: fakeURL})
	client := loadClient()
	peak := watchHeap()
	relay := floorRelay(b, fakeURL)
	var serverDelays, directDelays, floorDelays []sample
	// The start-up's (before every stream had begun) and the rest.
	var serverStartup, serverSteady, directStartup, directSteady []sample
	var events, floorEvents, errs atomic.Int64
	var elapsed, floorElapsed, directCPU, throughCPU, floorCPU, directRamp, serverRamp time.Duration
	var direct, through, floor concurrency
	b.ResetTimer()
	for range b.N {
		runtime.GC()
		gauge.reset()
		begin, cpu := time.Now(), processCPU()
		ds := loadDirect(client, fakeURL, &errs)
		directCPU += processCPU() - cpu
		direct.add(gauge.read())
		all := allStarted(b, gauge, "straight", &errs)
		n := startup(ds, all)
		directStartup, directSteady = append(directStartup, ds[:n]...), append(directSteady, ds[n:]...)
		directRamp += all.Sub(begin)
		directDelays = append(directDelays, ds...)
		runtime.GC()
		gauge.reset()
		begin, cpu = time.Now(), processCPU()
		floorDelays = append(floorDelays, loadThrough(client, queryOn(client, relay), &errs, &floorEvents)...)
		floorCPU += processCPU() - cpu
		floorElapsed += time.Since(begin)
		floor.add(gauge.read())
		allStarted(b, gauge, "through the floor relay", &errs)
		runtime.GC()
		gauge.reset()
		start, cpu := time.Now(), processCPU()
		ss := loadThrough(client, queryOn(client, h.srv.URL), &errs, &events)
		throughCPU += processCPU() - cpu
		elapsed += time.Since(start)
		through.add(gauge.read())
		all = allStarted(b, gauge, "through the server", &errs)
		n = startup(ss, all)
		serverStartup, serverSteady = append(serverStartup, ss[:n]...), append(serverSteady, ss[n:]...)
		serverRamp += all.Sub(start)
		serverDelays = append(serverDelays, ss...)
	}
	b.StopTimer()
	heap := peak()
	if want := b.N * loadRuns * loadDeltas; len(serverDelays) != want || len(directDelays) != want || len(floorDelays) != want {
		b.Errorf("deltas received: %d through the server, %d straight, %d through the floor relay, want %d each",
			len(serverDelays), len(directDelays), len(floorDelays), want)
	}
	sp50, sp99 := percentile(serverDelays, 50), percentile(serverDelays, 99)
	dp50, dp99 := percentile(directDelays, 50), percentile(directDelays, 99)
	fp50, fp99 := percentile(floorDelays, 50), percentile(floorDelays, 99)
	b.ReportMetric(float64(events.Load())/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(sp50.Microseconds()), "p50-µs")
	b.ReportMetric(float64(sp99.Microseconds()), "p99-µs")
	b.ReportMetric(float64(dp50.Microseconds()), "direct-p50-µs")
	b.ReportMetric(float64(dp99.Microseconds()), "direct-p99-µs")
	b.ReportMetric(ratio(sp50, dp50), "p50-ratio")
	b.ReportMetric(ratio(sp99, dp99), "p99-ratio")
	b.ReportMetric(float64(percentile(serverStartup, 99).Microseconds()), "p99-startup-µs")
	b.ReportMetric(float64(percentile(serverSteady, 99).Microseconds()), "p99-steady-µs")
	b.ReportMetric(float64(percentile(directStartup, 99).Microseconds()), "direct-p99-startup-µs")
	b.ReportMetric(float64(percentile(directSteady, 99).Microseconds()), "direct-p99-steady-µs")
	b.ReportMetric(float64(serverRamp.Milliseconds())/float64(b.N), "startup-ms")
	b.ReportMetric(float64(directRamp.Milliseconds())/float64(b.N), "direct-startup-ms")
	if n := events.Load(); n > 0 {
		b.ReportMetric(float64((throughCPU-directCPU).Microseconds())/float64(n), "server-cpu-µs/event")
	}
	b.ReportMetric(float64(directCPU.Microseconds())/float64(b.N*loadRuns*loadDeltas), "direct-cpu-µs/delta")
	b.ReportMetric(float64(fp50.Microseconds()), "floor-p50-µs")
	b.ReportMetric(float64(fp99.Microseconds()), "floor-p99-µs")
	b.ReportMetric(ratio(fp99, dp99), "floor-p99-ratio")
	b.ReportMetric(float64(floorEvents.Load())/floorElapsed.Seconds(), "floor-events/s")
	if n := floorEvents.Load(); n > 0 {
		b.ReportMetric(float64((floorCPU-directCPU).Microseconds())/float64(n), "floor-cpu-µs/event")
	}
	b.ReportMetric(floor.mean/float64(b.N), "floor-concurrency")
	b.ReportMetric(direct.mean/float64(b.N), "direct-concurrency")
	b.ReportMetric(through.mean/float64(b.N), "server-concurrency")
	b.ReportMetric(direct.peak, "direct-peak-concurrency")
	b.ReportMetric(through.peak, "server-peak-concurrency")
	b.ReportMetric(float64(errs.Load()), "errors")
	b.ReportMetric(heap, "peak-heap-MB")
}

// floorRelay starts the floor of the load benchmark: the thinnest relay
// that does the server's unavoidable work for one query, and nothing else.
// A POST opens the fake model's stream with the server's adapter (the real
// OpenAI provider on its own HTTP client, as the harness's) and writes
// every text delta as one SSE event, the delta as a JSON string, flushed
// at once: no store, no agent runtime, no run manager, no JSON beyond the
// delta's string. The ratio of its delays to the straight read's is the
// best any server could reach on this machine under this load. Returns its
// URL.
func floorRelay(b *testing.B, fakeURL string) string {
	p := newFakeModels(nil, fakeURL).p
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		rc := http.NewResponseController(w)
		w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		if rc.Flush() != nil {
			return
		}
		req := &llm.Request{Model: "fake-model", Messages: []llm.Message{{Role: llm.RoleUser, Content: "Go"}}}
		var frame []byte
		seq := int64(0)
		for ev, err := range p.Stream(r.Context(), req) {
			if err != nil {
				return // the client counts the deltas it missed
			}
			if ev.Kind != llm.EventTextDelta {
				continue
			}
			seq++
			frame = append(strconv.AppendInt(append(frame[:0], "id:"...), seq, 10), "\ndata:"...)
			frame = append(jsontext.AppendString(frame, ev.Text), "\n\n"...)
			if _, err := w.Write(frame); err != nil || rc.Flush() != nil {
				return
			}
		}
	}))
	b.Cleanup(srv.Close)
	return srv.URL
}

// allStarted returns when the phase's last stream began at the fake model;
// a phase in which some never began stops the benchmark, whose start-up
// figures would otherwise be measured from the zero time.
func allStarted(b *testing.B, g *streamGauge, phase string, errs *atomic.Int64) time.Time {
	b.Helper()
	all := g.allStarted()
	if all.IsZero() {
		b.Fatalf("%s: fewer than %d streams began at the fake model (%d errors so far)", phase, loadRuns, errs.Load())
	}
	return all
}

// sample is one delta as a client read it: when the fake model wrote it
// and how long it took to reach the client.
type sample struct {
	at    time.Time
	delay time.Duration
}

// startup moves the samples of the start-up, the deltas written before the
// last of the phase's streams had begun at the fake model (the 200 runs
// still being started), to the front of ss and returns how many there are;
// the rest is the steady state.
func startup(ss []sample, allStarted time.Time) int {
	n := 0
	for i, s := range ss {
		if s.at.Before(allStarted) {
			ss[i], ss[n] = ss[n], ss[i]
			n++
		}
	}
	return n
}

// concurrency sums the mean and keeps the peak of the streams in flight
// over the phases of a benchmark.
type concurrency struct{ mean, peak float64 }

func (c *concurrency) add(mean, peak float64) { c.mean, c.peak = c.mean+mean, max(c.peak, peak) }

// streamGauge counts the fake model's streams in flight over a phase: the
// time-weighted mean from the first stream's start to the last one's end,
// and the peak.
type streamGauge struct {
	mu                sync.Mutex
	active, peak      int
	started           int       // streams begun
	all               time.Time // when the loadRuns-th stream began
	first, last, prev time.Time
	area              float64 // stream-seconds
}

func (g *streamGauge) reset() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.active, g.peak, g.started, g.area = 0, 0, 0, 0
	g.first, g.last, g.prev, g.all = time.Time{}, time.Time{}, time.Time{}, time.Time{}
}

// change adds d (+1 or -1) streams in flight now.
func (g *streamGauge) change(d int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := time.Now()
	if g.first.IsZero() {
		g.first = now
	} else {
		g.area += float64(g.active) * now.Sub(g.prev).Seconds()
	}
	g.active += d
	g.peak = max(g.peak, g.active)
	if d > 0 {
		if g.started++; g.started == loadRuns {
			g.all = now
		}
	}
	g.prev, g.last = now, now
}

// allStarted returns when the phase's loadRuns-th stream began (zero if
// not yet).
func (g *streamGauge) allStarted() time.Time {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.all
}

// read returns the phase's mean and peak streams in flight.
func (g *streamGauge) read() (mean, peak float64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if span := g.last.Sub(g.first).Seconds(); span > 0 {
		mean = g.area / span
	}
	return mean, float64(g.peak)
}

// BenchmarkLoad200Stores is BenchmarkLoad200 on three setups in one run
// (issue 19), each iteration running them one after the other on the same
// fake model: SQLite; PostgreSQL ($AITE_TEST_POSTGRES, the same server as
// the tests); and PostgreSQL across two nodes, every run started on node A
// and followed by its client on node B (GET /run/stream from seq 0), so
// each event reaches the client through the store and the feed. Reported
// per setup: the delta delay p50/p99 (the fake model writing a delta to
// the client reading it) and events/s; and the ratios of the PostgreSQL
// setups to SQLite.
//
//	AITE_TEST_POSTGRES=postgres://… go test -run '^$' -bench Load200Stores -benchtime 3x ./internal/server/
func BenchmarkLoad200Stores(b *testing.B) {
	dsn := pgtest.DSN(b)
	fakeURL := loadModel(b)
	client := loadClient()
	lite := newHarness(b, harnessOptions{modelURL: fakeURL})
	pg := newHarness(b, harnessOptions{modelURL: fakeURL, store: pgtest.Open(b, dsn, "pg")})
	nodeA := newHarness(b, harnessOptions{modelURL: fakeURL, store: pgtest.Open(b, dsn, "node-a")})
	nodeB := newHarness(b, harnessOptions{modelURL: fakeURL, store: pgtest.Open(b, dsn, "node-b")})
	for _, h := range []*harness{pg, nodeA, nodeB} {
		if err := h.runs.RecoverInterrupted(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	setups := []struct {
		name  string
		query func() (*http.Response, error)
	}{
		{"sqlite", queryOn(client, lite.srv.URL)},
		{"postgres", queryOn(client, pg.srv.URL)},
		{"postgres-2nodes", queryAcross(client, nodeA.srv.URL, nodeB.srv.URL)},
	}
	delays := make([][]sample, len(setups))
	events, elapsed := make([]atomic.Int64, len(setups)), make([]time.Duration, len(setups))
	var errs atomic.Int64
	b.ResetTimer()
	for range b.N {
		for i, s := range setups {
			start := time.Now()
			delays[i] = append(delays[i], loadThrough(client, s.query, &errs, &events[i])...)
			elapsed[i] += time.Since(start)
		}
	}
	b.StopTimer()
	p50, p99, rate := make([]time.Duration, len(setups)), make([]time.Duration, len(setups)), make([]float64, len(setups))
	for i, s := range setups {
		if want := b.N * loadRuns * loadDeltas; len(delays[i]) != want {
			b.Errorf("%s: %d deltas received, want %d", s.name, len(delays[i]), want)
		}
		p50[i], p99[i] = percentile(delays[i], 50), percentile(delays[i], 99)
		rate[i] = float64(events[i].Load()) / elapsed[i].Seconds()
		b.ReportMetric(float64(p50[i].Microseconds()), s.name+"-p50-µs")
		b.ReportMetric(float64(p99[i].Microseconds()), s.name+"-p99-µs")
		b.ReportMetric(rate[i], s.name+"-events/s")
		if i > 0 {
			b.ReportMetric(ratio(p50[i], p50[0]), s.name+"/sqlite-p50")
			b.ReportMetric(ratio(p99[i], p99[0]), s.name+"/sqlite-p99")
			b.ReportMetric(rate[i]/rate[0], s.name+"/sqlite-events/s")
		}
	}
	b.ReportMetric(float64(errs.Load()), "errors")
}

// The load of the benchmarks: loadRuns concurrent runs, each streaming
// loadDeltas stamped deltas loadGap apart.
const (
	loadRuns   = 200
	loadDeltas = 40
	loadGap    = 5 * time.Millisecond
)

// loadModel starts the fake model of the load benchmarks: every answer
// streams loadDeltas content deltas, loadGap apart, each carrying the time
// it was written ("<i:unixnano>").
func loadModel(b *testing.B) string {
	url, _ := loadModelGauged(b)
	return url
}

// loadModelGauged is loadModel with a gauge of its streams in flight.
func loadModelGauged(b *testing.B) (string, *streamGauge) {
	g := &streamGauge{}
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.change(+1)
		defer g.change(-1)
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
	b.Cleanup(fake.Close)
	return fake.URL, g
}

func loadClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: loadRuns}}
}

// watchHeap samples the heap in use until the returned func is called,
// which gives the peak in MB.
func watchHeap() func() float64 {
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
	return func() float64 {
		close(stop)
		return float64(peak.Load()) / (1 << 20)
	}
}

// loadDirect reads the fake model straight with loadRuns clients: the
// baseline.
func loadDirect(client *http.Client, fakeURL string, errs *atomic.Int64) []sample {
	return fanOut(loadRuns, func() ([]sample, int, error) {
		resp, err := client.Post(fakeURL+"/v1/chat/completions", "application/json", strings.NewReader(`{}`))
		if err != nil {
			return nil, 0, err
		}
		defer resp.Body.Close()
		return readDelays(resp.Body, "data: ")
	}, errs, nil)
}

// loadThrough runs loadRuns queries at once and reads their SSE streams.
func loadThrough(client *http.Client, query func() (*http.Response, error), errs, events *atomic.Int64) []sample {
	return fanOut(loadRuns, func() ([]sample, int, error) {
		resp, err := query()
		if err != nil {
			return nil, 0, err
		}
		defer resp.Body.Close()
		return readDelays(resp.Body, "data:")
	}, errs, events)
}

// queryOn posts a query to the server at base; the answer is its stream.
func queryOn(client *http.Client, base string) func() (*http.Response, error) {
	return func() (*http.Response, error) {
		resp, err := client.Post(base+"/api/ap/query", "application/json", strings.NewReader(`{"message":"Go","agentKey":"plain"}`))
		if err == nil && resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			return nil, fmt.Errorf("status %d", resp.StatusCode)
		}
		return resp, err
	}
}

// queryAcross posts a query to node a, reads its stream up to run.start
// (the run id) and returns the stream of the run from node b, from seq 0.
func queryAcross(client *http.Client, a, b string) func() (*http.Response, error) {
	post := queryOn(client, a)
	return func() (*http.Response, error) {
		resp, err := post()
		if err != nil {
			return nil, err
		}
		runID, err := readRunID(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		follow, err := client.Get(b + "/api/ap/run/stream?runId=" + runID)
		if err == nil && follow.StatusCode != http.StatusOK {
			follow.Body.Close()
			return nil, fmt.Errorf("status %d", follow.StatusCode)
		}
		return follow, err
	}
}

// readRunID reads SSE lines up to run.start and returns its runId.
func readRunID(body io.Reader) (string, error) {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 4<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.Contains(line, `"type":"run.start"`) {
			continue
		}
		var ev struct {
			RunID string `json:"runId"`
		}
		if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data:")), &ev); err != nil {
			return "", err
		}
		return ev.RunID, nil
	}
	return "", fmt.Errorf("no run.start: %v", sc.Err())
}

func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// fanOut runs f n times concurrently and collects the delays; errors and
// SSE events are counted.
func fanOut(n int, f func() ([]sample, int, error), errs, events *atomic.Int64) []sample {
	var mu sync.Mutex
	var all []sample
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

// readDelays reads SSE lines, counts the data lines and returns the
// sample of every delta stamp "<i:unixnano>" found in them. A run.error
// counts as an error.
func readDelays(body io.Reader, prefix string) ([]sample, int, error) {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 4<<10), 1<<20)
	var out []sample
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
						out = append(out, sample{at: time.Unix(0, v), delay: time.Duration(now - v)})
					}
				}
			}
		}
	}
	return out, n, sc.Err()
}

// percentile returns the p-th percentile of the samples' delays.
func percentile(ss []sample, p int) time.Duration {
	if len(ss) == 0 {
		return 0
	}
	ds := make([]time.Duration, len(ss))
	for i, s := range ss {
		ds[i] = s.delay
	}
	slices.Sort(ds)
	return ds[min(len(ds)-1, len(ds)*p/100)]
}
