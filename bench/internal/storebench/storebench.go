// Package storebench loads the same cells into kvenc's store and its peers
// (raw Badger v4 with one Badger key per cell, and Pebble v2) and measures
// load time, bytes on disk, a full scan, random Get latency and
// SeekGE + Next x10.
//
// Every engine is checked while it is measured: a scan must return every
// cell, every Get must return the cell's value. An engine that fails is
// reported as an error, never as a number.
package storebench

import (
	"github.com/kvenc/kvenc/bench/internal/dataset"
)

// DB is one opened engine.
type DB interface {
	// Load writes kvs (any order) in batches.
	Load(kvs []dataset.KV) error
	// Settle flushes what is in memory and compacts what it can, so that
	// the bytes on disk are the steady-state size.
	Settle() error
	// Get returns key's value; the slice is valid until the next call.
	Get(key []byte) ([]byte, error)
	// Scan reads every cell (key and value) in order and returns the count.
	Scan() (int, error)
	// SeekNext seeks to the first key >= key and reads up to n cells from
	// there; it returns how many it read.
	SeekNext(key []byte, n int) (int, error)
	Close() error
}

// Engine opens a DB in a directory.
type Engine struct {
	Name string
	Open func(dir string) (DB, error)
}

// KvencName is the engine the ratio columns compare against.
const KvencName = "kvenc"

// Engines returns kvenc's store, then raw Badger without and with ZSTD,
// then Pebble with its defaults (Snappy) and with ZSTD.
func Engines() []Engine {
	return []Engine{
		{KvencName, openKvenc},
		{"badger", openBadger(false)},
		{"badger-zstd", openBadger(true)},
		{"pebble", openPebble(false)},
		{"pebble-zstd", openPebble(true)},
	}
}
