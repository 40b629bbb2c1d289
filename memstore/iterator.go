package memstore

import (
	"bytes"
	"math"

	"github.com/dgraph-io/badger/v4/skl"
	"github.com/kvenc/kvenc/blockenc"
)

// Iterator walks a Memstore in cell order (key ascending, seq descending) at
// a read point, forward (First, SeekGE, Next) or backward (Last, SeekLT,
// Prev); it may change direction at any cell. Cells added while it runs may or may not show up, except
// that a cell with Seq <= the read point is always seen when it was added
// before the iterator was created. Not safe for concurrent use; many
// Iterators may run at once, alongside Adds.
type Iterator struct {
	it        *skl.Iterator
	readPoint uint64
	all       bool
	seek      []byte // scratch seek key, reused
	cell      blockenc.Cell
}

// NewIterator returns an unpositioned Iterator: call First, SeekGE, Last or
// SeekLT.
//
// With allVersions false it shows, per key, the newest version with
// Seq <= readPoint, tombstones included (the caller hides them). With
// allVersions true it shows every version with Seq <= readPoint in cell
// order, for flush; pass math.MaxUint64 as readPoint to see every cell.
func (m *Memstore) NewIterator(readPoint uint64, allVersions bool) *Iterator {
	return &Iterator{it: m.list.NewIterator(), readPoint: readPoint, all: allVersions}
}

// First moves to the first visible cell.
func (i *Iterator) First() {
	i.it.SeekToFirst()
	i.settle()
}

// SeekGE moves to the first visible cell whose key is >= key.
func (i *Iterator) SeekGE(key []byte) {
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
// top (O(log n)), and without allVersions a second search lands on the
// newest visible version of the key found.
func (i *Iterator) Prev() {
	if !i.it.Valid() {
		return
	}
	if i.all {
		i.it.Prev()
	} else {
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
// version of its key that the Iterator has not passed, to the cell to show
// and loads it into i.cell. Versions of one key sit newest first, so when
// this node is above the read point every node of its key before it is too:
// the whole key is skipped. Otherwise, without allVersions, the newest
// version at or below the read point is one seek to the key at the read
// point.
func (i *Iterator) settleBack() {
	for i.it.Valid() {
		k := i.it.Key()
		if seqOf(k) > i.readPoint {
			i.before(k[:len(k)-tsSize])
			continue
		}
		if !i.all {
			i.seek = appendKeyTs(i.seek[:0], k[:len(k)-tsSize], i.readPoint)
			i.it.Seek(i.seek)
		}
		i.cell = cellAt(i.it)
		return
	}
	i.cell = blockenc.Cell{}
}
