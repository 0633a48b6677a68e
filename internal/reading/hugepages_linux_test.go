package reading

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
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
// fails should the runtime stop handing out the freed range first. It runs
// in a fresh process (this test run again), whose heap is as a command's.
func TestPreferHugePages(t *testing.T) {
	const size = 8 << 20
	if os.Getenv("AITE_TEST_HUGEPAGES") == "child" {
		preferHugePages(32 << 20)
		b := make([]byte, size)
		p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		fmt.Println(advised(t, p, p+size))
		return
	}
	if !hugePagesOnRequest() {
		t.Skip("the kernel's transparent huge pages are not on request (madvise) here")
	}
	run := func(env ...string) int {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestPreferHugePages$", "-test.count", "1")
		cmd.Env = append(os.Environ(), append(env, "AITE_TEST_HUGEPAGES=child")...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		line, _, _ := strings.Cut(string(out), "\n")
		n, err := strconv.Atoi(line)
		require.NoError(t, err, "%s", out)
		return n
	}
	require.GreaterOrEqual(t, run(), size*3/4, "bytes of an 8 MiB allocation in advised memory")
	require.Zero(t, run("AITE_HUGEPAGES=0"), "AITE_HUGEPAGES=0 asks for nothing")
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
