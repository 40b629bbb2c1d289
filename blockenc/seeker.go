package blockenc

import (
	"bytes"
	"fmt"

	"github.com/kvenc/kvenc/blockenc/internal/colblk"
	"github.com/kvenc/kvenc/blockenc/internal/lz4area"
	"github.com/kvenc/kvenc/blockenc/internal/prefixkeys"
	"github.com/kvenc/kvenc/blockenc/internal/rowblk"
)

// Seeker reads the cells of one block: First, SeekGE and Next forward,
// Last, SeekLT and Prev backward (Prev is the exact inverse of Next,
// and the directions mix freely), and Cell.
//
// NewSeeker and Init check the block's checksum and header (and the
// RowIndex restart array) once; the moves then check every bound they read,
// so no input makes them panic. A move that meets bad bytes returns false
// and Err says where; the error is sticky until the next Init.
//
// The slices in the Cell returned by Cell alias the block or a buffer
// inside the Seeker (keys, decompressed cells, a value-column value): they
// are valid until the next move (First, SeekGE, Next, Last, SeekLT,
// Prev) or Init, and must not be modified. Copy them to keep them.
//
// After Init the Seeker is positioned before the first cell: Next moves to
// it. Next past the last cell (or a SeekGE that finds nothing) leaves it
// after the last cell, where Prev moves to the last cell; Prev past the
// first cell (or a SeekLT that finds nothing) leaves it before the first.
// The moves and Cell do not allocate once the key buffer has grown to the
// longest key seen. A Seeker is not safe for concurrent use; many
// Seekers may read one block at once. A Seeker must not be copied after
// Init.
type Seeker struct {
	columnar bool           // the block is Columnar: col reads it, else row
	row      rowblk.Reader  // the row encodings
	col      *colblk.Reader // Columnar: kept across Init for its buffers
	// next is &row or col, set by Init (nil before): Next is one
	// indirect call to the layout's Next, inlined into its caller.
	next interface{ Next() bool }
}

// NewSeeker returns a Seeker over block, positioned before the first cell.
// It returns an error wrapping ErrCorrupt if the block's checksum, header or
// restart index is bad.
func NewSeeker(block []byte) (*Seeker, error) {
	s := &Seeker{}
	if err := s.Init(block); err != nil {
		return nil, err
	}
	return s, nil
}

// NewSeekerDict is NewSeeker for blocks that may be compressed against
// d (see InitDict).
func NewSeekerDict(block []byte, d *Dict) (*Seeker, error) {
	s := &Seeker{}
	if err := s.InitDict(block, d); err != nil {
		return nil, err
	}
	return s, nil
}

// Init points s at a new block, keeping its buffers, and positions it
// before the first cell. On error (wrapping ErrCorrupt) every move returns
// false and Err returns the same error. A block compressed against a Dict
// needs InitDict: Init refuses it with ErrWrongDict.
func (s *Seeker) Init(block []byte) error { return s.InitDict(block, nil) }

// InitDict is Init for a block that may have been compressed against d
// (Options.Dict): it reads blocks compressed against d and blocks
// compressed without a Dict, and refuses, with an error wrapping
// ErrWrongDict (and so ErrCorrupt), a block that needs a Dict when d is
// nil or has another ID.
func (s *Seeker) InitDict(block []byte, d *Dict) error {
	var ext *lz4area.Dict
	if d != nil {
		ext = d.d
	}
	s.columnar = len(block) > 1 && block[1] == byte(Columnar)
	if !s.columnar {
		s.next = &s.row
		return s.row.Init(block, ext)
	}
	if s.col == nil {
		s.col = new(colblk.Reader)
	}
	s.next = s.col
	return s.col.Init(block, ext)
}

// cur is the reader of the current block's layout, with its current cell.
func (s *Seeker) cur() *prefixkeys.Reader {
	if s.columnar {
		return &s.col.Reader
	}
	return &s.row.Reader
}

// Err returns the error that stopped the Seeker (wrapping ErrCorrupt), or
// nil. A move that returns false with Err() == nil has reached the end.
func (s *Seeker) Err() error { return s.cur().Fail }

// Cell returns the current cell, or nil if the Seeker is not on one. The
// Cell is the Seeker's own: it and its Key and Value (which alias the block
// or the Seeker's buffers) are valid until the next move or Init; do not
// modify them. Cell costs no more than Key and Value: nothing is copied.
func (s *Seeker) Cell() *Cell {
	r := s.cur()
	if !r.Valid {
		return nil
	}
	return &r.KV
}

// Key, Value, Seq and Kind return the fields of the current cell one at a
// time (Key and Value alias the block or the Seeker's buffers: valid until
// the next move or Init; do not modify them), and return zero values when
// the Seeker is not on a cell.
func (s *Seeker) Key() []byte {
	r := s.cur()
	if !r.Valid {
		return nil
	}
	return r.KV.Key[:len(r.KV.Key):len(r.KV.Key)]
}

// Value returns the current cell's value; see Key.
func (s *Seeker) Value() []byte {
	r := s.cur()
	if !r.Valid {
		return nil
	}
	return r.KV.Value
}

// Seq returns the current cell's sequence number; see Key.
func (s *Seeker) Seq() uint64 {
	r := s.cur()
	if !r.Valid {
		return 0
	}
	return r.KV.Seq
}

// Kind returns the current cell's kind; see Key.
func (s *Seeker) Kind() Kind {
	r := s.cur()
	if !r.Valid {
		return 0
	}
	return r.KV.Kind
}

// Next moves to the next cell (from before the first cell: to the first
// one). It returns false at the end of the block or on error (see Err).
func (s *Seeker) Next() bool {
	if s.next == nil {
		return false
	}
	return s.next.Next()
}

// First moves to the first cell. It returns false if the block is empty or
// on error (see Err).
func (s *Seeker) First() bool {
	if s.columnar {
		return s.col.First()
	}
	return s.row.First()
}

// SeekGE moves to the first cell whose key is >= key; for a key with many
// versions that is the newest. It returns false if every key is smaller, or
// on error (see Err).
//
// RowIndex and Columnar binary-search their restart keys (Columnar with
// fixed-length keys: the keys) and scan at most one restart interval. The
// other encodings scan forward: from the current cell when it is before key
// (so ascending seeks cost only the distance moved), else from the block
// start. LZ4Dict first binary-searches the first keys of its sub-blocks
// and decompresses the dictionary and the sub-block the answer starts in
// (if this Seeker has not yet), then seeks inside it as above.
func (s *Seeker) SeekGE(key []byte) bool {
	if s.columnar {
		return s.col.SeekGE(key)
	}
	return s.row.SeekGE(key)
}

// Prev moves to the previous cell (from after the last cell, where Next
// and a SeekGE that found nothing leave the Seeker: to the last one). It
// is the inverse of Next: among the versions of one key it moves from
// older to newer. Before the first cell it returns false and leaves the
// Seeker before the first cell, where Next moves to it; it returns false
// on error too (see Err).
func (s *Seeker) Prev() bool {
	if s.columnar {
		return s.col.Prev()
	}
	return s.row.Prev()
}

// Last moves to the last cell (for a key with many versions: the oldest).
// It returns false if the block is empty or on error (see Err).
func (s *Seeker) Last() bool {
	if s.columnar {
		return s.col.Last()
	}
	return s.row.Last()
}

// SeekLT moves to the last cell whose key is < key; for a key with many
// versions that is the oldest, so Prev then moves to newer versions. It
// returns false if every key is >= key, leaving the Seeker before the
// first cell, or on error (see Err).
func (s *Seeker) SeekLT(key []byte) bool {
	if s.columnar {
		return s.col.SeekLT(key)
	}
	return s.row.SeekLT(key)
}

// Decompress decompresses now what the moves would decompress when they
// reach it, the LZ4Dict sub-blocks of a Columnar block's value area (each
// checked against its checksum first), so that the moves after it decode
// nothing more. A reader that scans block after block can call it for the
// next block on another goroutine while it reads the current one. A
// sub-block that does not check or decode is left to the move that
// reaches it, which fails as it would without Decompress; moves over the
// other sub-blocks still read. Other blocks are decoded in Init or cell by
// cell: for them Decompress does nothing.
func (s *Seeker) Decompress() {
	if s.columnar {
		s.col.LoadAll()
	}
}

// Verify checks a whole block: what NewSeeker checks, that every cell
// decodes (as a scan with Next does: a block Verify accepts reads without
// an error, and one whose cells do not decode is refused by both), and that
// the cells are in order (key ascending, seq descending, no duplicates),
// which a Seeker does not check. Use Verify on blocks that did not come
// from an Encoder of this package.
func Verify(block []byte) error { return VerifyDict(block, nil) }

// VerifyDict is Verify for a block that may have been compressed against
// d (see InitDict).
func VerifyDict(block []byte, d *Dict) error {
	var s Seeker
	if err := s.InitDict(block, d); err != nil {
		return err
	}
	var prev []byte
	var prevSeq uint64
	for i := 0; s.Next(); i++ {
		c := s.Cell()
		if i > 0 {
			if k := bytes.Compare(prev, c.Key); k > 0 || (k == 0 && prevSeq <= c.Seq) {
				return fmt.Errorf("%w: cell %d out of order", ErrCorrupt, i)
			}
		}
		prev = append(prev[:0], c.Key...)
		prevSeq = c.Seq
	}
	return s.Err()
}
