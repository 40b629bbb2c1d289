// Command kvenc looks inside a kvenc store, checks it, and chooses block
// options for the user's own data.
//
//	kvenc stats DIR [--prefix P] [--json] [--blocks]
//	kvenc verify DIR [--prefix P]
//	kvenc dump DIR [--prefix P] [--from K] [--to K] [--hex] [--reverse] [--versions] [--format text|hex|json]
//	kvenc block DIR --segment S --block B [--prefix P]
//	kvenc block FILE [--dict FILE]
//	kvenc advise --csv FILE --key N[:W],... [--value N] [flags]
//	kvenc advise --badger DIR [--prefix P] [flags]
//	kvenc advise --store DIR [--prefix P] [flags]
//
// stats describes a store from its segment metas, block keys and WAL
// files (it reads no block unless --blocks asks). verify reads every meta,
// block and WAL file and exits with status 1, naming the segment, block and
// byte offset of each problem and how to repair it, when anything is
// wrong. dump prints the cells in key order: the newest live version of
// each key, or every version. block prints one block field by field, as
// blockenc's package doc draws it.
//
// advise encodes a sample of the user's cells with each block encoding,
// compression, compression level, block size and dictionary setting worth
// trying, measures the bytes per cell and the SeekGE, Next and Get times
// on those blocks, and prints the table, the winner per goal (smallest,
// fastest Get, fastest scan, balanced) and the kv.Options that give each,
// as Go code. The cells come from a CSV or TSV file (key columns, value
// the rest or one column), a plain Badger directory or a kvenc store.
//
// kvenc opens every directory read-only (a store open in another process
// is refused: Badger's lock) and never writes to it. It reads stores
// through package kv/inspect, with kv's own decoders; the formats it does
// not know are refused by name. For stores in TiKV, the same commands are
// kvenc-tikv's (module github.com/kvenc/kvenc/kvtikv, folder
// kvtikv/cmd/kvenc-tikv), with --pd HOST:PORT,... in place of DIR. A
// progress bar is drawn on stderr for work that takes more than a second,
// when stderr is a terminal.
package main

import (
	"os"

	"github.com/kvenc/kvenc/internal/kvenccli"
)

func main() {
	os.Exit(kvenccli.Run("kvenc", os.Args[1:], os.Stdout, os.Stderr, nil))
}
