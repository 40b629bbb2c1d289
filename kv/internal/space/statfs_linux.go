package space

import (
	"errors"
	"os"
	"syscall"
)

// Statfs returns the Usage of the filesystem holding path: f_blocks and
// f_bavail (the blocks an unprivileged writer may allocate) times f_bsize.
func Statfs(path string) (Usage, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return Usage{}, &os.PathError{Op: "statfs", Path: path, Err: err}
	}
	bs := int64(st.Bsize)
	return Usage{Total: int64(st.Blocks) * bs, Free: int64(st.Bavail) * bs}, nil
}

// fallocKeepSize is FALLOC_FL_KEEP_SIZE: allocate blocks past the end of
// the file without changing its size.
const fallocKeepSize = 0x1

// Preallocate allocates the n bytes of f from off on (fallocate(2) with
// FALLOC_FL_KEEP_SIZE: the file's size stays, so readers see only what was
// written), so that writes there cannot fail for lack of space. A
// filesystem without fallocate (EOPNOTSUPP) allocates nothing and returns
// nil; ENOSPC and EDQUOT come back wrapping ErrNoSpace.
func Preallocate(f *os.File, off, n int64) error {
	if n <= 0 {
		return nil
	}
	for {
		err := syscall.Fallocate(int(f.Fd()), fallocKeepSize, off, n)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EOPNOTSUPP):
			return nil
		}
		return Classify(&os.PathError{Op: "fallocate", Path: f.Name(), Err: err})
	}
}
