package web_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/aitexteditor/aite/examples"
	"github.com/aitexteditor/aite/internal/server"
	"github.com/aitexteditor/aite/internal/server/config"
	"github.com/aitexteditor/aite/web"
)

// The browser tests drive the web app in Debian's Chromium, headless,
// against a real aite server (server.App with package web's app) whose
// model is the fake OpenAI-compatible server of fakemodel_test.go. One
// browser serves the whole package run; each test opens its own tabs.
// Without a browser the tests skip, saying how to get one; CI installs
// chromium (.ci/run).
//
// Screenshots of the main screens go to $AITE_SCREENSHOTS when set, else to
// a temporary folder that is removed after the run.

// chrome is the one Chromium of the package run.
var chrome struct {
	ctx     context.Context
	missing string // why there is no browser
}

// chromiumPath finds the browser: $AITE_CHROMIUM, then the usual names.
func chromiumPath() string {
	if p := os.Getenv("AITE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

func TestMain(m *testing.M) {
	code := func() int {
		path := chromiumPath()
		if path == "" {
			chrome.missing = "no Chromium found: install it (apt-get install -y chromium) or set AITE_CHROMIUM; the browser tests are skipped"
			if os.Getenv("CI") != "" {
				fmt.Fprintln(os.Stderr, "CI is set, so the browser tests may not skip:", chrome.missing)
				return 1
			}
			return m.Run()
		}
		profile, err := os.MkdirTemp("", "aite-chromium-")
		if err != nil {
			chrome.missing = err.Error()
			return m.Run()
		}
		defer os.RemoveAll(profile)
		opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox,
			chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true), chromedp.UserDataDir(profile),
			chromedp.WindowSize(1440, 900))
		alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		defer cancelAlloc()
		ctx, cancel := chromedp.NewContext(alloc)
		defer cancel()
		if err := chromedp.Do(ctx); err != nil {
			chrome.missing = fmt.Sprintf("Chromium at %s does not start (%v); the browser tests are skipped", path, err)
			if os.Getenv("CI") != "" {
				fmt.Fprintln(os.Stderr, "CI is set, so the browser tests may not skip:", chrome.missing)
				return 1
			}
			return m.Run()
		}
		chrome.ctx = ctx
		return m.Run()
	}()
	os.Exit(code)
}

// tab is one browser tab of a test, with the JavaScript errors it saw.
type tab struct {
	t       testing.TB
	ctx     context.Context
	mu      sync.Mutex
	errs    []string
	allowed []string // substrings of expected errors
}

// allow expects page errors containing s from now on (a refused request
// the test provokes).
func (tb *tab) allow(s string) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	tb.allowed = append(tb.allowed, s)
}

// needBrowser skips the test without a browser (before it starts a
// server for nothing).
func needBrowser(t testing.TB) {
	t.Helper()
	if chrome.ctx == nil {
		t.Skip(chrome.missing)
	}
}

// newTab opens a tab (skipping the test without a browser); every
// uncaught exception and console error of the page fails the test at its
// end.
func newTab(t testing.TB) *tab {
	t.Helper()
	if chrome.ctx == nil {
		t.Skip(chrome.missing)
	}
	ctx, cancel := chromedp.NewContext(chrome.ctx)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatal(err)
	}
	tb := &tab{t: t, ctx: ctx}
	messages := chromedp.Console(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.IsException() || m.Type == chromedp.ConsoleError {
				tb.addErr(m.String())
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		tb.mu.Lock()
		defer tb.mu.Unlock()
		for _, e := range tb.errs {
			t.Errorf("page error: %s", e)
		}
	})
	return tb
}

func (tb *tab) addErr(s string) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	for _, a := range tb.allowed {
		if strings.Contains(s, a) {
			return
		}
	}
	tb.errs = append(tb.errs, s)
}

// run runs chromedp actions, failing the test on an error.
func (tb *tab) run(what string, actions ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 2*time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		tb.t.Fatalf("%s: %v", what, err)
	}
}

// evalJS evaluates a JavaScript expression (awaiting a promise) into a T.
func evalJS[T any](tb *tab, expr string) T {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, time.Minute)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		tb.t.Fatalf("eval %s: %v", expr, err)
	}
	return v
}

// waitJS waits until the expression is truthy (polled every animation
// frame), at most d.
func (tb *tab) waitJS(what, expr string, d time.Duration) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, d+5*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(d))); err != nil {
		state, _ := chromedp.Run(tb.ctx, chromedp.Evaluate[string](`(document.querySelector('.chat')?.innerText ?? '') + '\n---\n' + (document.querySelector('#app')?.innerText?.slice(0, 1500) ?? '')`))
		tb.t.Fatalf("waiting for %s (%s): %v\npage text:\n%s", what, expr, err, state)
	}
}

// text returns the innerText of the first element matching sel.
func (tb *tab) text(sel string) string {
	tb.t.Helper()
	return evalJS[string](tb, fmt.Sprintf(`document.querySelector(%q)?.innerText ?? ''`, sel))
}

// click clicks the first element matching sel with the mouse, once it is
// visible (scrolled into view first): a control a person cannot see cannot
// be clicked.
func (tb *tab) click(sel string) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 20*time.Second)
	defer cancel()
	for pause := clickRetryFirst; ; pause = min(2*pause, clickRetryMost) {
		err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel)))
		if err == nil {
			return
		}
		// The app re-rendered the element between finding it and clicking
		// it (a list refreshed meanwhile): find it again once the
		// rendering had a moment, within the click's 20 s.
		if !strings.Contains(err.Error(), "Could not find node with given id") || ctx.Err() != nil {
			tb.t.Fatalf("click %s: %v", sel, err)
		}
		select {
		case <-ctx.Done():
			tb.t.Fatalf("click %s: %v (then %v)", sel, err, ctx.Err())
		case <-time.After(pause):
		}
	}
}

// The pauses between the tries of a click: doubling from the first to at
// most the longest.
const (
	clickRetryFirst = 10 * time.Millisecond
	clickRetryMost  = 250 * time.Millisecond
)

// typeInto focuses an input or textarea and sets its value.
func (tb *tab) typeInto(sel, value string) {
	tb.t.Helper()
	tb.run("type into "+sel, chromedp.WaitVisible(chromedp.CSS(sel)), chromedp.Focus(chromedp.CSS(sel)),
		chromedp.SetValue(chromedp.CSS(sel), value))
}

// key sends keys to the focused element.
func (tb *tab) key(k string) {
	tb.t.Helper()
	tb.run("key "+k, chromedp.KeyEvent(k))
}

// screenshotDir is where the screenshots go.
var screenshotDir = sync.OnceValue(func() string {
	if d := os.Getenv("AITE_SCREENSHOTS"); d != "" {
		_ = os.MkdirAll(d, 0o755)
		return d
	}
	d, _ := os.MkdirTemp("", "aite-screenshots-")
	return d
})

// shot saves a screenshot of the viewport as name.png after checking that
// no text in the app overflows its box or lies off screen.
func (tb *tab) shot(name string) {
	tb.t.Helper()
	tb.checkLayout(name)
	png, err := chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		tb.t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(screenshotDir(), name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		tb.t.Fatal(err)
	}
	tb.t.Logf("screenshot %s", path)
}

// layoutProblemsJS lists visible elements whose own text spills out of
// their box (wider than the box without a scrollbar or an ellipsis) and
// elements that stick out of the window.
const layoutProblemsJS = `(() => {
  const out = [];
  for (const el of document.querySelectorAll('#app *')) {
    const cs = getComputedStyle(el);
    if (cs.display === 'none' || cs.visibility === 'hidden' || el.closest('pre, .reader-spacer, table, .viewport, .keys-dialog, .toasts')) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || r.bottom < 0 || r.top > innerHeight) continue;
    const clips = cs.overflowX !== 'visible' || cs.textOverflow === 'ellipsis';
    if (!clips && el.scrollWidth > el.clientWidth + 2 && el.clientWidth > 0 && [...el.childNodes].some(n => n.nodeType === 3 && n.data.trim())) {
      out.push('overflows: ' + el.tagName + '.' + el.className + ' "' + el.innerText.slice(0, 40) + '" ' + el.scrollWidth + '>' + el.clientWidth);
    }
    if (r.right > innerWidth + 1 && !el.closest('.chat-scroll, .tab-panel, .reader')) {
      out.push('off screen: ' + el.tagName + '.' + el.className + ' right ' + Math.round(r.right));
    }
  }
  return out.slice(0, 10);
})()`

func (tb *tab) checkLayout(name string) {
	tb.t.Helper()
	for _, p := range evalJS[[]string](tb, layoutProblemsJS) {
		tb.t.Errorf("screen %s: %s", name, p)
	}
}

// appOptions set up one app.
type appOptions struct {
	flags map[string]string // config keys (auth, …)
	files map[string]string // files below the data directory, written before the start
}

// testApp is a running aite server with its fake model.
type testApp struct {
	base  string
	app   *server.App
	model *fakeModel
	data  string
}

// startApp serves a fresh aite (the sample book registered) on a loopback
// port until the test ends.
func startApp(t testing.TB, o appOptions) *testApp {
	t.Helper()
	data := t.TempDir()
	for name, content := range o.files {
		p := filepath.Join(data, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	model := newFakeModel(t)
	env := map[string]string{"AITE_MODEL": "openai:fake-model", "OPENAI_BASE_URL": model.srv.URL + "/v1", "OPENAI_API_KEY": "sk-test"}
	flags := map[string]string{"server.addr": "127.0.0.1:0", "data": data}
	for k, v := range o.flags {
		flags[k] = v
	}
	getenv := func(k string) string { return env[k] }
	cfg, err := config.Load(config.Options{WorkDir: data, Env: getenv, Flags: flags})
	if err != nil {
		t.Fatal(err)
	}
	app, err := server.NewApp(context.Background(), cfg, server.AppOptions{Env: getenv, WorkDir: data,
		SampleName: examples.SampleName, Sample: examples.Zvezdochkin, Web: web.NewApp(), ShutdownTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := app.Listen()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- app.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, net.ErrClosed) {
				t.Errorf("serve: %v", err)
			}
		case <-time.After(15 * time.Second):
			t.Error("the server did not stop")
		}
	})
	return &testApp{base: "http://" + ln.Addr().String(), app: app, model: model, data: data}
}

// client talks to the app's API directly (setup and checks).
var client = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 30 * time.Second}
