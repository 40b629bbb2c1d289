package kv

import (
	"fmt"
	"math"

	"github.com/kvenc/kvenc/kv/engine"
	"github.com/kvenc/kvenc/kv/internal/merge"
	"github.com/kvenc/kvenc/kv/internal/rangedel"
	"github.com/kvenc/kvenc/kv/internal/segment"
)

// Iterator walks the live keys of a Store at one read point, forward in
// ascending order (First, SeekGE, Next) or backward (Last, SeekLT, Prev),
// merging the memstores and the segments. It may change direction at any
// key. Key and Value are valid until the next move. An Iterator is used by
// one goroutine; Close it: in the middle of a scan it holds a Badger read
// transaction (see the package doc on blocks and what a read costs).
//
// An Iterator that stops because of an error is not Valid and Err returns
// the error (wrapping ErrCorrupt for bad blocks): it never just ends early.
type Iterator struct {
	m    merge.Iter
	s    *Store
	rp   uint64
	segs []*segment.Segment
	// closedErr is Err after Close, kept here so that Close formats and
	// allocates nothing (a seek's iterator lives a few microseconds).
	closedErr iterClosedError
}

// NewIterator returns an unpositioned Iterator over the Store's current
// state (later writes are not seen): call First, SeekGE, Last or SeekLT.
func (s *Store) NewIterator(o IterOptions) *Iterator {
	return s.newIterator(o, 0, false)
}

func (s *Store) newIterator(o IterOptions, rp uint64, pinned bool) *Iterator {
	s.yieldToWrites()
	it := &Iterator{s: s}
	it.m.Bounds.Lower, it.m.Bounds.Upper = iterBounds(o)
	s.snapMu.Lock()
	if !pinned {
		rp = s.tracker.ReadPoint()
	}
	s.snaps[rp]++
	s.snapMu.Unlock()
	it.rp = rp

	s.mu.RLock()
	defer s.mu.RUnlock()
	var err error
	if s.closed.Load() {
		err = s.errClosed()
	} else if err = s.dbClosed(); err == nil {
		err = s.failed()
	}
	if err != nil {
		it.m.Fail(err)
		s.unpin(rp)
		return it
	}
	var srcs []merge.Source
	var dels []*rangedel.Set
	// A memstore without cells gets no source: every write at or below
	// rp has completed, its cells added, so none it gets later is seen.
	if s.active.ms.Len() > 0 {
		srcs = append(srcs, merge.NewMem(s.active.ms.NewIterator(rp, false), math.MaxUint64))
	}
	dels = append(dels, s.active.dels.Load())
	for _, mt := range s.frozen {
		if mt.ms.Len() > 0 {
			srcs = append(srcs, merge.NewMem(mt.ms.NewIterator(rp, false), mt.hi))
		}
		dels = append(dels, mt.dels.Load())
	}
	for _, g := range s.segs {
		g.Refs.Add(1)
		it.segs = append(it.segs, g)
		srcs = append(srcs, s.rd.NewSource(g, rp, &it.m.Bounds))
	}
	dels = append(dels, s.segDels)
	it.m.Init(srcs, rangedel.NewCheck(rangedel.Union(dels...), rp))
	return it
}

// iterBounds returns copies of the bounds o sets, Prefix winning over
// LowerBound and UpperBound.
func iterBounds(o IterOptions) (lower, upper []byte) {
	if o.Prefix != nil {
		return clone(o.Prefix), engine.PrefixEnd(o.Prefix)
	}
	return cloneBound(o.LowerBound), cloneBound(o.UpperBound)
}

// cloneBound copies a bound, keeping nil (unbounded) nil.
func cloneBound(b []byte) []byte {
	if b == nil {
		return nil
	}
	return clone(b)
}

// SetBounds changes the Iterator's bounds to lower (inclusive) and upper
// (exclusive), nil meaning unbounded, as IterOptions.LowerBound and
// UpperBound do; it copies both. The read point stays the same. The
// Iterator is then unpositioned (not Valid) until the next First, SeekGE,
// Last or SeekLT. After Close it does nothing.
func (it *Iterator) SetBounds(lower, upper []byte) {
	if it.m.Closed() {
		return
	}
	it.m.SetBounds(cloneBound(lower), cloneBound(upper))
}

// First moves to the first key (at or above LowerBound).
func (it *Iterator) First() bool { return it.m.First() }

// SeekGE moves to the first key >= key (and >= LowerBound).
func (it *Iterator) SeekGE(key []byte) bool { return it.m.SeekGE(key) }

// Last moves to the last key (below UpperBound).
func (it *Iterator) Last() bool { return it.m.Last() }

// SeekLT moves to the last key < key (and < UpperBound).
func (it *Iterator) SeekLT(key []byte) bool { return it.m.SeekLT(key) }

// Next moves to the next key. After a backward move that ran off the
// start (Prev or SeekLT returned false without an error) it moves to the
// first key, as First does; after a forward one it returns false.
func (it *Iterator) Next() bool {
	it.s.yieldToWrites()
	return it.m.Next()
}

// Prev moves to the previous key. After a forward move that ran off the
// end (Next, First or SeekGE returned false without an error) it moves to
// the last key, as Last does; after a backward one it returns false.
func (it *Iterator) Prev() bool {
	it.s.yieldToWrites()
	return it.m.Prev()
}

// Valid reports whether the Iterator is on a key.
func (it *Iterator) Valid() bool { return it.m.Valid() }

// Key returns the current key, nil when not Valid: valid until the next
// move; do not modify.
func (it *Iterator) Key() []byte { return it.m.Key() }

// Value returns the current value, nil when not Valid: valid until the
// next move; do not modify.
func (it *Iterator) Value() []byte { return it.m.Value() }

// Err returns the error that stopped the Iterator, or nil; after Close,
// ErrClosed (naming the iterator) unless an error stopped it before.
func (it *Iterator) Err() error { return it.m.Err() }

// Close releases the Iterator's segments and read point. It returns the
// error that stopped the Iterator, or nil; closing it again returns nil.
// After Close every move returns false and Err returns the error that
// stopped it or ErrClosed.
func (it *Iterator) Close() error {
	if it.m.Closed() {
		return nil
	}
	var closedErr error
	if it.m.Err() == nil {
		it.closedErr = iterClosedError{rp: it.rp, prefix: it.s.opts.Prefix}
		closedErr = &it.closedErr
	}
	err := it.m.Close(closedErr)
	reap := false
	for _, g := range it.segs {
		if g.Refs.Add(-1) == 0 && g.Obsolete.Load() {
			reap = true
		}
	}
	it.s.unpin(it.rp)
	if reap {
		it.s.kickBackground()
	}
	return err
}

func (s *Store) unpin(rp uint64) {
	s.snapMu.Lock()
	if s.snaps[rp]--; s.snaps[rp] <= 0 {
		delete(s.snaps, rp)
	}
	s.snapMu.Unlock()
}

// iterClosedError is the error of a closed Iterator: ErrClosed, naming the
// iterator's read point and store.
type iterClosedError struct {
	rp     uint64
	prefix []byte
}

func (e *iterClosedError) Error() string {
	return fmt.Sprintf("%v: iterator at read point %d of store %q", ErrClosed, e.rp, e.prefix)
}

func (e *iterClosedError) Unwrap() error { return ErrClosed }
