package blockenc

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"github.com/kvenc/kvenc/blockenc/internal/colblk"
	"github.com/kvenc/kvenc/blockenc/internal/frame"
	"github.com/kvenc/kvenc/blockenc/internal/lz4area"
	"github.com/kvenc/kvenc/blockenc/internal/prefixkeys"
)

// minCellLen is the fewest bytes any cell takes (a FastDiff flags byte and
// a one-byte seq); it bounds the cell count a header may claim.
const minCellLen = 2

// Seeker reads the cells of one block: First, SeekGE, Next, Cell.
//
// NewSeeker and Init check the block's checksum and header (and the
// RowIndex restart array) once; the moves then check every bound they read,
// so no input makes them panic. A move that meets bad bytes returns false
// and Err says where; the error is sticky until the next Init.
//
// The slices in the Cell returned by Cell alias the block or a buffer
// inside the Seeker (keys, decompressed cells, a value-column value): they
// are valid until the next First, SeekGE, Next or Init, and must not be
// modified. Copy them to keep them.
//
// After Init the Seeker is positioned before the first cell: Next moves to
// it. SeekGE, Next and Cell do not allocate once the key buffer has grown to
// the longest key seen. A Seeker is not safe for concurrent use; many
// Seekers may read one block at once.
type Seeker struct {
	// The cell stream and the current cell: for the row encodings the
	// cells, for Columnar the key cells. KV.Key aliases Cells (None) or
	// KeyBuf; KV.Value the cells, a buffer or a column value in vbuf.
	prefixkeys.Reader

	enc Encoding
	val []byte // row encodings: the value in the cells (the previous one for Diff and FastDiff)

	// Features (flags).
	block    []byte         // the whole block (LZ4Dict reads sub-blocks from it)
	area     lz4area.Reader // LZ4, LZ4Dict: the uncompressed cells and the sub-block index
	sub      int            // LZ4Dict: the sub-block s.Cells ends with; -1 before the first
	subStart int            // offset in cells of the current sub-block (back-references stay in it)
	dedupe   bool           // dedupe (refBit 1): Next's fast path reads back-references
	refBit   int            // dedupe: 1 (odd value length fields are back-references), else 0
	lenShift uint           // dedupe: 1 (value length fields are doubled), else 0
	intW     int            // value column: value width; 0: values inline
	ints     []int64        // value column: the values
	seqCol   []int64        // seq column: the seqs; empty: seqs inline
	vbuf     [8]byte        // value column: the current value, big-endian

	columnar bool               // the block is Columnar: col reads it
	col      *colblk.Reader     // Columnar: kept across Init for its buffers
	nextFn   func(*Seeker) bool // Next of the layout: rowNext or colNext, set by Init
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

// Init points s at a new block, keeping its key buffer, and positions it
// before the first cell. On error (wrapping ErrCorrupt) every move returns
// false and Err returns the same error.
func (s *Seeker) Init(block []byte) error {
	if len(block) > 1 && block[1] == byte(Columnar) {
		if s.col == nil {
			s.col = new(colblk.Reader)
		}
		s.columnar, s.nextFn = true, nil
		if err := s.col.Init(block); err != nil {
			return err
		}
		s.nextFn = (*Seeker).colNext
		return nil
	}
	area := s.area
	area.Reset()
	*s = Seeker{Reader: prefixkeys.Reader{KeyBuf: s.KeyBuf[:0]}, area: area, ints: s.ints[:0], seqCol: s.seqCol[:0], col: s.col}
	if err := s.init(block); err != nil {
		s.Fail = err
		return err
	}
	s.rewind()
	s.nextFn = (*Seeker).rowNext
	return nil
}

func (s *Seeker) init(block []byte) error {
	const minBlock = 3 + 1 + frame.TrailerLen // header with count 0, no cells
	body, err := frame.Check(block, minBlock)
	if err != nil {
		return err
	}
	s.enc = Encoding(body[1])
	if !s.enc.IsValid() {
		return frame.Corrupt(1, "unknown encoding %d", body[1])
	}
	flags := body[2]
	if flags&^rowFlags != 0 {
		return frame.Corrupt(2, "unsupported flags %#02x", flags)
	}
	if err := checkFlagPairs(flags); err != nil {
		return err
	}
	if flags&frame.FlagValueDedup != 0 {
		s.refBit, s.lenShift, s.dedupe = 1, 1, true
	}
	p := 3
	count, n := binary.Uvarint(body[p:])
	if n <= 0 || count > uint64(len(body))*lz4area.MaxExpansion {
		return frame.Corrupt(p, "bad cell count")
	}
	s.Count = int(count)
	p += n
	if s.enc == RowIndex {
		iv, n := binary.Uvarint(body[p:])
		if n <= 0 || iv == 0 || iv > prefixkeys.MaxInterval {
			return frame.Corrupt(p, "bad restart interval")
		}
		p += n
		s.Interval = int(iv)
		s.NRestarts = (s.Count + s.Interval - 1) / s.Interval
		if prefixkeys.RestartLen*s.NRestarts > len(body)-p {
			return fmt.Errorf("%w: %d restarts cannot fit in %d bytes", ErrCorrupt, s.NRestarts, len(body)-p)
		}
	}
	end := len(body) - prefixkeys.RestartLen*s.NRestarts
	s.Restarts = body[end:]
	if flags&frame.FlagIntValues != 0 {
		var err error
		if p, err = s.initIntValues(body, p, end); err != nil {
			return err
		}
	}
	if flags&frame.FlagSeqColumn != 0 {
		var err error
		if p, err = s.initSeqColumn(body, p, end); err != nil {
			return err
		}
	}
	s.HdrLen = p
	s.Tail = block[p:]
	s.block = block
	cells := body[p:end]
	switch {
	case flags&frame.FlagLZ4 != 0:
		var err error
		if cells, err = s.initLZ4(cells, p); err != nil {
			return err
		}
		s.Compressed, s.HdrLen = true, 0
	case flags&frame.FlagLZ4Dict != 0:
		n, err := s.initLZ4Dict(body, p, end)
		if err != nil {
			return err
		}
		cells = s.area.Raw[:n] // not decompressed yet: for the checks below
		s.Compressed, s.HdrLen = true, 0
	}
	if count > uint64(len(cells)/minCellLen) {
		return fmt.Errorf("%w: %d cells cannot fit in %d bytes", ErrCorrupt, count, len(cells))
	}
	if s.Count == 0 && len(cells) != 0 {
		return frame.Corrupt(p, "%d bytes after zero cells", len(cells))
	}
	if err := prefixkeys.CheckRestarts(s.Restarts, len(cells), end); err != nil {
		return err
	}
	for j, sb := range s.area.Subs {
		// Every sub-block starts at a cell of the block; in RowIndex at a
		// restart, so a seek reads restart keys of its own sub-block only.
		if sb.First >= s.Count {
			return fmt.Errorf("%w: LZ4Dict sub-block %d starts at cell %d of %d", ErrCorrupt, j, sb.First, s.Count)
		}
		if s.enc == RowIndex {
			ri := sb.First / s.Interval
			if sb.First%s.Interval != 0 || s.RestartOffset(ri) != sb.Raw {
				return fmt.Errorf("%w: LZ4Dict sub-block %d (cell %d, offset %d) is not at a restart", ErrCorrupt, j, sb.First, sb.Raw)
			}
		}
	}
	s.Cells = cells
	s.RILo, s.RIHi, s.Lens = 0, s.NRestarts, 3
	// nextRowIndex reads 8 bytes past a seq marker in the cells.
	s.Fast = s.enc == RowIndex && len(s.area.Subs) == 0 && len(s.Tail) >= len(cells)+8
	return nil
}

// cur is the reader of the current block's layout, with its current cell.
func (s *Seeker) cur() *prefixkeys.Reader {
	if s.columnar {
		return &s.col.Reader
	}
	return &s.Reader
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
//
// Next inlines into its caller as one indirect call to the layout's Next
// (set by Init): a test of the layout and two calls make Next too costly
// to inline, which costs every move a call.
func (s *Seeker) Next() bool {
	if f := s.nextFn; f != nil {
		return f(s)
	}
	return false
}

// colNext is Next for Columnar blocks.
func (s *Seeker) colNext() bool { return s.col.Next() }

// First moves to the first cell. It returns false if the block is empty or
// on error (see Err).
func (s *Seeker) First() bool {
	if s.columnar {
		return s.col.First()
	}
	if s.Fail != nil {
		return false
	}
	s.rewind()
	return s.rowNext()
}

// next is Next for every block but a fast one (scan_rowindex.go), and for
// the cells of a fast one that Next leaves to the general path.
func (s *Seeker) next() bool {
	if s.Idx >= s.Count || s.Fail != nil {
		s.Valid = false
		return false
	}
	if s.Off >= len(s.Cells) && len(s.area.Subs) > 0 && !s.nextSub() {
		return false
	}
	return s.step() && s.land()
}

// SeekGE moves to the first cell whose key is >= key; for a key with many
// versions that is the newest. It returns false if every key is smaller, or
// on error (see Err).
//
// RowIndex binary-searches its restart keys and scans at most one restart
// interval. The other encodings scan forward: from the current cell when it
// is before key (so ascending seeks cost only the distance moved), else from
// the block start.
//
// LZ4Dict first binary-searches the first keys of its sub-blocks and
// decompresses the dictionary and the sub-block the answer starts in (if
// this Seeker has not yet), then seeks inside it as above.
func (s *Seeker) SeekGE(key []byte) bool {
	if s.columnar {
		return s.col.SeekGE(key)
	}
	if s.Fail != nil {
		return false
	}
	if len(s.area.Subs) > 0 {
		if !s.seekSub(key) {
			return false
		}
	} else if s.enc != RowIndex && (!s.Valid || bytes.Compare(s.KV.Key, key) >= 0) {
		s.rewind()
	}
	if s.enc == RowIndex {
		return s.seekRowIndex(key)
	}
	return s.scan(key)
}

// scan steps forward until the key is >= key, comparing keys only where
// prefixkeys.Reader.Reached needs to.
func (s *Seeker) scan(key []byte) bool {
	m := -1
	for s.Idx < s.Count {
		if s.Off >= len(s.Cells) && len(s.area.Subs) > 0 && !s.nextSub() {
			return false
		}
		if s.Fast {
			if !s.rowNext() { // lands on the cell: decodes its seq too
				return false
			}
		} else if !s.step() {
			return false
		}
		if m >= 0 && s.Shared > m {
			continue
		}
		var done bool
		if m, done = s.Reached(m, key); done {
			return s.Fast || s.land()
		}
	}
	s.Valid = false
	return false
}

// seekRowIndex is SeekGE for RowIndex: a binary search over the restart
// keys (of the current LZ4Dict sub-block), then a scan.
func (s *Seeker) seekRowIndex(key []byte) bool {
	i, ok := s.SeekStart(key)
	if !ok {
		return false
	}
	if i >= 0 {
		s.ToRestart(i)
	}
	return s.scan(key)
}

// rewind positions s before the first cell, with the empty "previous
// cell" the encoders start from.
func (s *Seeker) rewind() {
	s.Rewind()
	s.val = nil
	if len(s.area.Subs) > 0 { // LZ4Dict: the first step enters sub-block 0
		s.sub, s.subStart, s.Cells = -1, 0, s.area.Raw[:0]
		s.RILo, s.RIHi = 0, s.NRestarts
	}
}

// land makes the cell just stepped over current: decodes its seq, or
// with a seq column reads it there.
func (s *Seeker) land() bool {
	if s.intW == 0 {
		s.KV.Value = s.val
	} else {
		// A value column: the cells hold empty values.
		if len(s.val) != 0 {
			return s.Corrupt("a value in the cells of a block with a value column")
		}
		s.KV.Value = s.intValue(s.Idx - 1)
	}
	if i := s.Idx - 1; i < len(s.seqCol) {
		// A seq column: the cells hold seq 0.
		if s.Cells[s.SeqOff] != 0 {
			return s.Corrupt("a seq in the cells of a block with a seq column")
		}
		s.KV.Seq = uint64(s.seqCol[i]) // 0..MaxSeq: checked by initSeqColumn
		s.Valid = true
		return true
	}
	if seq, ok := prefixkeys.DecodeSeq(s.Tail[s.SeqOff:]); ok { // SeqOff < len(Cells): checked by SkipSeq
		s.KV.Seq = seq
	} else if !s.LandSeqSlow() {
		return false
	}
	s.Valid = true
	return true
}

// Verify checks a whole block: what NewSeeker checks, that every cell
// decodes (as a scan with Next does: a block Verify accepts reads without
// an error, and one whose cells do not decode is refused by both), and that
// the cells are in order (key ascending, seq descending, no duplicates),
// which a Seeker does not check. Use Verify on blocks that did not come
// from an Encoder of this package.
func Verify(block []byte) error {
	var s Seeker
	if err := s.Init(block); err != nil {
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
