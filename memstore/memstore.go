package memstore

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"sync/atomic"

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
	// MaxKeyLen is the longest key Add accepts: a node stores its key's
	// length in 16 bits.
	MaxKeyLen = math.MaxUint16
	// MaxArenaBytes is the largest arena New accepts: nodes are addressed
	// by uint32 offsets.
	MaxArenaBytes = math.MaxUint32
	// headBytes is what a fresh arena gives the list itself (offset 0,
	// which is nil, and the head node of maximum height).
	headBytes int64 = listHead
)

// CellArenaBound returns the most arena bytes Add can use for c: a node of
// maximum height with its alignment padding, the key, and the value with
// its kind byte. A node of average height takes about 75 bytes less.
func CellArenaBound(c blockenc.Cell) int64 {
	return int64(maxNodeHead) + int64(len(c.Key)) + int64(1+len(c.Value))
}

// Memstore is a concurrent sorted set of cells in a fixed-size arena.
type Memstore struct {
	list     *skiplist
	capacity int64 // arena length: the list's allocations never pass it

	// Arena reservations (see Add): sums of CellArenaBound over every Add
	// admitted and over every Add finished. Both only grow.
	admitted atomic.Int64
	finished atomic.Int64

	adds atomic.Int64 // Adds accepted
}

// New returns an empty Memstore with an arena of arenaBytes bytes, allocated
// at once. arenaBytes is raised to the 112 bytes the list needs for its
// head node and lowered to MaxArenaBytes.
func New(arenaBytes int64) *Memstore {
	arenaBytes = max(arenaBytes, headBytes)
	arenaBytes = min(arenaBytes, MaxArenaBytes, math.MaxInt)
	return &Memstore{list: newSkiplist(arenaBytes), capacity: arenaBytes}
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
			ErrFull, need, m.Size(), m.capacity)
	}
	var ins inserter
	err := m.put(c, &ins)
	m.Release(need)
	return err
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

// put copies c into the skiplist, whose arena bytes are reserved,
// starting its search from ins.
func (m *Memstore) put(c blockenc.Cell, ins *inserter) error {
	if !m.list.add(c.Key, c.Seq, byte(c.Kind), c.Value, ins) {
		// Only when more was added than reserved.
		return fmt.Errorf("%w: arena of %d bytes overflowed (more added than reserved)", ErrFull, m.capacity)
	}
	m.adds.Add(1)
	return nil
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
		used := m.Size()
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
// does, and ErrFull only if more was added than reserved.
func (m *Memstore) AddReserved(c blockenc.Cell) error {
	var ins inserter
	return m.addReserved(c, &ins)
}

func (m *Memstore) addReserved(c blockenc.Cell, ins *inserter) error {
	if err := check(c); err != nil {
		return err
	}
	return m.put(c, ins)
}

// An Inserter adds cells to one Memstore within a reservation, as
// AddReserved does, remembering where its last cell went: a cell that
// sorts just after it (a batch in key order, a time series) is linked
// from there instead of after a search from the top of the skiplist.
// An Inserter is used by one goroutine at a time; the zero Inserter is
// not usable: get one from Memstore.Inserter.
type Inserter struct {
	m   *Memstore
	ins inserter
}

// Inserter returns an Inserter for m.
func (m *Memstore) Inserter() Inserter { return Inserter{m: m} }

// AddReserved is Memstore.AddReserved.
func (in *Inserter) AddReserved(c blockenc.Cell) error { return in.m.addReserved(c, &in.ins) }

// Get returns the newest version of key with Seq <= readPoint; a Delete is
// returned as such. The cell's slices alias the arena (see the package doc).
func (m *Memstore) Get(key []byte, readPoint uint64) (blockenc.Cell, bool) {
	if len(key) > MaxKeyLen {
		return blockenc.Cell{}, false
	}
	nd := m.list.seekGE(key, readPoint)
	if nd == 0 || !bytes.Equal(m.list.key(nd), key) {
		return blockenc.Cell{}, false
	}
	return m.list.cell(nd), true
}

// Size returns the arena bytes in use, including the list's head node.
func (m *Memstore) Size() int64 { return m.list.size() }

// Capacity returns the arena size: Size never exceeds it.
func (m *Memstore) Capacity() int64 { return m.capacity }

// Len returns the number of Adds accepted. That is the number of cells
// stored unless a cell replaced one with the same key and seq.
func (m *Memstore) Len() int { return int(m.adds.Load()) }

// cell returns the cell of node nd. Key and Value alias the arena with
// their capacity cut to their length.
func (s *skiplist) cell(nd uint32) blockenc.Cell {
	kind, v := s.value(nd)
	return blockenc.Cell{Key: s.key(nd), Value: v, Seq: s.seq(nd), Kind: blockenc.Kind(kind)}
}
