// Package diskuse measures the disk space a directory takes.
package diskuse

import (
	"io/fs"
	"path/filepath"
)

// Of sums the space the files under dir (or the file dir) take: allocated blocks where
// the platform reports them (Badger preallocates sparse files), else sizes.
func Of(dir string) (int64, error) {
	var total int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		total += allocated(fi)
		return nil
	})
	return total, err
}
