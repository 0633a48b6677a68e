//go:build !unix

package bookcache

import (
	"io"
	"os"
)

// mapBytes reads size bytes of f where memory mapping is not used.
func mapBytes(f *os.File, size int) ([]byte, error) {
	b := make([]byte, size)
	_, err := io.ReadFull(f, b)
	return b, err
}
