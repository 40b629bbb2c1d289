// Package cell is the unit blocks store, shared by the block layouts; the
// blockenc package exports it as blockenc.Cell.
package cell

import (
	"bytes"
	"strconv"
)

// Kind says whether a cell writes a value or deletes the key.
//
// Kind values are part of the block format: never renumber or reuse them.
type Kind uint8

const (
	// KindDelete marks a tombstone: the key has no value at this seq.
	KindDelete Kind = 0 // part of the format, never reuse
	// KindPut marks a cell that sets the key's value at this seq.
	KindPut Kind = 1 // part of the format, never reuse
)

// String returns "Delete", "Put" or "Kind(n)".
func (k Kind) String() string {
	switch k {
	case KindDelete:
		return "Delete"
	case KindPut:
		return "Put"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// IsValid reports whether k is a kind the block format knows.
func (k Kind) IsValid() bool { return k <= KindPut }

// MaxSeq is the largest sequence number a cell may carry (seqs are
// written as Hadoop vlongs, which are signed).
const MaxSeq = 1<<63 - 1

// Cell is one versioned key/value: the unit a block stores.
//
// Cells order by Key ascending (bytes.Compare), then by Seq descending
// (newest first), as in HBase and Badger. Two cells with the same Key and
// Seq are not ordered: an Encoder rejects the second one.
type Cell struct {
	Key   []byte
	Value []byte
	Seq   uint64
	Kind  Kind
}

// Compare orders a and b by key ascending, then seq descending. It returns
// -1, 0 or +1; 0 means same key and same seq.
func Compare(a, b Cell) int {
	if c := bytes.Compare(a.Key, b.Key); c != 0 {
		return c
	}
	switch {
	case a.Seq > b.Seq:
		return -1
	case a.Seq < b.Seq:
		return 1
	}
	return 0
}

// Limits on what one cell may hold.
const (
	MaxKeyLen   = 64 << 10 // 64 KiB
	MaxValueLen = 16 << 20 // 16 MiB
)
