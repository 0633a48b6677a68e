package reading

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// After preferHugePages, what the process allocates lands in memory the
// kernel was asked to back with huge pages (its mapping's flags have "hg"):
// all of it but what fits in the holes the collection left below the
// advised range (memory already touched, which costs no fault). This
// fails should the runtime stop handing out the freed range first. So
// does LimitMemory for a book of 2 MB; LimitMemoryMapped (a command
// answered from the cache) and AITE_HUGEPAGES=0 ask for nothing. Each
// runs in a fresh process (this test run again), whose heap is as a
// command's.
func TestPreferHugePages(t *testing.T) {
	const size = 8 << 20
	if how := os.Getenv("AITE_TEST_HUGEPAGES"); how != "" {
		switch how {
		case "prefer":
			preferHugePages(32 << 20)
		case "limit", "mapped":
			book := filepath.Join(t.TempDir(), "book.md")
			require.NoError(t, os.WriteFile(book, nil, 0o644))
			require.NoError(t, os.Truncate(book, 2<<20))
			if how == "limit" {
				defer LimitMemory(book)()
			} else {
				defer LimitMemoryMapped(book, 0)()
			}
		}
		b := make([]byte, size)
		p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		fmt.Println(advised(t, p, p+size))
		return
	}
	if !hugePagesOnRequest() {
		t.Skip("the kernel's transparent huge pages are not on request (madvise) here")
	}
	if debug.SetMemoryLimit(-1) != math.MaxInt64 {
		t.Skip("a memory limit is set (GOMEMLIMIT)")
	}
	run := func(how string, env ...string) int {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestPreferHugePages$", "-test.count", "1")
		cmd.Env = append(os.Environ(), append(env, "AITE_TEST_HUGEPAGES="+how)...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		line, _, _ := strings.Cut(string(out), "\n")
		n, err := strconv.Atoi(line)
		require.NoError(t, err, "%s", out)
		return n
	}
	require.GreaterOrEqual(t, run("prefer"), size*3/4, "bytes of an 8 MiB allocation in advised memory")
	require.GreaterOrEqual(t, run("limit"), size*3/4, "after LimitMemory")
	require.Zero(t, run("mapped"), "LimitMemoryMapped asks for nothing")
	require.Zero(t, run("prefer", "AITE_HUGEPAGES=0"), "AITE_HUGEPAGES=0 asks for nothing")
	require.Zero(t, run("limit", "GODEBUG=disablethp=1"), "nor does GODEBUG=disablethp=1")
}

// advised returns how many bytes of [lo, hi) lie in mappings whose flags
// have "hg" (/proc/self/smaps).
func advised(t *testing.T, lo, hi uintptr) int {
	f, err := os.Open("/proc/self/smaps")
	require.NoError(t, err)
	defer f.Close()
	var from, to uintptr // the mapping being read
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if a, b, ok := addressRange(line); ok {
			from, to = a, b
		} else if rest, ok := strings.CutPrefix(line, "VmFlags:"); ok && slices.Contains(strings.Fields(rest), "hg") {
			n += max(0, int(min(to, hi))-int(max(from, lo)))
		}
	}
	require.NoError(t, sc.Err())
	return n
}

// addressRange parses the "from-to" that starts a mapping's line in smaps.
func addressRange(line string) (from, to uintptr, ok bool) {
	r, _, _ := strings.Cut(line, " ")
	a, b, found := strings.Cut(r, "-")
	if !found {
		return 0, 0, false
	}
	x, err1 := strconv.ParseUint(a, 16, 64)
	y, err2 := strconv.ParseUint(b, 16, 64)
	return uintptr(x), uintptr(y), err1 == nil && err2 == nil
}

// After the collection on one processor the process runs on as many as
// before: the runtime's default where GOMAXPROCS is not set, so that it
// keeps following the CPU limit, else the count the environment gave.
func TestRestoreProcs(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(before)
	t.Setenv("GOMAXPROCS", "")
	runtime.SetDefaultGOMAXPROCS()
	def := runtime.GOMAXPROCS(1)
	restoreProcs(def + 1) // the default, not the count given
	require.Equal(t, def, runtime.GOMAXPROCS(0), "the default again")

	t.Setenv("GOMAXPROCS", "3")
	runtime.GOMAXPROCS(1)
	restoreProcs(3)
	require.Equal(t, 3, runtime.GOMAXPROCS(0), "the environment's count")
}
