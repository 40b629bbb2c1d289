package kv

import (
	"bytes"
	"fmt"
	"math"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/engine"
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
	s      *Store
	rp     uint64
	lower  []byte
	upper  []byte
	srcs   []source
	segs   []*segment.Segment
	key    []byte
	val    []byte
	valid  bool
	err    error
	closed bool
	// closedErr is err after Close, kept here so that Close formats and
	// allocates nothing (a seek's iterator lives a few microseconds).
	closedErr iterClosedError
	adv       []byte // copy of the key being left behind
	// best is the source of the current key, alone when it is the only
	// source not exhausted: then Next (Prev) moves it without comparing
	// keys.
	best  source
	alone bool
	// dels decides which cells the range tombstones of every source hide.
	dels rangedel.Check
	// back: the last positioning move went backward, so the sources are
	// positioned for Prev. positioned: a First, SeekGE, Last or SeekLT has
	// run since NewIterator or SetBounds, so an Iterator that ran off one
	// end can turn back from it.
	back       bool
	positioned bool
}

// NewIterator returns an unpositioned Iterator over the Store's current
// state (later writes are not seen): call First, SeekGE, Last or SeekLT.
func (s *Store) NewIterator(o IterOptions) *Iterator {
	return s.newIterator(o, 0, false)
}

func (s *Store) newIterator(o IterOptions, rp uint64, pinned bool) *Iterator {
	it := &Iterator{s: s}
	it.lower, it.upper = iterBounds(o)
	s.snapMu.Lock()
	if !pinned {
		rp = s.tracker.ReadPoint()
	}
	s.snaps[rp]++
	s.snapMu.Unlock()
	it.rp = rp

	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed.Load() {
		it.err = s.errClosed()
	} else {
		it.err = s.dbClosed()
		if it.err == nil {
			it.err = s.failed()
		}
	}
	if it.err != nil {
		it.closed = true
		s.unpin(rp)
		return it
	}
	var dels []*rangedel.Set
	// A memstore without cells gets no source: every write at or below
	// rp has completed, its cells added, so none it gets later is seen.
	if s.active.ms.Len() > 0 {
		it.srcs = append(it.srcs, &memSource{it: s.active.ms.NewIterator(rp, false), max: math.MaxUint64})
	}
	dels = append(dels, s.active.dels.Load())
	for _, mt := range s.frozen {
		if mt.ms.Len() > 0 {
			it.srcs = append(it.srcs, &memSource{it: mt.ms.NewIterator(rp, false), max: mt.hi})
		}
		dels = append(dels, mt.dels.Load())
	}
	for _, g := range s.segs {
		g.Refs.Add(1)
		it.segs = append(it.segs, g)
		it.srcs = append(it.srcs, &segSource{s: s, g: g, rp: rp, fill: true, bi: -1, iter: it})
	}
	dels = append(dels, s.segDels)
	it.dels = rangedel.NewCheck(rangedel.Union(dels...), rp)
	return it
}

// live reports whether c, the newest version of its key at the read
// point, is a live Value: a Put that no range tombstone hides. It is the
// Iterator's one visibility decision, whatever the direction.
func (it *Iterator) live(c *blockenc.Cell) bool {
	// Inlined: without range tombstones a cell costs one more nil test.
	return c.Kind == blockenc.KindPut && (it.dels.None() || !it.dels.Hides(c.Key, c.Seq))
}

// skipDeleted is called on c, a cell that is not live. When a range
// tombstone hides it, every source whose cells are all older than the
// tombstone and that stands inside the tombstone's fragment moves past the
// fragment with one seek (to its end forward, before its start backward),
// so a deleted range costs a seek per source rather than a step per cell.
// It reports whether it moved a source (c may then be stale).
func (it *Iterator) skipDeleted(c *blockenc.Cell) bool {
	f, cover, ok := it.dels.Deleter(c.Key, c.Seq)
	if !ok {
		return false
	}
	moved := false
	for _, src := range it.srcs {
		if src.maxSeq() >= cover {
			continue
		}
		// Every source stands at or beyond c in the direction of travel,
		// and c is inside the fragment.
		k := src.cur()
		switch {
		case k == nil:
		case !it.back && bytes.Compare(k.Key, f.End) < 0:
			src.seekGE(f.End)
			moved = true
		case it.back && bytes.Compare(k.Key, f.Start) >= 0:
			src.seekLT(f.Start)
			moved = true
		}
	}
	return moved
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
	if it.closed {
		return
	}
	it.lower, it.upper = cloneBound(lower), cloneBound(upper)
	it.valid, it.alone, it.positioned = false, false, false
	it.key, it.val = nil, nil
}

// First moves to the first key (at or above LowerBound).
func (it *Iterator) First() bool {
	if it.lower != nil {
		return it.SeekGE(it.lower)
	}
	if it.closed {
		return false
	}
	for _, src := range it.srcs {
		src.first()
	}
	it.start(false)
	return it.find()
}

// SeekGE moves to the first key >= key (and >= LowerBound).
func (it *Iterator) SeekGE(key []byte) bool {
	if it.closed {
		return false
	}
	if it.lower != nil && bytes.Compare(key, it.lower) < 0 {
		key = it.lower
	}
	for _, src := range it.srcs {
		src.seekGE(key)
	}
	it.start(false)
	return it.find()
}

// Last moves to the last key (below UpperBound).
func (it *Iterator) Last() bool {
	if it.upper != nil {
		return it.SeekLT(it.upper)
	}
	if it.closed {
		return false
	}
	for _, src := range it.srcs {
		src.last()
	}
	it.start(true)
	return it.findBack()
}

// SeekLT moves to the last key < key (and < UpperBound).
func (it *Iterator) SeekLT(key []byte) bool {
	if it.closed {
		return false
	}
	if it.upper != nil && bytes.Compare(key, it.upper) > 0 {
		key = it.upper
	}
	for _, src := range it.srcs {
		src.seekLT(key)
	}
	it.start(true)
	return it.findBack()
}

// start records a positioning move in the direction back says.
func (it *Iterator) start(back bool) {
	it.alone, it.back, it.positioned = false, back, true
}

// Next moves to the next key. After a backward move that ran off the
// start (Prev or SeekLT returned false without an error) it moves to the
// first key, as First does; after a forward one it returns false.
func (it *Iterator) Next() bool {
	if !it.valid || it.back {
		return it.turnForward()
	}
	if it.alone {
		if ss, ok := it.best.(*segSource); ok {
			ss.next()
			return it.findSeg(ss)
		}
		it.best.next()
	} else {
		it.advance(it.key)
	}
	return it.find()
}

// turnForward is Next off an end or after a backward move: every source
// to the key after the current one.
func (it *Iterator) turnForward() bool {
	if !it.valid {
		if it.back && it.positioned && it.err == nil {
			return it.First()
		}
		return false
	}
	it.adv = append(it.adv[:0], it.key...)
	for _, src := range it.srcs {
		src.seekGE(it.adv)
	}
	it.start(false)
	it.advance(it.adv)
	return it.find()
}

// Prev moves to the previous key. After a forward move that ran off the
// end (Next, First or SeekGE returned false without an error) it moves to
// the last key, as Last does; after a backward one it returns false.
func (it *Iterator) Prev() bool {
	if !it.valid || !it.back {
		return it.turnBack()
	}
	if it.alone {
		if ss, ok := it.best.(*segSource); ok {
			ss.prev()
			return it.findSegBack(ss)
		}
		it.best.prev()
	} else {
		it.retreat(it.key)
	}
	return it.findBack()
}

// turnBack is Prev off an end or after a forward move: every source to
// the key before the current one.
func (it *Iterator) turnBack() bool {
	if !it.valid {
		if !it.back && it.positioned && it.err == nil {
			return it.Last()
		}
		return false
	}
	it.adv = append(it.adv[:0], it.key...)
	for _, src := range it.srcs {
		src.seekLT(it.adv)
	}
	it.start(true)
	return it.findBack()
}

// advance moves every source at key past it.
func (it *Iterator) advance(key []byte) {
	it.adv = append(it.adv[:0], key...)
	for _, src := range it.srcs {
		if c := src.cur(); c != nil && bytes.Equal(c.Key, it.adv) {
			src.next()
		}
	}
}

// retreat moves every source at key before it.
func (it *Iterator) retreat(key []byte) {
	it.adv = append(it.adv[:0], key...)
	for _, src := range it.srcs {
		if c := src.cur(); c != nil && bytes.Equal(c.Key, it.adv) {
			src.prev()
		}
	}
}

// findSeg is find when ss is the only source not exhausted: the common
// full scan of a compacted Store, without an interface call per cell.
// It and findSegBack are the two directions of one loop, written out so
// that neither pays a direction test per cell.
func (it *Iterator) findSeg(ss *segSource) bool {
	for {
		if !ss.ok {
			it.valid = false
			it.err = ss.e
			return false
		}
		c := ss.c
		if it.upper != nil && bytes.Compare(c.Key, it.upper) >= 0 {
			it.valid = false
			return false
		}
		if it.live(c) {
			it.key, it.val, it.valid = c.Key, c.Value, true
			return true
		}
		if !it.skipDeleted(c) {
			ss.next()
		}
	}
}

// findSegBack is findSeg moving backward.
func (it *Iterator) findSegBack(ss *segSource) bool {
	for {
		if !ss.ok {
			it.valid = false
			it.err = ss.e
			return false
		}
		c := ss.c
		if it.lower != nil && bytes.Compare(c.Key, it.lower) < 0 {
			it.valid = false
			return false
		}
		if it.live(c) {
			it.key, it.val, it.valid = c.Key, c.Value, true
			return true
		}
		if !it.skipDeleted(c) {
			ss.prev()
		}
	}
}

// find settles on the smallest key among the sources whose newest version
// is live, skipping the others.
func (it *Iterator) find() bool {
	it.valid = false
	for it.alone {
		// Every other source is exhausted (they stay so): no merge.
		c := it.best.cur()
		if c == nil {
			it.err = it.best.err()
			return false
		}
		if it.upper != nil && bytes.Compare(c.Key, it.upper) >= 0 {
			return false
		}
		if it.live(c) {
			it.key, it.val, it.valid = c.Key, c.Value, true
			return true
		}
		if !it.skipDeleted(c) {
			it.best.next()
		}
	}
	for {
		best := it.pick(false)
		if best == nil || it.upper != nil && bytes.Compare(best.Key, it.upper) >= 0 {
			return false
		}
		if it.live(best) {
			it.key, it.val, it.valid = best.Key, best.Value, true
			return true
		}
		if it.skipDeleted(best) {
			continue
		}
		if it.alone {
			it.best.next()
			continue
		}
		it.advance(best.Key)
	}
}

// findBack is find moving backward: it settles on the largest key among
// the sources whose newest version is live.
func (it *Iterator) findBack() bool {
	it.valid = false
	for it.alone {
		c := it.best.cur()
		if c == nil {
			it.err = it.best.err()
			return false
		}
		if it.lower != nil && bytes.Compare(c.Key, it.lower) < 0 {
			return false
		}
		if it.live(c) {
			it.key, it.val, it.valid = c.Key, c.Value, true
			return true
		}
		if !it.skipDeleted(c) {
			it.best.prev()
		}
	}
	for {
		best := it.pick(true)
		if best == nil || it.lower != nil && bytes.Compare(best.Key, it.lower) < 0 {
			return false
		}
		if it.live(best) {
			it.key, it.val, it.valid = best.Key, best.Value, true
			return true
		}
		if it.skipDeleted(best) {
			continue
		}
		if it.alone {
			it.best.prev()
			continue
		}
		it.retreat(best.Key)
	}
}

// pick returns the cell the merge shows next: among the sources' current
// cells the smallest key (the largest with back), of one key the highest
// seq. Every source shows per key its newest version at the read point in
// both directions, so that is the key's newest version. It sets it.best
// to its source and it.alone when no other source has a cell; it returns
// nil when none has one or a source failed (it.err).
func (it *Iterator) pick(back bool) *blockenc.Cell {
	var best *blockenc.Cell
	n := 0
	for _, src := range it.srcs {
		c := src.cur()
		if c == nil {
			if err := src.err(); err != nil {
				it.err = err
				return nil
			}
			continue
		}
		n++
		if best == nil {
			best, it.best = c, src
			continue
		}
		d := bytes.Compare(c.Key, best.Key)
		if back {
			d = -d
		}
		if d < 0 || (d == 0 && c.Seq > best.Seq) {
			best, it.best = c, src
		}
	}
	it.alone = n == 1
	return best
}

// Valid reports whether the Iterator is on a key.
func (it *Iterator) Valid() bool { return it.valid }

// Key returns the current key, nil when not Valid: valid until the next
// move; do not modify.
func (it *Iterator) Key() []byte {
	if !it.valid {
		return nil
	}
	return it.key
}

// Value returns the current value, nil when not Valid: valid until the
// next move; do not modify.
func (it *Iterator) Value() []byte {
	if !it.valid {
		return nil
	}
	return it.val
}

// Err returns the error that stopped the Iterator, or nil; after Close,
// ErrClosed (naming the iterator) unless an error stopped it before.
func (it *Iterator) Err() error { return it.err }

// Close releases the Iterator's segments and read point. It returns the
// error that stopped the Iterator, or nil; closing it again returns nil.
// After Close every move returns false and Err returns the error that
// stopped it or ErrClosed.
func (it *Iterator) Close() error {
	if it.closed {
		return nil
	}
	err := it.err
	if it.err == nil {
		it.closedErr = iterClosedError{rp: it.rp, prefix: it.s.opts.Prefix}
		it.err = &it.closedErr
	}
	it.closed = true
	it.valid = false
	for _, src := range it.srcs {
		src.close()
	}
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

// versionMerge merges sources in all-versions mode in cell order (key
// ascending, seq descending), for compaction.
type versionMerge struct {
	srcs []source
}

// next returns the smallest cell and advances its source; nil at the end
// or on error (see err).
func (m *versionMerge) next(emit func(blockenc.Cell) error) error {
	for _, src := range m.srcs {
		src.first()
	}
	for {
		var best source
		var bc *blockenc.Cell
		for _, src := range m.srcs {
			c := src.cur()
			if c == nil {
				if err := src.err(); err != nil {
					return err
				}
				continue
			}
			if bc == nil || blockenc.Compare(*c, *bc) < 0 {
				best, bc = src, c
			}
		}
		if bc == nil {
			return nil
		}
		if err := emit(*bc); err != nil {
			return err
		}
		best.next()
	}
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
