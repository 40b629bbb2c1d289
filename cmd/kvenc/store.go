package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kvenc/kvenc/kv/inspect"
)

// openStoreArgs parses the arguments of a command on one store
// directory, with --prefix, and opens its store read-only.
func openStoreArgs(fs *flag.FlagSet, args []string) (*inspect.Store, error) {
	prefix := prefixFlag(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) != 1 {
		return nil, fmt.Errorf("%w: want one store directory", errUsage)
	}
	return inspect.Open(pos[0], prefix.get())
}

// diskBytes returns the bytes of every file under dir.
func diskBytes(dir string) int64 {
	var n int64
	_ = filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// keyBefore reports whether key a sorts before key b.
func keyBefore(a, b []byte) bool { return bytes.Compare(a, b) < 0 }
