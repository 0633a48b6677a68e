//go:build !unix

package atomicfile

// syncDir is a no-op where directories cannot be fsynced through os.File
// (Windows persists renames through its own metadata journal).
func syncDir(string) error { return nil }
