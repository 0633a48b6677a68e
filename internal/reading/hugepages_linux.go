package reading

import (
	"bytes"
	"os"
	"runtime"
	"strings"
	"syscall"
	"unsafe"
)

// hugePage is the size of a transparent huge page where Go runs on Linux
// with 4 KiB pages (x86-64, arm64).
const hugePage = 2 << 20

// preferHugePages has the next n bytes the Go heap hands out backed by
// transparent huge pages where the kernel gives them only on request
// (THP "madvise", the default of many distributions): a command that
// parses a book touches tens of megabytes of fresh memory, and each 4 KiB
// page of it costs a page fault (about 2 µs on the 2-core development
// machine: a fifth of a first command's CPU on a 5.6 MB book), a 2 MiB
// page one fault for 512 of them.
//
// Go maps its heap without asking for huge pages. So this allocates n
// bytes, which makes the runtime map that much fresh heap at once (and
// touches none of it), asks the kernel to back the range with huge pages
// (madvise MADV_HUGEPAGE: advice, nothing in the memory changes; the
// kernel uses them for its 2 MiB-aligned stretches as they are first
// touched), and lets the collector free it: the runtime hands out the
// lowest free addresses first, so what the command allocates next lands
// there. The collection runs on one processor (about 1 ms; on two it
// waits for a second thread to be scheduled, several ms on a busy
// machine). Nothing happens when the kernel backs every mapping with
// huge pages anyway ("always") or never does ("never"), when GODEBUG has
// disablethp=1, or with AITE_HUGEPAGES=0 (to compare).
func preferHugePages(n int64) {
	if os.Getenv("AITE_HUGEPAGES") == "0" || strings.Contains(os.Getenv("GODEBUG"), "disablethp=1") || !hugePagesOnRequest() {
		return
	}
	b := make([]byte, n) // a large object: whole pages, untouched
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	b = nil
	// From the start of the huge page that holds the object's start: the
	// free pages just below it are the first the runtime hands out. A
	// failure changes nothing (it is advice), and should part of that
	// range not be mapped, the rest is advised all the same.
	start := p &^ (hugePage - 1)
	_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, start, p+uintptr(n)-start, syscall.MADV_HUGEPAGE)
	procs := runtime.GOMAXPROCS(1)
	runtime.GC()
	restoreProcs(procs)
}

// restoreProcs sets GOMAXPROCS back after a change: to the runtime's
// default where the environment did not set it, so that a long session
// keeps following a changed CPU limit as before, else to the count it had.
// A count set in code before (not by the environment) is not kept: a
// program embedding a command that calls LimitMemory sets it again after.
func restoreProcs(procs int) {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.SetDefaultGOMAXPROCS()
		return
	}
	runtime.GOMAXPROCS(procs)
}

// hugePagesOnRequest reports whether the kernel backs memory with
// transparent huge pages only where a program asks for them.
func hugePagesOnRequest() bool {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	return err == nil && bytes.Contains(b, []byte("[madvise]"))
}
