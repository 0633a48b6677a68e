//go:build unix

package bookcache

import (
	"os"
	"syscall"
)

// mapBytes maps size bytes of f read-only and shared.
func mapBytes(f *os.File, size int) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
}
