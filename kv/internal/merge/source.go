package merge

import (
	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/memstore"
)

// Source is one sorted input of a merge: a memstore or a segment. In the
// read mode it shows per key the newest version at or below its read point
// (tombstones included), moving forward or backward alike; in the
// all-versions mode (compaction) every cell, backward in reverse cell order.
type Source interface {
	First()
	SeekGE(key []byte)
	Next()
	Last()
	// SeekLT moves to the last key < key.
	SeekLT(key []byte)
	// Prev moves to the previous key (all-versions: the previous cell).
	// After First, SeekGE or Next it moves to the key before the current
	// one: the two directions mix freely.
	Prev()
	// Cur returns the current cell, nil when exhausted or on error.
	Cur() *blockenc.Cell
	Err() error
	Close()
	// MaxSeq bounds the seqs of the cells the source shows (MaxUint64
	// when unknown).
	MaxSeq() uint64
}

// NewMem returns the Source of a memstore's iterator it; max bounds the
// seqs it holds (MaxUint64 for the active memstore).
func NewMem(it *memstore.Iterator, max uint64) *Mem { return &Mem{it: it, max: max} }

// Mem is the Source of a memstore, through its iterator at the read point.
type Mem struct {
	it  *memstore.Iterator
	c   blockenc.Cell
	ok  bool
	max uint64 // the memtable's hi when frozen, else MaxUint64
}

func (m *Mem) settle() {
	m.ok = m.it.Valid()
	if m.ok {
		m.c = m.it.Cell()
	}
}
func (m *Mem) First()            { m.it.First(); m.settle() }
func (m *Mem) SeekGE(key []byte) { m.it.SeekGE(key); m.settle() }
func (m *Mem) Next()             { m.it.Next(); m.settle() }
func (m *Mem) Last()             { m.it.Last(); m.settle() }
func (m *Mem) SeekLT(key []byte) { m.it.SeekLT(key); m.settle() }
func (m *Mem) Prev()             { m.it.Prev(); m.settle() }
func (m *Mem) Err() error        { return nil }
func (m *Mem) Close()            {}
func (m *Mem) MaxSeq() uint64    { return m.max }
func (m *Mem) Cur() *blockenc.Cell {
	if !m.ok {
		return nil
	}
	return &m.c
}
