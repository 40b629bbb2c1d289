package memstore

import (
	"math"

	"github.com/kvenc/kvenc/blockenc"
)

// Iterator walks a Memstore in cell order (key ascending, seq descending) at
// a read point, forward (First, SeekGE, Next) or backward (Last, SeekLT,
// Prev); it may change direction at any cell. Cells added while it runs
// may or may not show up, except that a cell with Seq <= the read point is
// always seen when it was added before the iterator was created. Not safe
// for concurrent use; many Iterators may run at once, alongside Adds.
type Iterator struct {
	list      *skiplist
	nd        uint32 // the current node; 0: none
	readPoint uint64
	all       bool
	cell      blockenc.Cell
	// look is, when looking, the node just before nd (0: none), found by
	// the last backward move: the next Prev starts there.
	look    uint32
	looking bool
}

// NewIterator returns an unpositioned Iterator: call First, SeekGE, Last or
// SeekLT.
//
// With allVersions false it shows, per key, the newest version with
// Seq <= readPoint, tombstones included (the caller hides them). With
// allVersions true it shows every version with Seq <= readPoint in cell
// order, for flush; pass math.MaxUint64 as readPoint to see every cell.
func (m *Memstore) NewIterator(readPoint uint64, allVersions bool) *Iterator {
	return &Iterator{list: m.list, readPoint: readPoint, all: allVersions}
}

// First moves to the first visible cell.
func (i *Iterator) First() {
	i.looking = false
	i.nd = i.list.next(i.list.head, 0)
	i.settle()
}

// SeekGE moves to the first visible cell whose key is >= key.
func (i *Iterator) SeekGE(key []byte) {
	i.looking = false
	i.nd = i.list.seekGE(key, i.readPoint)
	i.settle()
}

// Next moves to the next visible cell: the next key's newest visible version,
// or with allVersions the next older version of the same key. Calling it on
// an invalid Iterator does nothing.
func (i *Iterator) Next() {
	if i.nd == 0 {
		return
	}
	i.looking = false
	i.nd = i.list.next(i.nd, 0)
	if !i.all {
		// Skip the older versions of the current key. Its arena slice stays
		// valid, so compare against it directly.
		key := i.cell.Key
		for i.nd != 0 && string(i.list.key(i.nd)) == string(key) {
			i.nd = i.list.next(i.nd, 0)
		}
	}
	i.settle()
}

// Last moves to the last visible cell: the newest visible version of the
// last key with one, or with allVersions the oldest visible version of the
// last key.
func (i *Iterator) Last() {
	i.nd = i.list.last()
	i.settleBack()
}

// SeekLT moves to the last visible cell whose key is < key (as Last does
// among those keys).
func (i *Iterator) SeekLT(key []byte) {
	i.before(key)
	i.settleBack()
}

// Prev moves to the previous visible cell: the previous key's newest
// visible version, or with allVersions the next newer visible version (of
// the same key or the previous key). Calling it on an invalid Iterator does
// nothing.
//
// The skiplist links nodes forward only, so each Prev searches it from the
// top (O(log n)): once per cell with allVersions, once per key of one
// visible version without, twice for a key of several.
func (i *Iterator) Prev() {
	if i.nd == 0 {
		return
	}
	switch {
	case i.all:
		i.nd = i.list.seekLT(i.cell.Key, i.cell.Seq)
	case i.looking:
		i.nd = i.look
	default:
		i.before(i.cell.Key)
	}
	i.settleBack()
}

// Valid reports whether the Iterator is at a cell.
func (i *Iterator) Valid() bool { return i.nd != 0 }

// Cell returns the current cell, or the zero Cell when !Valid(). Its slices
// alias the arena and stay valid as long as the Memstore (see the package
// doc), not just until the next move.
func (i *Iterator) Cell() blockenc.Cell { return i.cell }

// settle moves forward from the current node to the first one with
// Seq <= readPoint and loads it into i.cell. Versions above the read point
// belong to writes in flight: it skips them with one seek to the key at the
// read point, which lands on that key's newest visible version or the next
// key.
func (i *Iterator) settle() {
	for i.nd != 0 {
		if i.list.seq(i.nd) <= i.readPoint {
			i.cell = i.list.cell(i.nd)
			return
		}
		i.nd = i.list.seekGE(i.list.key(i.nd), i.readPoint)
	}
	i.cell = blockenc.Cell{}
}

// before moves to the last node whose key is < key: the oldest version
// of the previous key. Every version of key sorts at or after key with
// seq MaxUint64.
func (i *Iterator) before(key []byte) {
	i.nd = i.list.seekLT(key, math.MaxUint64)
}

// settleBack moves backward from the current node, the oldest version of
// its key that the Iterator has not passed (or a newer version of the key
// it leaves, above the read point), to the cell to show and loads it into
// i.cell. Versions of one key sit newest first, so when this node is above
// the read point every node of its key before it is too: the whole key is
// skipped. Otherwise, without allVersions, it looks at the node before:
// another key's, or a version above the read point, makes this node the
// one to show and the next Prev's start (one search per key); a newer
// visible version sends it to the newest one with a seek to the key at the
// read point.
func (i *Iterator) settleBack() {
	i.looking = false
	l := i.list
	for i.nd != 0 {
		user := l.key(i.nd)
		if l.seq(i.nd) > i.readPoint {
			i.before(user)
			continue
		}
		if !i.all {
			i.look = l.seekLT(user, l.seq(i.nd))
			if i.look != 0 && l.seq(i.look) <= i.readPoint && string(l.key(i.look)) == string(user) {
				i.nd = l.seekGE(user, i.readPoint)
				i.cell = l.cell(i.nd)
				return
			}
			i.looking = true
		}
		i.cell = l.cell(i.nd)
		return
	}
	i.cell = blockenc.Cell{}
}
