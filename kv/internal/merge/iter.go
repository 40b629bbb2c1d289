package merge

import (
	"bytes"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/internal/rangedel"
	"github.com/kvenc/kvenc/kv/internal/segread"
)

// Iter is the merged walk of the live keys of a Store's sources at one
// read point, forward in ascending order (First, SeekGE, Next) or
// backward (Last, SeekLT, Prev), changing direction at any key. Key and
// Value are valid until the next move. It is used by one goroutine.
//
// An Iter that stops because of an error is not Valid and Err returns the
// error: it never just ends early.
type Iter struct {
	// Bounds are the walk's bounds, which the segments' Sources read
	// ahead within; set them with SetBounds once the Iter is in use.
	Bounds segread.Bounds
	srcs   []Source
	key    []byte
	val    []byte
	valid  bool
	err    error
	closed bool
	adv    []byte // copy of the key being left behind
	// best is the source of the current key, alone when it is the only
	// source not exhausted: then Next (Prev) moves it without comparing
	// keys.
	best  Source
	alone bool
	// dels decides which cells the range tombstones of every source hide.
	dels rangedel.Check
	// back: the last positioning move went backward, so the sources are
	// positioned for Prev. positioned: a First, SeekGE, Last or SeekLT has
	// run since Init or SetBounds, so an Iter that ran off one end can
	// turn back from it.
	back       bool
	positioned bool
}

// Init starts it, unpositioned, on srcs, whose cells dels hides where
// range tombstones cover them.
func (it *Iter) Init(srcs []Source, dels rangedel.Check) {
	it.srcs, it.dels = srcs, dels
}

// Fail closes it with err before any move: every move returns false and
// Err returns err.
func (it *Iter) Fail(err error) {
	it.err, it.closed = err, true
}

// Closed reports whether Close or Fail ran.
func (it *Iter) Closed() bool { return it.closed }

// Sources returns the Iter's sources (for tests).
func (it *Iter) Sources() []Source { return it.srcs }

// SetBounds changes the bounds to lower (inclusive) and upper
// (exclusive), nil meaning unbounded; it keeps both slices. The Iter is
// then unpositioned (not Valid) until the next First, SeekGE, Last or
// SeekLT. After Close it does nothing.
func (it *Iter) SetBounds(lower, upper []byte) {
	if it.closed {
		return
	}
	it.Bounds = segread.Bounds{Lower: lower, Upper: upper}
	it.valid, it.alone, it.positioned = false, false, false
	it.key, it.val = nil, nil
}

// live reports whether c, the newest version of its key at the read
// point, is a live Value: a Put that no range tombstone hides. It is the
// Iter's one visibility decision, whatever the direction.
func (it *Iter) live(c *blockenc.Cell) bool {
	// Inlined: without range tombstones a cell costs one more nil test.
	return c.Kind == blockenc.KindPut && (it.dels.None() || !it.dels.Hides(c.Key, c.Seq))
}

// skipDeleted is called on c, a cell that is not live. When a range
// tombstone hides it, every source whose cells are all older than the
// tombstone and that stands inside the tombstone's fragment moves past the
// fragment with one seek (to its end forward, before its start backward),
// so a deleted range costs a seek per source rather than a step per cell.
// It reports whether it moved a source (c may then be stale).
func (it *Iter) skipDeleted(c *blockenc.Cell) bool {
	f, cover, ok := it.dels.Deleter(c.Key, c.Seq)
	if !ok {
		return false
	}
	moved := false
	for _, src := range it.srcs {
		if src.MaxSeq() >= cover {
			continue
		}
		// Every source stands at or beyond c in the direction of travel,
		// and c is inside the fragment.
		k := src.Cur()
		switch {
		case k == nil:
		case !it.back && bytes.Compare(k.Key, f.End) < 0:
			src.SeekGE(f.End)
			moved = true
		case it.back && bytes.Compare(k.Key, f.Start) >= 0:
			src.SeekLT(f.Start)
			moved = true
		}
	}
	return moved
}

// First moves to the first key (at or above LowerBound).
func (it *Iter) First() bool {
	if it.Bounds.Lower != nil {
		return it.SeekGE(it.Bounds.Lower)
	}
	if it.closed {
		return false
	}
	for _, src := range it.srcs {
		src.First()
	}
	it.start(false)
	return it.find()
}

// SeekGE moves to the first key >= key (and >= LowerBound).
func (it *Iter) SeekGE(key []byte) bool {
	if it.closed {
		return false
	}
	if it.Bounds.Lower != nil && bytes.Compare(key, it.Bounds.Lower) < 0 {
		key = it.Bounds.Lower
	}
	for _, src := range it.srcs {
		src.SeekGE(key)
	}
	it.start(false)
	return it.find()
}

// Last moves to the last key (below UpperBound).
func (it *Iter) Last() bool {
	if it.Bounds.Upper != nil {
		return it.SeekLT(it.Bounds.Upper)
	}
	if it.closed {
		return false
	}
	for _, src := range it.srcs {
		src.Last()
	}
	it.start(true)
	return it.findBack()
}

// SeekLT moves to the last key < key (and < UpperBound).
func (it *Iter) SeekLT(key []byte) bool {
	if it.closed {
		return false
	}
	if it.Bounds.Upper != nil && bytes.Compare(key, it.Bounds.Upper) > 0 {
		key = it.Bounds.Upper
	}
	for _, src := range it.srcs {
		src.SeekLT(key)
	}
	it.start(true)
	return it.findBack()
}

// start records a positioning move in the direction back says.
func (it *Iter) start(back bool) {
	it.alone, it.back, it.positioned = false, back, true
}

// Next moves to the next key. After a backward move that ran off the
// start (Prev or SeekLT returned false without an error) it moves to the
// first key, as First does; after a forward one it returns false.
func (it *Iter) Next() bool {
	if !it.valid || it.back {
		return it.turnForward()
	}
	if it.alone {
		if ss, ok := it.best.(*segread.Source); ok {
			ss.Next()
			return it.findSeg(ss)
		}
		it.best.Next()
	} else {
		it.advance(it.key)
	}
	return it.find()
}

// turnForward is Next off an end or after a backward move: every source
// to the key after the current one.
func (it *Iter) turnForward() bool {
	if !it.valid {
		if it.back && it.positioned && it.err == nil {
			return it.First()
		}
		return false
	}
	it.adv = append(it.adv[:0], it.key...)
	for _, src := range it.srcs {
		src.SeekGE(it.adv)
	}
	it.start(false)
	it.advance(it.adv)
	return it.find()
}

// Prev moves to the previous key. After a forward move that ran off the
// end (Next, First or SeekGE returned false without an error) it moves to
// the last key, as Last does; after a backward one it returns false.
func (it *Iter) Prev() bool {
	if !it.valid || !it.back {
		return it.turnBack()
	}
	if it.alone {
		if ss, ok := it.best.(*segread.Source); ok {
			ss.Prev()
			return it.findSegBack(ss)
		}
		it.best.Prev()
	} else {
		it.retreat(it.key)
	}
	return it.findBack()
}

// turnBack is Prev off an end or after a forward move: every source to
// the key before the current one.
func (it *Iter) turnBack() bool {
	if !it.valid {
		if !it.back && it.positioned && it.err == nil {
			return it.Last()
		}
		return false
	}
	it.adv = append(it.adv[:0], it.key...)
	for _, src := range it.srcs {
		src.SeekLT(it.adv)
	}
	it.start(true)
	return it.findBack()
}

// advance moves every source at key past it.
func (it *Iter) advance(key []byte) {
	it.adv = append(it.adv[:0], key...)
	for _, src := range it.srcs {
		if c := src.Cur(); c != nil && bytes.Equal(c.Key, it.adv) {
			src.Next()
		}
	}
}

// retreat moves every source at key before it.
func (it *Iter) retreat(key []byte) {
	it.adv = append(it.adv[:0], key...)
	for _, src := range it.srcs {
		if c := src.Cur(); c != nil && bytes.Equal(c.Key, it.adv) {
			src.Prev()
		}
	}
}

// findSeg is find when ss is the only source not exhausted: the common
// full scan of a compacted Store, without an interface call per cell.
// It and findSegBack are the two directions of one loop, written out so
// that neither pays a direction test per cell.
func (it *Iter) findSeg(ss *segread.Source) bool {
	for {
		c := ss.Cur()
		if c == nil {
			it.valid = false
			it.err = ss.Err()
			return false
		}
		if it.Bounds.Upper != nil && bytes.Compare(c.Key, it.Bounds.Upper) >= 0 {
			it.valid = false
			return false
		}
		if it.live(c) {
			it.key, it.val, it.valid = c.Key, c.Value, true
			return true
		}
		if !it.skipDeleted(c) {
			ss.Next()
		}
	}
}

// findSegBack is findSeg moving backward.
func (it *Iter) findSegBack(ss *segread.Source) bool {
	for {
		c := ss.Cur()
		if c == nil {
			it.valid = false
			it.err = ss.Err()
			return false
		}
		if it.Bounds.Lower != nil && bytes.Compare(c.Key, it.Bounds.Lower) < 0 {
			it.valid = false
			return false
		}
		if it.live(c) {
			it.key, it.val, it.valid = c.Key, c.Value, true
			return true
		}
		if !it.skipDeleted(c) {
			ss.Prev()
		}
	}
}

// find settles on the smallest key among the sources whose newest version
// is live, skipping the others.
func (it *Iter) find() bool {
	it.valid = false
	for it.alone {
		// Every other source is exhausted (they stay so): no merge.
		c := it.best.Cur()
		if c == nil {
			it.err = it.best.Err()
			return false
		}
		if it.Bounds.Upper != nil && bytes.Compare(c.Key, it.Bounds.Upper) >= 0 {
			return false
		}
		if it.live(c) {
			it.key, it.val, it.valid = c.Key, c.Value, true
			return true
		}
		if !it.skipDeleted(c) {
			it.best.Next()
		}
	}
	for {
		best := it.pick(false)
		if best == nil || it.Bounds.Upper != nil && bytes.Compare(best.Key, it.Bounds.Upper) >= 0 {
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
			it.best.Next()
			continue
		}
		it.advance(best.Key)
	}
}

// findBack is find moving backward: it settles on the largest key among
// the sources whose newest version is live.
func (it *Iter) findBack() bool {
	it.valid = false
	for it.alone {
		c := it.best.Cur()
		if c == nil {
			it.err = it.best.Err()
			return false
		}
		if it.Bounds.Lower != nil && bytes.Compare(c.Key, it.Bounds.Lower) < 0 {
			return false
		}
		if it.live(c) {
			it.key, it.val, it.valid = c.Key, c.Value, true
			return true
		}
		if !it.skipDeleted(c) {
			it.best.Prev()
		}
	}
	for {
		best := it.pick(true)
		if best == nil || it.Bounds.Lower != nil && bytes.Compare(best.Key, it.Bounds.Lower) < 0 {
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
			it.best.Prev()
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
func (it *Iter) pick(back bool) *blockenc.Cell {
	var best *blockenc.Cell
	n := 0
	for _, src := range it.srcs {
		c := src.Cur()
		if c == nil {
			if err := src.Err(); err != nil {
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

// Valid reports whether the Iter is on a key.
func (it *Iter) Valid() bool { return it.valid }

// Key returns the current key, nil when not Valid: valid until the next
// move; do not modify.
func (it *Iter) Key() []byte {
	if !it.valid {
		return nil
	}
	return it.key
}

// Value returns the current value, nil when not Valid: valid until the
// next move; do not modify.
func (it *Iter) Value() []byte {
	if !it.valid {
		return nil
	}
	return it.val
}

// Err returns the error that stopped the Iter, or nil; after Close the
// error Close set.
func (it *Iter) Err() error { return it.err }

// Close closes the sources and returns the error that stopped the Iter,
// or nil. From then on every move returns false and Err returns that
// error, or closedErr when there was none.
func (it *Iter) Close(closedErr error) error {
	err := it.err
	if err == nil {
		it.err = closedErr
	}
	it.closed = true
	it.valid = false
	for _, src := range it.srcs {
		src.Close()
	}
	return err
}

// Versions merges srcs, all-versions Sources, in cell order (key
// ascending, seq descending), calling emit on every cell; it stops at the
// first error of a source or of emit and returns it. The caller closes
// srcs.
func Versions(srcs []Source, emit func(blockenc.Cell) error) error {
	for _, src := range srcs {
		src.First()
	}
	for {
		var best Source
		var bc *blockenc.Cell
		for _, src := range srcs {
			c := src.Cur()
			if c == nil {
				if err := src.Err(); err != nil {
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
		best.Next()
	}
}
