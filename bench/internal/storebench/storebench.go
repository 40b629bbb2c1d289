// Package storebench loads the same cells into kvenc's store and its peers
// (raw Badger v4 with one Badger key per cell, and Pebble v2), each given
// the same block cache budget, and measures what a user of a store feels:
// the load (writes, flush, compaction), bytes on disk, a cold and a warm
// full scan, a warm full scan backward, uniform random Get latency, zipfian Get throughput before and
// after a full scan, SeekGE + Next x10, Get throughput from several
// goroutines and the process's peak resident memory.
//
// Every engine is checked while it is measured: a scan must return every
// cell, every Get must return the cell's value. An engine that fails is
// reported as an error, never as a number.
//
// RunChild measures one engine in a child process of its own (ChildMain is
// that process's entry point), so that the peak RSS belongs to that engine
// alone; Measure runs in the calling process.
package storebench

import (
	"github.com/kvenc/kvenc/bench/internal/dataset"
)

// DB is one opened engine.
type DB interface {
	// Write writes kvs (any order) in batches of loadBatch cells.
	Write(kvs []dataset.KV) error
	// Flush writes what is in memory to the engine's files (a no-op for
	// an engine that flushes only at Close).
	Flush() error
	// Compact compacts what it can, so that the bytes on disk are the
	// steady-state size.
	Compact() error
	// Get returns key's value, copied into dst's storage where the engine
	// lends its bytes only for a while (kvenc's Get already returns a
	// copy of its own). Safe for concurrent use, each caller with its
	// own dst.
	Get(dst, key []byte) ([]byte, error)
	// Scan reads every cell (key and value) in order, descending with
	// reverse, and returns the count.
	Scan(reverse bool) (int, error)
	// SeekNext seeks to the first key >= key and reads up to n cells from
	// there; it returns how many it read.
	SeekNext(key []byte, n int) (int, error)
	Close() error
}

// Engine opens a DB in a directory with a block cache of cache bytes.
type Engine struct {
	Name string
	Open func(dir string, cache int64) (DB, error)
}

// Engine names the reports compare.
const (
	KvencName       = "kvenc"       // the ratio columns compare against it
	KvencSetName    = "kvenc-set"   // kvenc with Options.KvencSettings
	BadgerName      = "badger"      // Badger's defaults: Snappy, 4 KiB blocks
	BadgerNoneName  = "badger-none" // no compression
	BadgerZstdName  = "badger-zstd"
	PebbleName      = "pebble" // Pebble's defaults: Snappy
	PebbleZstdName  = "pebble-zstd"
	loadBatch       = 1000 // cells per write batch, for every engine
	defaultZipfSkew = 1.2
)

// Engines returns kvenc's store with its default options, raw Badger with
// its defaults, without compression and with ZSTD, then Pebble with its
// defaults (Snappy) and with ZSTD.
func Engines() []Engine {
	return []Engine{
		{KvencName, openKvenc},
		{BadgerName, openBadger(badgerSnappy)},
		{BadgerNoneName, openBadger(badgerNone)},
		{BadgerZstdName, openBadger(badgerZstd)},
		{PebbleName, openPebble(false)},
		{PebbleZstdName, openPebble(true)},
	}
}

// EngineByName returns the engine called name.
func EngineByName(name string) (Engine, bool) {
	for _, e := range Engines() {
		if e.Name == name {
			return e, true
		}
	}
	return Engine{}, false
}

// sink keeps the compiler from dropping reads.
var sink int
