package memstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/dgraph-io/badger/v4/skl"
	"github.com/dgraph-io/badger/v4/y"
	"github.com/kvenc/kvenc/blockenc"
)

// Errors returned by Add. They are wrapped with details: test with errors.Is.
var (
	// ErrFull means the arena may not have room for the cell: flush the
	// memstore and add to a fresh one.
	ErrFull = errors.New("memstore: arena full")
	// ErrCellTooLarge means the cell does not fit even into an empty
	// memstore of this size. It comes wrapped together with ErrFull.
	ErrCellTooLarge = errors.New("memstore: cell larger than the arena")
	// ErrKeyTooLong means the key is longer than MaxKeyLen.
	ErrKeyTooLong = errors.New("memstore: key too long")
	// ErrInvalidKind means the cell's Kind is not one blockenc knows.
	ErrInvalidKind = errors.New("memstore: invalid cell kind")
)

const (
	// tsSize is the length of the seq suffix skl keys carry (y.KeyWithTs).
	tsSize = 8
	// MaxKeyLen is the longest key Add accepts: skl stores a key length as
	// a uint16 and the key carries an 8-byte seq suffix.
	MaxKeyLen = math.MaxUint16 - tsSize
	// nodeAlign mirrors skl's unexported nodeAlign: putNode pads every node
	// by 7 bytes to align it on 8 bytes.
	nodeAlign = 7
	// valueHeader is what skl's y.ValueStruct encoding adds to a value:
	// Meta, UserMeta and ExpiresAt as a uvarint (0 takes one byte).
	valueHeader = 3
	// headBytes is what NewSkiplist takes from a fresh arena: offset 0 is
	// reserved, then the head node of maximum height and its empty value.
	headBytes = 1 + int64(skl.MaxNodeSize) + nodeAlign + valueHeader
	// MaxArenaBytes is the largest arena New accepts: skl addresses its
	// arena with uint32 offsets.
	MaxArenaBytes = math.MaxUint32
	// metaCell marks a skiplist value as a stored cell; the low bits hold
	// its blockenc.Kind.
	metaCell = 0x80
)

// CellArenaBound returns the most arena bytes Add can use for c: a node of
// maximum height (skl.MaxNodeSize) plus alignment padding, the key with its
// seq suffix and the value with its header. A node of average height takes
// about 70 bytes less.
func CellArenaBound(c blockenc.Cell) int64 {
	return int64(skl.MaxNodeSize+nodeAlign) + int64(len(c.Key)+tsSize) + int64(len(c.Value)+valueHeader)
}

// Memstore is a concurrent sorted set of cells in a fixed-size arena.
type Memstore struct {
	list     *skl.Skiplist
	capacity int64 // arena length: skl's arena offset never passes it

	// Arena reservations (see Add): sums of CellArenaBound over every Add
	// admitted and over every Add finished. Both only grow.
	admitted atomic.Int64
	finished atomic.Int64

	adds atomic.Int64 // Adds accepted

	iters sync.Pool // *skl.Iterator, reused by Get
}

// New returns an empty Memstore with an arena of arenaBytes bytes, allocated
// at once. arenaBytes is raised to the few hundred bytes skl needs for its
// head node and lowered to MaxArenaBytes.
func New(arenaBytes int64) *Memstore {
	arenaBytes = max(arenaBytes, headBytes)
	arenaBytes = min(arenaBytes, MaxArenaBytes, math.MaxInt)
	m := &Memstore{list: skl.NewSkiplist(arenaBytes), capacity: arenaBytes}
	m.iters.New = func() any { return m.list.NewIterator() }
	return m
}

// Add copies c into the memstore. It returns an error wrapping ErrFull when
// the arena may not have room for c (also wrapping ErrCellTooLarge when c
// could not fit even into an empty memstore of this size), ErrKeyTooLong or
// ErrInvalidKind. A cell with the same Key and Seq as a stored one replaces
// its kind and value.
func (m *Memstore) Add(c blockenc.Cell) error {
	if err := check(c); err != nil {
		return err
	}
	need := CellArenaBound(c)
	if need > m.capacity-headBytes {
		return fmt.Errorf("%w: cell needs up to %d bytes, arena holds %d: %w",
			ErrFull, need, m.capacity-headBytes, ErrCellTooLarge)
	}
	if !m.Reserve(need) {
		return fmt.Errorf("%w: cell needs up to %d bytes, %d of %d in use",
			ErrFull, need, m.list.MemSize(), m.capacity)
	}
	m.put(c)
	m.Release(need)
	return nil
}

// check returns the error of a cell Add refuses whatever the room.
func check(c blockenc.Cell) error {
	if len(c.Key) > MaxKeyLen {
		return fmt.Errorf("%w: %d bytes, at most %d", ErrKeyTooLong, len(c.Key), MaxKeyLen)
	}
	if !c.Kind.IsValid() {
		return fmt.Errorf("%w: %v", ErrInvalidKind, c.Kind)
	}
	return nil
}

// put copies c into the skiplist, whose arena bytes are reserved.
func (m *Memstore) put(c blockenc.Cell) {
	var buf [64]byte
	key := appendKeyTs(buf[:0], c.Key, c.Seq)
	m.list.Put(key, y.ValueStruct{Meta: metaCell | byte(c.Kind), Value: c.Value})
	m.adds.Add(1)
}

// Reserve admits Adds (AddReserved) of cells whose CellArenaBound sum to
// at most n bytes, or reports that the arena may not have room for them.
// The reservation counts against the arena until Release(n); bytes never
// released stay counted, which lets a caller charge the arena for data it
// keeps beside it.
//
// The arena offset (Size) counts everything allocated so far, and
// reserved minus released bounds what the reservations in flight may
// still allocate. admitted only grows, so the CompareAndSwap succeeds
// only when no other reservation was made since it was read (no ABA), and
// finished is read before the arena offset, so that an Add that finished
// in between is counted in both (too much, never too little).
func (m *Memstore) Reserve(n int64) bool {
	for {
		a := m.admitted.Load()
		f := m.finished.Load()
		used := m.list.MemSize()
		if used+(a-f)+n > m.capacity {
			return false
		}
		if m.admitted.CompareAndSwap(a, a+n) {
			return true
		}
	}
}

// Release ends n bytes of reservations made by Reserve, once the Adds
// made within them are done (or will not be made).
func (m *Memstore) Release(n int64) { m.finished.Add(n) }

// AddReserved adds c, whose CellArenaBound a reservation (Reserve) not
// yet released holds, without checking the arena again: the reservation
// guarantees the room. It returns ErrKeyTooLong or ErrInvalidKind as Add
// does. Adding more than the reservation holds is a bug that may make
// skl end the process.
func (m *Memstore) AddReserved(c blockenc.Cell) error {
	if err := check(c); err != nil {
		return err
	}
	m.put(c)
	return nil
}

// Get returns the newest version of key with Seq <= readPoint; a Delete is
// returned as such. The cell's slices alias the arena (see the package doc).
func (m *Memstore) Get(key []byte, readPoint uint64) (blockenc.Cell, bool) {
	if len(key) > MaxKeyLen {
		return blockenc.Cell{}, false
	}
	var buf [64]byte
	seek := appendKeyTs(buf[:0], key, readPoint)
	it := m.iters.Get().(*skl.Iterator)
	it.Seek(seek)
	var c blockenc.Cell
	ok := it.Valid() && y.SameKey(seek, it.Key())
	if ok {
		c = cellAt(it)
	}
	m.iters.Put(it)
	return c, ok
}

// Size returns the arena bytes in use, including skl's head node.
func (m *Memstore) Size() int64 { return m.list.MemSize() }

// Capacity returns the arena size: Size never exceeds it.
func (m *Memstore) Capacity() int64 { return m.capacity }

// Len returns the number of Adds accepted. That is the number of cells
// stored unless a cell replaced one with the same key and seq: skl does not
// say whether a Put replaced a node, and finding out with a lookup first
// cost 35-45% of Add's time in BenchmarkAdd.
func (m *Memstore) Len() int { return int(m.adds.Load()) }

// appendKeyTs appends key and the skl suffix of seq (y.KeyWithTs without the
// allocation).
func appendKeyTs(dst, key []byte, seq uint64) []byte {
	dst = append(dst, key...)
	return binary.BigEndian.AppendUint64(dst, math.MaxUint64-seq)
}

// seqOf returns the seq of a skiplist key. (y.ParseTs returns 0 for a key of
// 8 bytes, which is an empty cell key here.)
func seqOf(k []byte) uint64 {
	return math.MaxUint64 - binary.BigEndian.Uint64(k[len(k)-tsSize:])
}

// cellAt decodes the cell under a valid skl iterator. Key and Value alias the
// arena with their capacity cut to their length.
func cellAt(it *skl.Iterator) blockenc.Cell {
	k := it.Key()
	n := len(k) - tsSize
	v := it.Value()
	return blockenc.Cell{
		Key:   k[:n:n],
		Value: v.Value[:len(v.Value):len(v.Value)],
		Seq:   seqOf(k),
		Kind:  blockenc.Kind(v.Meta &^ metaCell),
	}
}
