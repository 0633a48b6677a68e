package agentdef

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of WatchOptions.
const (
	DefaultPollInterval = 100 * time.Millisecond
	DefaultDebounce     = 500 * time.Millisecond
)

// WatchOptions configure a Watcher.
type WatchOptions struct {
	Interval time.Duration // how often the directories are read; default DefaultPollInterval
	Debounce time.Duration // how long they must stay unchanged before a reload; default DefaultDebounce
	// LoadModels builds a new model lookup when the models directory
	// changed; the agents are then reloaded against it. nil: a models
	// change only reloads the agents against the current lookup. An
	// error keeps the current lookup (and is reported as a warning).
	LoadModels func() (ModelLookup, error)
}

// Watcher keeps the current Snapshot of a Loader's directories and reloads
// it when they change, by polling (no OS notifications needed): the
// agents, tools, skills (each <id>/SKILL.md), viewports and models
// directories are read every Interval, and once a change has stayed put
// for Debounce the definitions are reloaded (Loader.Reload, so a broken
// file or an unreadable directory keeps its previous version) and the new
// snapshot is swapped in atomically. A run takes Current once and keeps
// that snapshot to its end.
type Watcher struct {
	opts WatchOptions
	dirs Dirs
	cur  atomic.Pointer[Snapshot]
	base fingerprint // of the directories before the first load

	mu     sync.Mutex // serializes reloads; guards loader
	loader Loader

	subsMu sync.Mutex
	subs   map[int]func(*Snapshot, []Warning)
	nextID int

	runMu   sync.Mutex // guards started, stop, done
	started bool
	stop    chan struct{}
	done    chan struct{}
}

// NewWatcher loads the definitions once and returns a watcher that is not
// polling yet (see Start), with the warnings of that load.
func NewWatcher(l Loader, opts WatchOptions) (*Watcher, []Warning) {
	opts.Interval = cmp.Or(opts.Interval, DefaultPollInterval)
	if opts.Debounce < 0 {
		opts.Debounce = 0
	} else if opts.Debounce == 0 {
		opts.Debounce = DefaultDebounce
	}
	w := &Watcher{opts: opts, dirs: l.Dirs, loader: l, subs: map[int]func(*Snapshot, []Warning){}}
	w.base = w.fingerprint()
	s, ws := l.Load()
	w.cur.Store(s)
	return w, ws
}

// Current returns the current snapshot.
func (w *Watcher) Current() *Snapshot { return w.cur.Load() }

// Subscribe registers fn, called after every reload with the new snapshot
// and the reload's warnings. Calls are serialized, on the reloading
// goroutine; fn must not call Reload or SetModels (it may subscribe and
// unsubscribe). The returned function unsubscribes.
func (w *Watcher) Subscribe(fn func(*Snapshot, []Warning)) (unsubscribe func()) {
	w.subsMu.Lock()
	defer w.subsMu.Unlock()
	id := w.nextID
	w.nextID++
	w.subs[id] = fn
	return func() {
		w.subsMu.Lock()
		defer w.subsMu.Unlock()
		delete(w.subs, id)
	}
}

// Reload reloads the definitions now, against the current model lookup
// (for example after the server reloaded the models itself).
func (w *Watcher) Reload() []Warning { return w.reload(nil, false) }

// SetModels replaces the model lookup and reloads the definitions, so the
// agents are checked against the new models.
func (w *Watcher) SetModels(m ModelLookup) []Warning { return w.reload(m, false) }

// reload swaps in a new snapshot and notifies the subscribers.
func (w *Watcher) reload(models ModelLookup, loadModels bool) []Warning {
	w.mu.Lock()
	defer w.mu.Unlock()
	var ws []Warning
	if loadModels && w.opts.LoadModels != nil {
		m, err := w.opts.LoadModels()
		if err != nil {
			ws = append(ws, Warning{Kind: KindModels, File: w.dirs.Models,
				Reason: fmt.Sprintf("models not reloaded (%v); the previous models are kept", err)})
		} else {
			models = m
		}
	}
	if models != nil {
		w.loader.Models = models
	}
	s, lw := w.loader.Reload(w.cur.Load())
	ws = append(ws, lw...)
	w.cur.Store(s)
	w.subsMu.Lock()
	var fns []func(*Snapshot, []Warning)
	for _, id := range slices.Sorted(maps.Keys(w.subs)) {
		fns = append(fns, w.subs[id])
	}
	w.subsMu.Unlock()
	for _, fn := range fns {
		fn(s, ws)
	}
	return ws
}

// Start starts polling. It does nothing after the first call or after
// Stop.
func (w *Watcher) Start() {
	w.runMu.Lock()
	defer w.runMu.Unlock()
	if w.started {
		return
	}
	w.started = true
	w.stop, w.done = make(chan struct{}), make(chan struct{})
	go w.poll(w.base)
}

// Stop stops polling and waits for the polling goroutine to end (and for
// a reload it started). The current snapshot stays usable.
func (w *Watcher) Stop() {
	w.runMu.Lock()
	defer w.runMu.Unlock()
	if !w.started {
		w.started = true // a later Start does nothing
		return
	}
	if w.stop != nil {
		close(w.stop)
		<-w.done
		w.stop = nil
	}
}

func (w *Watcher) poll(applied fingerprint) {
	defer close(w.done)
	t := time.NewTicker(w.opts.Interval)
	defer t.Stop()
	seen, changedAt := applied, time.Time{}
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
		}
		fp, now := w.fingerprint(), time.Now()
		if fp != seen {
			seen, changedAt = fp, now
		}
		if seen == applied || now.Sub(changedAt) < w.opts.Debounce {
			continue
		}
		modelsChanged := seen.models != applied.models
		applied = seen
		w.reload(nil, modelsChanged)
	}
}

// fingerprint sums up what the loaders read from the directories.
type fingerprint struct {
	agents, tools, skills, viewports, models uint64
}

func (w *Watcher) fingerprint() fingerprint {
	d := w.dirs
	return fingerprint{agents: dirHash(d.Agents, ""), tools: dirHash(d.Tools, ""), skills: dirHash(d.Skills, SkillFile),
		viewports: dirHash(d.Viewports, ""), models: dirHash(d.Models, "")}
}

// dirHash hashes the names and contents of the files of dir (dot-files
// excluded) and, when sub is set, of the file sub in each subdirectory.
func dirHash(dir, sub string) uint64 {
	h := fnv.New64a()
	if dir == "" {
		return 0
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		fmt.Fprintf(h, "error %v", err)
		return h.Sum64()
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		path := filepath.Join(dir, name)
		if isDir(path, e) {
			if sub == "" {
				continue
			}
			path = filepath.Join(path, sub)
		}
		fmt.Fprintf(h, "\x00%s\x00", name)
		hashFile(h, path)
	}
	return h.Sum64()
}

func hashFile(w io.Writer, path string) {
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintf(w, "error %v", err)
		return
	}
	defer f.Close()
	if _, err := io.Copy(w, f); err != nil {
		fmt.Fprintf(w, "error %v", err)
	}
}
