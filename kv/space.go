package kv

import (
	"errors"
	"io/fs"
	"syscall"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/kvenc/kvenc/kv/internal/segment"
	"github.com/kvenc/kvenc/kv/internal/space"
)

// walChunkSize is how much of a WAL file is allocated ahead at a time:
// each chunk is admitted by the space Gate and preallocated, so that the
// records written into it take no space the Gate did not count, and a
// write there cannot fail for lack of space.
func walChunkSize(memstoreSize int64) int64 {
	return min(max(memstoreSize/8, 64<<10), 1<<20)
}

// newGate returns the space Gate of a Store whose files are on the
// filesystem of dir, with vlogFileSize the engine's value-log file size;
// nil (no checks) for a DB in memory or a negative Reserve.
func newGate(dir string, o Options, vlogFileSize int64) *space.Gate {
	if dir == "" || o.Reserve < 0 {
		return nil
	}
	reserve := o.Reserve
	if reserve == 0 {
		reserve = defaultReserve(o.MemstoreSize, vlogFileSize, dir)
	}
	return space.NewGate(dir, nil, reserve)
}

// defaultReserve is Options.Reserve's default: a memstore's flush (of
// at most minShortArena bytes: short of space, memstores are that small,
// see shortArena) and half a value-log file (what GC
// rewrites of a file half discarded), at most an eighth of the
// filesystem, so that a small volume still takes writes.
func defaultReserve(memstoreSize, vlogFileSize int64, dir string) int64 {
	r := min(memstoreSize, minShortArena) + vlogFileSize/2
	if u, err := space.Statfs(dir); err == nil && u.Total > 0 {
		r = min(r, u.Total/8)
	}
	return r
}

// gateDir returns the directory whose filesystem holds db's values: its
// ValueDir, where the value log (the bulk of the Store's bytes) lives;
// "" for a DB in memory.
func gateDir(db *badger.DB) string {
	o := db.Opts()
	if o.InMemory {
		return ""
	}
	if o.ValueDir != "" {
		return o.ValueDir
	}
	return o.Dir
}

// engineWriteBytes bounds the bytes an engine write of n bytes of keys and
// values in ops operations takes on disk before the engine's own
// compactions: Badger logs each entry in its memtable log and, for values
// at or above ValueThreshold, in the value log, with a header of up to
// about 30 bytes each time.
func engineWriteBytes(n, ops int) int64 { return 2 * int64(n+64*ops) }

// admitWrite admits the engine write of a WAL record of n bytes in ops
// chunks.
func (s *Store) admitWrite(op string, n, chunks int) error {
	return s.space.Admit(op, engineWriteBytes(n, chunks), space.Write)
}

// flushNeed bounds the bytes a flush of mt writes: its WAL file's bytes
// (the cells as written, which blocks do not outgrow by more than their
// headers, counted as 1/16) when it has one, else its arena's bytes in
// use, which also count the skiplist's nodes.
func flushNeed(mt *memtable) int64 {
	if n := mt.wal.Written(); n > 0 {
		return n + n/16 + mt.rangeBytes.Load()
	}
	return mt.ms.Size() + mt.rangeBytes.Load()
}

// gcNeed is what a value-log GC pass rewrites at most per file: the live
// part of a file at least ratio discarded.
func (s *Store) gcNeed(ratio float64) int64 {
	return int64(float64(s.vlogFileSize) * (1 - ratio))
}

// fatalIO reports whether err, of a background flush or compaction, is an
// I/O fault of the filesystem other than a lack of space (EIO, a
// read-only remount): the Store then stops writing (see failed) rather
// than retry it at every write.
func fatalIO(err error) bool {
	if err == nil || errors.Is(err, ErrNoSpace) {
		return false
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno != syscall.ENOSPC && errno != syscall.EDQUOT
	}
	var pe *fs.PathError
	return errors.As(err, &pe)
}

// spaceStats fills the Stats fields of the space Gate.
func (s *Store) spaceStats(st *Stats) {
	if s.space == nil {
		return
	}
	st.ReservedBytes = s.space.Reserve()
	if u, err := s.space.Usage(); err == nil {
		st.FreeBytes = u.Free
	}
}

// skipNoSpace returns nil for an error wrapping ErrNoSpace: a background
// compaction or GC pass without room waits for a later run (the writes
// meet the lack of space themselves), and err otherwise.
func skipNoSpace(err error) error {
	if errors.Is(err, ErrNoSpace) {
		return nil
	}
	return err
}

// fitTier trims in, a tier picked for a background compaction (newest
// first), to its newest segments whose bytes take at most half the room
// a compaction has and a sixteenth of the filesystem: a compaction
// writes its output before its inputs' space comes back (after value-log
// GC), and the writes go on meanwhile, so on a filling volume a large one
// would stop them for its whole run. It returns nil when not even two
// segments fit.
func (s *Store) fitTier(in []*segment.Segment) []*segment.Segment {
	budget := min(s.space.Room(space.Reclaim)/2, s.space.Total()/16)
	var sum int64
	for i, g := range in {
		sum += int64(g.Meta.Bytes)
		if sum > budget {
			in = in[:i]
			break
		}
	}
	if len(in) < 2 {
		return nil
	}
	return in
}
