package rowblk

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/kvenc/kvenc/blockenc/internal/frame"
	"github.com/kvenc/kvenc/blockenc/internal/lz4area"
	"github.com/kvenc/kvenc/blockenc/internal/prefixkeys"
)

// minCellLen is the fewest bytes any cell takes (a FastDiff flags byte and
// a one-byte seq); it bounds the cell count a header may claim.
const minCellLen = 2

// rowFlags are the flags a row block may have.
const rowFlags = frame.FlagLZ4 | frame.FlagLZ4Dict | frame.FlagValueDedup | frame.FlagIntValues | frame.FlagSeqColumn | frame.FlagExtDict

// Reader reads the cells of one row block (blockenc.Seeker for the row
// encodings): First, SeekGE, Next, Last, SeekLT, Prev (prev.go), and the
// current cell in its prefixkeys.Reader.
type Reader struct {
	// The cells and the current cell. KV.Key aliases Cells (None) or
	// KeyBuf; KV.Value the cells or a column value in vbuf.
	prefixkeys.Reader

	enc byte   // the layout
	val []byte // the value in the cells (the previous one for Diff and FastDiff)

	// Features (flags).
	block    []byte         // the whole block (LZ4Dict reads sub-blocks from it)
	area     lz4area.Reader // LZ4, LZ4Dict: the uncompressed cells and the sub-block index
	subStart int            // offset in cells of the current sub-block (back-references stay in it)
	dedupe   bool           // dedupe (refBit 1): Next's fast path reads back-references
	refBit   int            // dedupe: 1 (odd value length fields are back-references), else 0
	lenShift uint           // dedupe: 1 (value length fields are doubled), else 0
	intW     int            // value column: value width; 0: values inline
	ints     []int64        // value column: the values
	seqCol   []int64        // seq column: the seqs; empty: seqs inline
	vbuf     [8]byte        // value column: the current value, big-endian
	ext      *lz4area.Dict  // the external dictionary Init was given, or nil

}

// Init points s at a row block, keeping its buffers, and positions it
// before the first cell; ext (may be nil) is the external dictionary for a
// block compressed against one, ignored for other blocks. On error
// (wrapping frame.ErrCorrupt; a missing or different dictionary
// frame.ErrWrongDict) every move returns false.
func (s *Reader) Init(block []byte, ext *lz4area.Dict) error {
	area := s.area
	area.Reset()
	*s = Reader{Reader: prefixkeys.Reader{KeyBuf: s.KeyBuf[:0], Back: s.Back.Emptied()}, area: area, ints: s.ints[:0], seqCol: s.seqCol[:0], ext: ext}
	if err := s.init(block); err != nil {
		s.Fail = err
		return err
	}
	s.rewind()
	return nil
}

func (s *Reader) init(block []byte) error {
	const minBlock = 3 + 1 + frame.TrailerLen // header with count 0, no cells
	body, err := frame.Check(block, minBlock)
	if err != nil {
		return err
	}
	s.enc = body[1]
	if s.enc > RowIndex {
		return frame.Corrupt(1, "unknown encoding %d", body[1])
	}
	flags := body[2]
	if flags&^rowFlags != 0 {
		return frame.Corrupt(2, "unsupported flags %#02x", flags)
	}
	if err := checkFlagPairs(flags); err != nil {
		return err
	}
	if (body[0] == frame.Version3) != (flags&frame.FlagExtDict != 0) {
		return frame.Corrupt(0, "format version %d with flags %#02x (version 3 is for an external dictionary, flag bit 5)", body[0], flags)
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
			return fmt.Errorf("%w: %d restarts cannot fit in %d bytes", frame.ErrCorrupt, s.NRestarts, len(body)-p)
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
		n, err := s.initLZ4Dict(body, p, end, flags&frame.FlagExtDict != 0)
		if err != nil {
			return err
		}
		cells = s.area.Raw[:n] // not decompressed yet: for the checks below
		s.Compressed, s.HdrLen = true, 0
	}
	if count > uint64(len(cells)/minCellLen) {
		return fmt.Errorf("%w: %d cells cannot fit in %d bytes", frame.ErrCorrupt, count, len(cells))
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
			return fmt.Errorf("%w: LZ4Dict sub-block %d starts at cell %d of %d", frame.ErrCorrupt, j, sb.First, s.Count)
		}
		if s.enc == RowIndex {
			ri := sb.First / s.Interval
			if sb.First%s.Interval != 0 || s.RestartOffset(ri) != sb.Raw {
				return fmt.Errorf("%w: LZ4Dict sub-block %d (cell %d, offset %d) is not at a restart", frame.ErrCorrupt, j, sb.First, sb.Raw)
			}
		}
	}
	s.Cells = cells
	s.RILo, s.RIHi, s.Lens = 0, s.NRestarts, 3
	s.ValueAt = s.intW != 0 // a value column: Back keeps no values
	// Next reads 8 bytes past a seq marker in the cells.
	s.Fast = s.enc == RowIndex && len(s.area.Subs) == 0 && len(s.Tail) >= len(cells)+8
	return nil
}

// First moves to the first cell. It returns false if the block is empty or
// on error.
func (s *Reader) First() bool {
	if s.Fail != nil {
		return false
	}
	s.rewind()
	return s.Next()
}

// next is Next for every block but a fast one (next.go), and for
// the cells of a fast one that Next leaves to the general path.
func (s *Reader) next() bool {
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
func (s *Reader) SeekGE(key []byte) bool {
	return s.Fail == nil && s.seekFrom(key) && s.scan(key)
}

// seekFrom positions s where a seek for key scans from: the current cell
// when key is after it (and, in RowIndex, not after the next restart's
// key), else the restart before the first restart key >= key (RowIndex),
// the start of the LZ4Dict sub-block the answer starts in, or the block
// start. It returns false on error or when the block has no cells.
func (s *Reader) seekFrom(key []byte) bool {
	if len(s.area.Subs) > 0 {
		if !s.seekSub(key) {
			return false
		}
	} else if s.enc != RowIndex && (!s.Valid || bytes.Compare(s.KV.Key, key) >= 0) {
		s.rewind()
	}
	if s.enc == RowIndex {
		i, ok := s.SeekStart(key)
		if !ok {
			return false
		}
		if i >= 0 {
			s.ToRestart(i)
		}
	}
	return true
}

// scan steps forward until the key is >= key, comparing keys only where
// prefixkeys.Reader.Reached needs to.
func (s *Reader) scan(key []byte) bool {
	m := -1
	for s.Idx < s.Count {
		if s.Off >= len(s.Cells) && len(s.area.Subs) > 0 && !s.nextSub() {
			return false
		}
		if s.Fast {
			if !s.Next() { // lands on the cell: decodes its seq too
				return false
			}
		} else if !s.step() {
			return false
		}
		// prefixkeys.Reader.Reached, written out here: the call cost
		// RowIndex SeekGE on random keys 5% more instructions (callgrind).
		if m >= 0 {
			if s.Shared > m {
				continue
			}
			m = s.Shared // the key and key agree on Shared <= m bytes
		} else {
			m = 0
		}
		k := s.KV.Key
		m += prefixkeys.SharedPrefixLen(k[m:], key[m:])
		if m == len(key) || (m < len(k) && k[m] > key[m]) {
			return s.Fast || s.land()
		}
	}
	s.Valid = false
	return false
}

// rewind positions s before the first cell, with the empty "previous
// cell" the encoders start from.
func (s *Reader) rewind() {
	s.Rewind()
	s.val = nil
	if len(s.area.Subs) > 0 { // LZ4Dict: the first step enters sub-block 0
		s.Run, s.subStart, s.Cells = -1, 0, s.area.Raw[:0]
		s.RILo, s.RIHi = 0, s.NRestarts
	}
}

// land makes the cell just stepped over current: decodes its seq, or
// with a seq column reads it there.
func (s *Reader) land() bool {
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
