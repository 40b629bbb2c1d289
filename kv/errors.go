package kv

import (
	"errors"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/internal/space"
)

// Errors. Every error kv returns about bad stored bytes wraps ErrCorrupt and
// says where (segment, block, WAL seq); test with errors.Is.
var (
	// ErrNotFound: Get found no live value for the key.
	ErrNotFound = errors.New("kv: not found")
	// ErrClosed: the Store (or the Snapshot or Iterator) was closed.
	ErrClosed = errors.New("kv: closed")
	// ErrCorrupt: stored bytes (a block, a segment meta, a WAL record or
	// the block index) are not what kv wrote. It is blockenc.ErrCorrupt
	// itself, so errors.Is(err, blockenc.ErrCorrupt) and
	// errors.Is(err, kv.ErrCorrupt) agree on every error.
	ErrCorrupt = blockenc.ErrCorrupt
	// ErrTooLarge: a key, value or batch beyond the limits below, or a
	// batch too big for one Badger transaction.
	ErrTooLarge = errors.New("kv: too large")
	// ErrInvalidOptions: Options that cannot work (see Options).
	ErrInvalidOptions = errors.New("kv: invalid options")
	// ErrPrefixInUse: Open or Wrap of a Prefix that another Store holds
	// open in this process, whose namespace overlaps a Store registered in
	// the DB, or whose namespace holds keys kv did not write.
	ErrPrefixInUse = errors.New("kv: prefix in use")
	// ErrFormat: the Store under the Prefix was written in a format this
	// version does not read (the error says which and what to do).
	ErrFormat = errors.New("kv: unsupported store format")
	// ErrReadOnly: a write (Put, Apply, Flush, Compact) on a Store opened
	// with Options.ReadOnly.
	ErrReadOnly = errors.New("kv: read-only store")
	// ErrLeaseLost: the writer's lease on the Prefix (Options.Lease) ran
	// out or another writer took the Prefix over: the write failed and the
	// Store writes nothing more; reopen it to write again.
	ErrLeaseLost = errors.New("kv: lease lost")
	// ErrNoSpace: a write (or Flush, Compact) that does not fit in the
	// free space of the Store's filesystem less Options.Reserve, or that
	// the filesystem refused as full (ENOSPC, EDQUOT). Nothing of it was
	// written; reads go on, and writes succeed again once space is freed.
	ErrNoSpace = space.ErrNoSpace
)

// Limits on one cell. A value is stored whole in one block, and a block
// must stay well below the 1 MiB that in-memory Badger cannot store.
const (
	MaxKeySize   = 16 << 10  // 16 KiB
	MaxValueSize = 256 << 10 // 256 KiB
)
