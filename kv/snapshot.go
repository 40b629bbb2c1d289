package kv

import (
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/kvenc/kvenc/mvcc"
)

// Snapshot is a consistent read-only view of the Store at one read point:
// writes after it are not seen, and flush and compaction keep what it sees
// until Close.
type Snapshot struct {
	s      *Store
	snap   *mvcc.Snapshot
	seq    uint64
	closed atomic.Bool
}

// Snapshot pins the current read point.
func (s *Store) Snapshot() *Snapshot {
	s.snapMu.Lock()
	ms := s.tracker.Snapshot()
	s.snaps[ms.Seq()]++
	s.snapMu.Unlock()
	return &Snapshot{s: s, snap: ms, seq: ms.Seq()}
}

// Seq returns the snapshot's read point.
func (sn *Snapshot) Seq() uint64 { return sn.seq }

// Get returns a copy of key's value as of the snapshot, or ErrNotFound.
func (sn *Snapshot) Get(key []byte) ([]byte, error) {
	if sn.closed.Load() {
		return nil, sn.errClosed()
	}
	return sn.s.get(key, sn.seq, true)
}

// NewIterator returns an Iterator at the snapshot's read point. It pins
// the read point itself, so it may outlive the Snapshot's Close.
func (sn *Snapshot) NewIterator(o IterOptions) *Iterator {
	if sn.closed.Load() {
		it := &Iterator{s: sn.s}
		it.m.Fail(sn.errClosed())
		return it
	}
	return sn.s.newIterator(o, sn.seq, true)
}

// errClosed is ErrClosed naming the Snapshot.
func (sn *Snapshot) errClosed() error {
	return fmt.Errorf("%w: snapshot at seq %d of store %q", ErrClosed, sn.seq, sn.s.opts.Prefix)
}

// Close releases the snapshot. Closing it again does nothing.
func (sn *Snapshot) Close() error {
	if sn.closed.CompareAndSwap(false, true) {
		sn.s.unpin(sn.seq)
		sn.snap.Release()
	}
	return nil
}

// gcPoints returns the read point and every pinned read point (snapshots
// and iterators), ascending with the read point last. Both are taken under
// snapMu, so a snapshot taken later pins a seq at or above the read point.
func (s *Store) gcPoints() (rp uint64, points []uint64) {
	s.snapMu.Lock()
	defer s.snapMu.Unlock()
	rp = s.tracker.ReadPoint()
	for p := range s.snaps {
		if p < rp {
			points = append(points, p)
		}
	}
	slices.Sort(points)
	return rp, append(points, rp)
}
