// Package engine is kv's storage seam: the few things kv needs of an
// ordered, transactional key-value store to keep its blocks, segment
// metas, WAL records (where they live in the store), range tombstones (in
// the metas) and its registry entry. Badger (package badgereng) sits
// behind it for kv.Open and kv.Wrap; another engine (a distributed store,
// a fault injector in tests) is one package implementing Engine, and
// kv.OpenEngine opens a Store on it. The package is public so that an
// engine may live in a module of its own (whose dependencies a user who
// stays on Badger never downloads); it is the seam between kv and its
// engines, not an API for applications.
//
// An Engine holds byte-string keys in bytes.Compare order, each with one
// value (no versions visible to kv). kv needs:
//
//   - Get: a point read of one key, the value lent to a callback;
//   - Write: an atomic batch of sets and deletes (all of it or nothing,
//     also across a crash);
//   - NewIter: iteration over a key range [Lower, Upper), forward or
//     backward, with a seek;
//   - DeleteRange: the deletion of every key in a range;
//   - a hint, per set, that a value is large (a block): an engine that
//     places large values apart (Badger's value log) may use it.
//
// Reads see every Write (and DeleteRange) that returned before they
// began; the keys of a Write of a batch marked unseen (Batch.SetUnseen),
// at least once a later Write without the mark returned. kv writes each block key once and never overwrites it, and
// writes a segment's meta only after its blocks: an engine whose reads
// are snapshots may cache one as long as this holds.
//
// Features only some engines have are optional interfaces, found by a
// type assertion: AsyncWriter (a write that overlaps the caller's work),
// Refresher (reads pinned at a moment), Syncer (writes made durable on
// request) and Reclaimer (space of deleted keys given back on request, as Badger's
// DropPrefix and value-log GC).
//
// Errors: ErrNotFound for a missing key, ErrTooLarge for a batch beyond
// what one transaction holds, ErrInjected for a fault a test injected;
// everything else is the engine's own error, which kv wraps.
package engine

import "errors"

// Errors common to every engine; test with errors.Is.
var (
	// ErrNotFound: Get of a key that is not there.
	ErrNotFound = errors.New("engine: key not found")
	// ErrTooLarge: a batch larger than one transaction of the engine
	// holds. The engine's error wrapping it says the limit; kv splits a
	// batch that need not be atomic and reports one that must be.
	ErrTooLarge = errors.New("engine: batch too large for one transaction")
	// ErrInjected: a fault injected by a test engine (package
	// enginetest).
	ErrInjected = errors.New("engine: injected fault")
)

// Engine is an ordered, transactional key-value store as kv uses it. All
// methods are safe for concurrent use.
type Engine interface {
	// Get calls v.View with the value of key, which is valid only during
	// the call, and returns its error; ErrNotFound (wrapped or not) when
	// key is absent.
	Get(key []byte, v Viewer) error
	// NewIter returns an iterator over the keys in [o.Lower, o.Upper),
	// forward or (o.Reverse) backward. Close it when done: it may hold a
	// snapshot of the engine.
	NewIter(o IterOptions) (Iter, error)
	// Write applies every operation of b atomically, in order (a later
	// operation on a key wins). A batch that does not fit in one
	// transaction fails with an error wrapping ErrTooLarge and writes
	// nothing. The keys and values of b must not change until Write
	// returns.
	Write(b *Batch) error
	// DeleteRange deletes every key in [start, end). It need not be
	// atomic: when it fails, some of the keys may be deleted.
	DeleteRange(start, end []byte) error
	// Err returns the error every call would fail with now (the store
	// was closed under kv), or nil. It is cheap: kv asks it on every
	// read.
	Err() error
	// Close releases what the engine holds; an engine over a store its
	// caller owns leaves that store open.
	Close() error
}

// Viewer receives a value an engine lends it for the duration of View.
// (An interface rather than a func: a reader on the hot path passes a
// pooled Viewer, where a closure passed through an interface method
// would be allocated on every call.)
type Viewer interface {
	View(value []byte) error
}

// ViewFunc is a func as a Viewer.
type ViewFunc func(value []byte) error

// View calls f.
func (f ViewFunc) View(value []byte) error { return f(value) }

// IterOptions bound an iterator: Lower inclusive, Upper exclusive, nil
// unbounded; Reverse iterates in descending key order.
type IterOptions struct {
	Lower, Upper []byte
	Reverse      bool
}

// Iter walks the keys of an Engine in one direction. Its Key is valid
// until the next move; the value is lent to Value's callback.
type Iter interface {
	// First moves to the first key in the direction of the iterator: the
	// lowest key at or above Lower, or backward the highest below Upper.
	First() bool
	// Seek moves to the first key at or above key (backward: the last key
	// at or below key), within the bounds.
	Seek(key []byte) bool
	// Next moves one key on in the iterator's direction.
	Next() bool
	// Valid reports whether the iterator is on a key.
	Valid() bool
	// Key returns the current key, valid until the next move.
	Key() []byte
	// Value calls v.View with the current value, valid only during the
	// call, and returns its error.
	Value(v Viewer) error
	// Err returns the error that stopped the iterator, or nil.
	Err() error
	// Close releases the iterator.
	Close() error
}

// AsyncWriter is an engine that can commit a batch while its caller goes
// on: WriteAsync returns once b is handed over and calls done with the
// outcome of the commit, possibly from another goroutine; b's bytes must
// not change until then. When b cannot be handed over (too large, the
// engine closed) it returns the error, writes nothing and does not call
// done. kv uses it for WAL records in the engine, so that putting a
// write's cells into the memstore overlaps their commit.
type AsyncWriter interface {
	WriteAsync(b *Batch, done func(error)) error
}

// Refresher is an engine whose reads may lag the writes of others (a
// snapshot of a distributed store, Badger's lent read transactions). kv
// calls Refresh from Store.Refresh of a ReadOnly Store, before it lists
// the segments: reads from then on see at least every write committed
// before the call. An engine may read at that moment until the next
// Refresh (TiKV does), so the segments listed stay readable while their
// writer compacts them away.
type Refresher interface {
	Refresh() error
}

// Syncer is an engine whose writes may sit in the operating system's
// buffers when they return (Badger without SyncWrites): Sync makes every
// write that returned before it durable (fsynced). kv calls it from
// Store.Sync.
type Syncer interface {
	Sync() error
}

// Reclaimer is an engine that gives back the space of deleted keys only
// when asked (Badger drops a deleted key only when its table reaches the
// last level of its tree).
type Reclaimer interface {
	// DropPrefixes drops every key under each of prefixes now. It may
	// block or fail the engine's other writes while it runs (Badger's
	// DropPrefix does); an engine may skip a prefix under which no live
	// key is left, so the caller sets one first.
	DropPrefixes(prefixes ...[]byte) error
	// CollectGarbage rewrites or deletes up to files of the engine's
	// files in which at least ratio of the bytes are deleted (Badger's
	// value-log GC). It does nothing where the engine has no such files
	// or shares them with a caller. The caller runs it while it writes
	// nothing.
	CollectGarbage(files int, ratio float64)
	// Shared reports whether the store is shared with the caller's own
	// writes (kv.Wrap), which DropPrefixes would block: kv then drops
	// only on request (Store.Reclaim).
	Shared() bool
}
