//go:build !unix

package storebench

import "io/fs"

func allocated(fi fs.FileInfo) int64 { return fi.Size() }
