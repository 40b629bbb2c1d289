package memstore

import (
	"bytes"
	"math"

	"github.com/dgraph-io/badger/v4/skl"
	"github.com/kvenc/kvenc/blockenc"
)

// Iterator walks a Memstore in cell order (key ascending, seq descending) at
// a read point, forward (First, SeekGE, Next) or backward (Last, SeekLT,
// Prev); it may change direction at any cell. Cells added while it runs
// may or may not show up, except that a cell with Seq <= the read point is
// always seen when it was added before the iterator was created. Not safe
// for concurrent use; many Iterators may run at once, alongside Adds.
type Iterator struct {
	it        *skl.Iterator
	list      *skl.Skiplist
	readPoint uint64
	all       bool
	seek      []byte // scratch seek key, reused
	cell      blockenc.Cell
	// look is, when looking, the skiplist node just before it (invalid:
	// none), found by the last backward move: the next Prev starts there.
	look    *skl.Iterator
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
	return &Iterator{it: m.list.NewIterator(), list: m.list, readPoint: readPoint, all: allVersions}
}

// First moves to the first visible cell.
func (i *Iterator) First() {
	i.looking = false
	i.it.SeekToFirst()
	i.settle()
}

// SeekGE moves to the first visible cell whose key is >= key.
func (i *Iterator) SeekGE(key []byte) {
	i.looking = false
	i.seek = appendKeyTs(i.seek[:0], key, i.readPoint)
	i.it.Seek(i.seek)
	i.settle()
}

// Next moves to the next visible cell: the next key's newest visible version,
// or with allVersions the next older version of the same key. Calling it on
// an invalid Iterator does nothing.
func (i *Iterator) Next() {
	if !i.it.Valid() {
		return
	}
	i.looking = false
	if i.all {
		i.it.Next()
	} else {
		// Skip the older versions of the current key. Its arena slice stays
		// valid, so compare against it directly.
		key := i.cell.Key
		for i.it.Next(); i.it.Valid(); i.it.Next() {
			k := i.it.Key()
			if string(k[:len(k)-tsSize]) != string(key) {
				break
			}
		}
	}
	i.settle()
}

// Last moves to the last visible cell: the newest visible version of the
// last key with one, or with allVersions the oldest visible version of the
// last key.
func (i *Iterator) Last() {
	i.it.SeekToLast()
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
	if !i.it.Valid() {
		return
	}
	switch {
	case i.all:
		i.it.Prev()
	case i.looking:
		i.it, i.look = i.look, i.it
	default:
		i.before(i.cell.Key)
	}
	i.settleBack()
}

// Valid reports whether the Iterator is at a cell.
func (i *Iterator) Valid() bool { return i.it.Valid() }

// Cell returns the current cell, or the zero Cell when !Valid(). Its slices
// alias the arena and stay valid as long as the Memstore (see the package
// doc), not just until the next move.
func (i *Iterator) Cell() blockenc.Cell { return i.cell }

// settle moves forward from the current skiplist node to the first one with
// Seq <= readPoint and loads it into i.cell. Versions above the read point
// belong to writes in flight: it skips them with one seek to the key at the
// read point, which lands on that key's newest visible version or the next
// key.
func (i *Iterator) settle() {
	for i.it.Valid() {
		k := i.it.Key()
		if seqOf(k) <= i.readPoint {
			i.cell = cellAt(i.it)
			return
		}
		i.seek = appendKeyTs(i.seek[:0], k[:len(k)-tsSize], i.readPoint)
		i.it.Seek(i.seek)
	}
	i.cell = blockenc.Cell{}
}

// before moves to the last skiplist node whose key is < key: the oldest
// version of the previous key.
func (i *Iterator) before(key []byte) {
	// Every version of key sorts after key with the smallest suffix, which
	// only a version with seq MaxUint64 equals.
	i.seek = appendKeyTs(i.seek[:0], key, math.MaxUint64)
	i.it.SeekForPrev(i.seek)
	if i.it.Valid() && bytes.Equal(i.it.Key(), i.seek) {
		i.it.Prev()
	}
}

// settleBack moves backward from the current skiplist node, the oldest
// version of its key that the Iterator has not passed (or a newer version
// of the key it leaves, above the read point), to the cell to show and
// loads it into i.cell. Versions of one key sit newest first, so when this
// node is above the read point every node of its key before it is too: the
// whole key is skipped. Otherwise, without allVersions, it looks at the
// node before: another key's, or a version above the read point, makes
// this node the one to show and the next Prev's start (one search per key);
// a newer visible version sends it to the newest one with a seek to the key
// at the read point.
func (i *Iterator) settleBack() {
	i.looking = false
	for i.it.Valid() {
		k := i.it.Key()
		user := k[:len(k)-tsSize]
		if seqOf(k) > i.readPoint {
			i.before(user)
			continue
		}
		if !i.all {
			if i.look == nil {
				i.look = i.list.NewIterator()
			}
			*i.look = *i.it
			i.look.Prev()
			if i.look.Valid() {
				if lk := i.look.Key(); seqOf(lk) <= i.readPoint && string(lk[:len(lk)-tsSize]) == string(user) {
					i.seek = appendKeyTs(i.seek[:0], user, i.readPoint)
					i.it.Seek(i.seek)
					i.cell = cellAt(i.it)
					return
				}
			}
			i.looking = true
		}
		i.cell = cellAt(i.it)
		return
	}
	i.cell = blockenc.Cell{}
}
