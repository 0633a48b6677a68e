//go:build unix

package atomicfile

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const crashEnv = "ATOMICFILE_CRASH_CHILD" // target path for the child

// crashContents returns two distinct ~20 MB contents of different lengths.
func crashContents() (a, b []byte) {
	const size = 8 << 20
	a = bytes.Repeat([]byte("aaaa-line-of-book\n"), size/18)
	b = bytes.Repeat([]byte("BBBB-other-text!\n"), size/17+3)
	return a, b
}

// TestRealCrash SIGKILLs a child process in the middle of Write loops and
// checks the target is always exactly one complete version.
func TestRealCrash(t *testing.T) {
	if path := os.Getenv(crashEnv); path != "" {
		crashChild(path)
		return
	}
	deadline := time.Now().Add(2 * time.Second) // keep the whole test < 3 s
	path := filepath.Join(t.TempDir(), "book.md")
	a, b := crashContents()
	require.NoError(t, Write(path, a, Options{Backup: true, Perm: 0o644}))
	require.NoError(t, Write(path, b, Options{Backup: true})) // .bak now exists
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	for i := 0; i < 6 && (i < 2 || time.Now().Before(deadline)); i++ {
		delay := time.Duration(rng.IntN(200)) * time.Millisecond
		t.Logf("iteration %d: SIGKILL after %v", i, delay)
		killChildAfter(t, path, delay)
		requireOneOf(t, path, a, b)
		requireOneOf(t, path+".bak", a, b)
	}
}

// crashChild alternates Write calls until it is killed (or 20 s pass).
func crashChild(path string) {
	a, b := crashContents()
	fmt.Println("ready")
	stop := time.Now().Add(20 * time.Second)
	for i := 0; time.Now().Before(stop); i++ {
		data := a
		if i%2 == 1 {
			data = b
		}
		if err := Write(path, data, Options{Backup: true}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
	}
	os.Exit(0)
}

// killChildAfter starts the child, waits until it is writing, sleeps delay
// and SIGKILLs it.
func killChildAfter(t *testing.T, path string, delay time.Duration) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestRealCrash$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashEnv+"="+path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "ready\n" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("child did not start: %q %v; stderr: %s", line, err, stderr.String())
	}
	time.Sleep(delay)
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	require.True(t, ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL,
		"child exited on its own (%v); stderr: %s", cmd.ProcessState, stderr.String())
}

func requireOneOf(t *testing.T, path string, a, b []byte) {
	t.Helper()
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.True(t, bytes.Equal(got, a) || bytes.Equal(got, b),
		"%s is torn: %d bytes (want %d or %d)", filepath.Base(path), len(got), len(a), len(b))
}
