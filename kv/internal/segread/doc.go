// Package segread reads the blocks of a Store's segments from its engine
// (package kv/engine): point lookups (Reader.Get), block reads through the
// block cache (Reader.ReadBlock), cursors that read one segment's blocks
// in order through one engine iterator (Cursor), and Sources that walk a
// segment cell by cell, newest visible version per key or every version,
// with a read-ahead goroutine for scans (Source).
//
// A block read after a cache miss copies the engine's bytes once: into an
// exact-size slice that goes into the cache, or into a pooled, reference
// counted buffer (cache.Pool) when the block is not to be cached (a first
// miss of a random read, a scan through a store bigger than the cache,
// compaction). Cached blocks are shared without reference counting.
//
// Errors from a block's bytes wrap blockenc.ErrCorrupt and name the
// segment and block; a block missing from the engine is ErrCorrupt too.
// A Reader serves one Store: its Config says how it reaches the Store's
// engine, keys, cache and closing state.
package segread
