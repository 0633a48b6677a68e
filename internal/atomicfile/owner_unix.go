//go:build unix

package atomicfile

import (
	"io/fs"
	"syscall"
)

// owner is a file's user and group.
type owner struct {
	uid, gid int
	known    bool
}

// ownerOf returns the owner of a file.
func ownerOf(fi fs.FileInfo) owner {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return owner{uid: int(st.Uid), gid: int(st.Gid), known: true}
	}
	return owner{}
}
