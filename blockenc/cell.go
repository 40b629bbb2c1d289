package blockenc

import "github.com/kvenc/kvenc/blockenc/internal/cell"

// Kind says whether a cell writes a value or deletes the key.
//
// Kind values are part of the block format: never renumber or reuse them.
// String returns "Delete", "Put" or "Kind(n)"; IsValid reports whether a
// Kind is one the format knows.
type Kind = cell.Kind

const (
	// KindDelete marks a tombstone: the key has no value at this seq.
	KindDelete = cell.KindDelete // 0, part of the format
	// KindPut marks a cell that sets the key's value at this seq.
	KindPut = cell.KindPut // 1, part of the format
)

// MaxSeq is the largest sequence number a cell may carry (seqs are
// written as Hadoop vlongs, which are signed).
const MaxSeq = cell.MaxSeq

// Limits on what one cell may hold. Larger keys or values make Add return
// ErrTooLarge.
const (
	MaxKeyLen   = cell.MaxKeyLen   // 64 KiB
	MaxValueLen = cell.MaxValueLen // 16 MiB
)

// Cell is one versioned key/value: the unit a block stores.
//
//	type Cell struct {
//		Key   []byte
//		Value []byte
//		Seq   uint64
//		Kind  Kind
//	}
//
// Cells order by Key ascending (bytes.Compare), then by Seq descending
// (newest first), as in HBase and Badger. Two cells with the same Key and
// Seq are not ordered: an Encoder rejects the second one.
type Cell = cell.Cell

// Compare orders a and b by key ascending, then seq descending. It returns
// -1, 0 or +1; 0 means same key and same seq.
func Compare(a, b Cell) int { return cell.Compare(a, b) }
