//go:build !linux

package space

import (
	"errors"
	"os"
)

// Statfs fails with errors.ErrUnsupported on this system: a Gate made
// with it admits every step (see the package doc).
func Statfs(path string) (Usage, error) {
	return Usage{}, &os.PathError{Op: "statfs", Path: path, Err: errors.ErrUnsupported}
}

// Preallocate does nothing on this system: a write past the space left
// fails with the system's error, which Classify wraps as ErrNoSpace.
func Preallocate(f *os.File, off, n int64) error { return nil }
