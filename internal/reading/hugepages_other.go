//go:build !linux

package reading

// preferHugePages does nothing where the kernel's transparent huge pages
// (Linux) are not to be had (see hugepages_linux.go).
func preferHugePages(int64) {}
