package agentdef

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type reloaded struct {
	s  *Snapshot
	ws []Warning
}

// watch starts a fast watcher over d and returns its reload events.
func watch(t *testing.T, l Loader, opts WatchOptions) (*Watcher, chan reloaded) {
	t.Helper()
	opts.Interval = 5 * time.Millisecond
	if opts.Debounce == 0 {
		opts.Debounce = 40 * time.Millisecond
	}
	w, _ := NewWatcher(l, opts)
	events := make(chan reloaded, 32)
	w.Subscribe(func(s *Snapshot, ws []Warning) { events <- reloaded{s, ws} })
	w.Start()
	t.Cleanup(w.Stop)
	return w, events
}

func next(t *testing.T, events chan reloaded) reloaded {
	t.Helper()
	select {
	case ev := <-events:
		return ev
	case <-time.After(5 * time.Second):
		t.Fatal("no reload")
		return reloaded{}
	}
}

// quiet fails if a reload arrives within d.
func quiet(t *testing.T, events chan reloaded, d time.Duration) {
	t.Helper()
	select {
	case ev := <-events:
		t.Fatalf("unexpected reload: %s", dump(ev.ws))
	case <-time.After(d):
	}
}

func agentName(s *Snapshot, key string) string {
	a, _ := s.Agent(key)
	return a.Name
}

func TestWatcherAppliesChanges(t *testing.T) {
	d := newDirs(t)
	write(t, d.Agents, map[string]string{"a.json": ag(`"name": "A1"`)})
	w, events := watch(t, Loader{Dirs: d, Models: testModels}, WatchOptions{})
	first := w.Current()

	write(t, d.Agents, map[string]string{"b.json": ag("")}) // add
	ev := next(t, events)
	require.Same(t, ev.s, w.Current())
	require.Len(t, ev.s.Agents(), 2)

	write(t, d.Agents, map[string]string{"a.json": ag(`"name": "A2"`)}) // modify
	require.Equal(t, "A2", agentName(next(t, events).s, "a"))
	require.Equal(t, "A1", agentName(first, "a"), "a snapshot never changes")

	require.NoError(t, os.Remove(filepath.Join(d.Agents, "b.json"))) // delete
	_, ok := next(t, events).s.Agent("b")
	require.False(t, ok)

	write(t, d.Agents, map[string]string{"a.json": `{"name": `}) // broken: the previous version stays
	ev = next(t, events)
	require.Equal(t, "A2", agentName(ev.s, "a"))
	requireWarning(t, ev.ws, filepath.Join(d.Agents, "a.json"), "", "previous version is kept")

	write(t, d.Agents, map[string]string{"a.json": ag(`"name": "A3"`)}) // fixed
	require.Equal(t, "A3", agentName(next(t, events).s, "a"))

	write(t, d.Agents, map[string]string{"a.json": ag(`"systemPrompt": "x"`)}) // rejected: dropped
	ev = next(t, events)
	require.Empty(t, ev.s.Agents())
	require.Equal(t, "systemPrompt", rejected(ev.ws)[0].Field)
	quiet(t, events, 150*time.Millisecond)
}

func TestWatcherDebounces(t *testing.T) {
	d := newDirs(t)
	w, events := watch(t, Loader{Dirs: d, Models: testModels}, WatchOptions{Debounce: 150 * time.Millisecond})
	for i := range 5 {
		write(t, d.Agents, map[string]string{"c.json": ag(`"name": "C` + string(rune('0'+i)) + `"`)})
	}
	ev := next(t, events)
	require.Equal(t, "C4", agentName(ev.s, "c"))
	require.Same(t, ev.s, w.Current())
	quiet(t, events, 300*time.Millisecond)
}

func TestWatcherOtherDirs(t *testing.T) {
	d := newDirs(t)
	write(t, d.Agents, map[string]string{"a.json": ag(`"toolConfig": {"actions": ["go"]}`)})
	_, events := watch(t, Loader{Dirs: d, Models: testModels}, WatchOptions{})
	write(t, d.Tools, map[string]string{"go.action": `{"tools": [{"type": "function", "name": "go"}]}`})
	ev := next(t, events)
	a, _ := ev.s.Agent("a")
	require.Equal(t, []string{"go"}, a.Tools, "agents are checked against the new tools")
	write(t, d.Skills, map[string]string{"s/SKILL.md": "skill"})
	_, ok := next(t, events).s.Skill("s")
	require.True(t, ok)
	write(t, d.Skills, map[string]string{"s/SKILL.md": "changed"})
	k, _ := next(t, events).s.Skill("s")
	require.Equal(t, "changed", k.Prompt)
	write(t, d.Viewports, map[string]string{"v.html": "<p>"})
	_, ok = next(t, events).s.Viewport("v")
	require.True(t, ok)
	write(t, d.Agents, map[string]string{".a.json.swp": "x"}) // dot-files are not watched
	quiet(t, events, 150*time.Millisecond)
}

func TestWatcherUnreadableDirKeepsDefinitions(t *testing.T) {
	d := newDirs(t)
	write(t, d.Agents, map[string]string{"a.json": ag("")})
	_, events := watch(t, Loader{Dirs: d, Models: testModels}, WatchOptions{})
	require.NoError(t, os.RemoveAll(d.Agents))
	ev := next(t, events)
	_, ok := ev.s.Agent("a")
	require.True(t, ok)
	requireWarning(t, ev.ws, d.Agents, "", "previous definitions are kept")

	write(t, d.Agents, map[string]string{"b.json": ag("")})
	ev = next(t, events)
	require.Len(t, ev.s.Agents(), 1)
	_, ok = ev.s.Agent("b")
	require.True(t, ok)
}

func TestWatcherModelsChange(t *testing.T) {
	d := newDirs(t)
	write(t, d.Agents, map[string]string{"a.json": ag(`"modelConfig": {"modelKey": "m9"}`)})
	loadModels := func() (ModelLookup, error) {
		entries, err := os.ReadDir(d.Models)
		if err != nil {
			return nil, err
		}
		m := fakeModels{}
		for _, e := range entries {
			if e.Name() == "fail.json" {
				return nil, errors.New("bad models file")
			}
			m[strings.TrimSuffix(e.Name(), ".json")] = true
		}
		return m, nil
	}
	w, events := watch(t, Loader{Dirs: d, Models: fakeModels{}}, WatchOptions{LoadModels: loadModels})
	require.Empty(t, w.Current().Agents())

	write(t, d.Models, map[string]string{"m9.json": "{}"})
	_, ok := next(t, events).s.Agent("a")
	require.True(t, ok, "a models change reloads the agents")

	write(t, d.Models, map[string]string{"fail.json": "{}"})
	ev := next(t, events)
	_, ok = ev.s.Agent("a")
	require.True(t, ok, "a failed models reload keeps the models")
	w0 := requireWarning(t, ev.ws, d.Models, "", "previous models are kept")
	require.Equal(t, KindModels, w0.Kind)
}

func TestWatcherReloadAndSetModels(t *testing.T) {
	d := newDirs(t)
	write(t, d.Agents, map[string]string{"a.json": ag(`"modelConfig": {"modelKey": "m9"}`)})
	w, ws := NewWatcher(Loader{Dirs: d, Models: testModels}, WatchOptions{})
	require.Len(t, rejected(ws), 1)
	var calls int
	unsubscribe := w.Subscribe(func(*Snapshot, []Warning) { calls++ })

	ws = w.SetModels(fakeModels{"m9": true})
	require.Empty(t, rejected(ws))
	_, ok := w.Current().Agent("a")
	require.True(t, ok)
	require.Equal(t, 1, calls)

	write(t, d.Agents, map[string]string{"b.json": ag("")})
	w.Reload()
	require.Len(t, w.Current().Agents(), 1, "b's m1 is unknown to the new models")
	require.Equal(t, 2, calls)

	unsubscribe()
	w.Reload()
	require.Equal(t, 2, calls)
	w.Stop()
	w.Stop()
	w.Start() // no effect after Stop: goleak would see the goroutine
}

func TestWatcherConcurrentReaders(t *testing.T) {
	d := newDirs(t)
	write(t, d.Agents, map[string]string{"a.json": ag("")})
	w, _ := watch(t, Loader{Dirs: d, Models: testModels}, WatchOptions{Debounce: time.Millisecond})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 200 {
				_, ok := w.Current().Agent("a")
				assert.True(t, ok)
			}
		})
	}
	for i := range 10 {
		write(t, d.Agents, map[string]string{"a.json": ag(`"name": "A` + string(rune('0'+i)) + `"`)})
		w.Reload()
	}
	wg.Wait()
}
