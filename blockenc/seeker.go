package blockenc

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"github.com/kvenc/kvenc/blockenc/internal/frame"
	"github.com/kvenc/kvenc/blockenc/internal/lz4area"

	"github.com/kvenc/kvenc/vlong"
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
	cells     []byte // the cell stream, header and index cut off
	tail      []byte // the block from the first cell to its end (for seqs)
	restarts  []byte // RowIndex: uint32 little-endian cell offsets
	hdrLen    int    // offset of cells in the block, for error positions
	enc       Encoding
	count     int // cells in the block
	interval  int // RowIndex restart interval
	nRestarts int

	off         int // offset in cells of the next cell to decode
	idx         int // index of the next cell to decode
	ri          int // RowIndex: number of the next restart to meet
	nextRestart int // RowIndex: index of the cell at restart ri; -1 otherwise

	// kv is the current cell, which Cell returns a pointer to. Its Key
	// aliases cells (None) or keyBuf; its Value the cells, a buffer or a
	// column value in vbuf.
	kv     Cell
	val    []byte // row encodings: the value in the cells (the previous one for Diff and FastDiff)
	seqOff int    // offset in cells of the current cell's seq vlong
	shared int    // prefix encodings: bytes the current key shares with the previous
	valid  bool
	err    error
	keyBuf []byte // reconstructed keys of the prefix encodings

	// Features (flags). riLo and riHi bound the restarts a RowIndex seek
	// may read: all of them, or those of the current LZ4Dict sub-block.
	block      []byte         // the whole block (LZ4Dict reads sub-blocks from it)
	area       lz4area.Reader // LZ4, LZ4Dict: the uncompressed cells and the sub-block index
	sub        int            // LZ4Dict: the sub-block s.cells ends with; -1 before the first
	subStart   int            // offset in cells of the current sub-block (back-references stay in it)
	riLo, riHi int
	compressed bool
	fast       bool    // RowIndex without sub-blocks, no error: Next's fast path
	dedupe     bool    // dedupe (refBit 1): Next's fast path reads back-references
	refBit     int     // dedupe: 1 (odd value length fields are back-references), else 0
	lenShift   uint    // dedupe: 1 (value length fields are doubled), else 0
	intW       int     // value column: value width; 0: values inline
	ints       []int64 // value column: the values
	seqCol     []int64 // seq column: the seqs; empty: seqs inline
	vbuf       [8]byte // value column: the current value, big-endian

	col *colSeeker // Columnar: the columns (columnar_seek.go); nil otherwise
	// nextFn is Next for the block's encoding: rowNext or colNext, set by
	// Init (nil before: Next returns false).
	nextFn func(*Seeker) bool
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
		return s.colInit(block)
	}
	area := s.area
	area.Reset()
	*s = Seeker{keyBuf: s.keyBuf[:0], area: area, ints: s.ints[:0], seqCol: s.seqCol[:0]}
	if err := s.init(block); err != nil {
		s.err = err
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
	s.count = int(count)
	p += n
	if s.enc == RowIndex {
		iv, n := binary.Uvarint(body[p:])
		if n <= 0 || iv == 0 || iv > maxRestartInterval {
			return frame.Corrupt(p, "bad restart interval")
		}
		p += n
		s.interval = int(iv)
		s.nRestarts = (s.count + s.interval - 1) / s.interval
		if restartLen*s.nRestarts > len(body)-p {
			return fmt.Errorf("%w: %d restarts cannot fit in %d bytes", ErrCorrupt, s.nRestarts, len(body)-p)
		}
	}
	end := len(body) - restartLen*s.nRestarts
	s.restarts = body[end:]
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
	s.hdrLen = p
	s.tail = block[p:]
	s.block = block
	cells := body[p:end]
	switch {
	case flags&frame.FlagLZ4 != 0:
		var err error
		if cells, err = s.initLZ4(cells, p); err != nil {
			return err
		}
		s.compressed, s.hdrLen = true, 0
	case flags&frame.FlagLZ4Dict != 0:
		n, err := s.initLZ4Dict(body, p, end)
		if err != nil {
			return err
		}
		cells = s.area.Raw[:n] // not decompressed yet: for the checks below
		s.compressed, s.hdrLen = true, 0
	}
	if count > uint64(len(cells)/minCellLen) {
		return fmt.Errorf("%w: %d cells cannot fit in %d bytes", ErrCorrupt, count, len(cells))
	}
	if s.count == 0 && len(cells) != 0 {
		return frame.Corrupt(p, "%d bytes after zero cells", len(cells))
	}
	if err := checkRestarts(s.restarts, len(cells), end); err != nil {
		return err
	}
	for j, sb := range s.area.Subs {
		// Every sub-block starts at a cell of the block; in RowIndex at a
		// restart, so a seek reads restart keys of its own sub-block only.
		if sb.First >= s.count {
			return fmt.Errorf("%w: LZ4Dict sub-block %d starts at cell %d of %d", ErrCorrupt, j, sb.First, s.count)
		}
		if s.enc == RowIndex {
			ri := sb.First / s.interval
			if sb.First%s.interval != 0 || s.restartOffset(ri) != sb.Raw {
				return fmt.Errorf("%w: LZ4Dict sub-block %d (cell %d, offset %d) is not at a restart", ErrCorrupt, j, sb.First, sb.Raw)
			}
		}
	}
	s.cells = cells
	s.riLo, s.riHi = 0, s.nRestarts
	// nextRowIndex reads 8 bytes past a seq marker in the cells.
	s.fast = s.enc == RowIndex && len(s.area.Subs) == 0 && len(s.tail) >= len(cells)+8
	return nil
}

// Err returns the error that stopped the Seeker (wrapping ErrCorrupt), or
// nil. A move that returns false with Err() == nil has reached the end.
func (s *Seeker) Err() error { return s.err }

// Cell returns the current cell, or nil if the Seeker is not on one. The
// Cell is the Seeker's own: it and its Key and Value (which alias the block
// or the Seeker's buffers) are valid until the next move or Init; do not
// modify them. Cell costs no more than Key and Value: nothing is copied.
func (s *Seeker) Cell() *Cell {
	if !s.valid {
		return nil
	}
	return &s.kv
}

// Key, Value, Seq and Kind return the fields of the current cell one at a
// time (Key and Value alias the block or the Seeker's buffers: valid until
// the next move or Init; do not modify them), and return zero values when
// the Seeker is not on a cell.
func (s *Seeker) Key() []byte {
	if !s.valid {
		return nil
	}
	return s.kv.Key[:len(s.kv.Key):len(s.kv.Key)]
}

// Value returns the current cell's value; see Key.
func (s *Seeker) Value() []byte {
	if !s.valid {
		return nil
	}
	return s.kv.Value
}

// Seq returns the current cell's sequence number; see Key.
func (s *Seeker) Seq() uint64 {
	if !s.valid {
		return 0
	}
	return s.kv.Seq
}

// Kind returns the current cell's kind; see Key.
func (s *Seeker) Kind() Kind {
	if !s.valid {
		return 0
	}
	return s.kv.Kind
}

// First moves to the first cell. It returns false if the block is empty or
// on error (see Err).
func (s *Seeker) First() bool {
	if s.col != nil {
		return s.colFirst()
	}
	if s.err != nil {
		return false
	}
	s.rewind()
	return s.Next()
}

// next is Next for every block but a fast one (scan_rowindex.go), and for
// the cells of a fast one that Next leaves to the general path.
func (s *Seeker) next() bool {
	if s.col != nil {
		return s.colNext()
	}
	if s.idx >= s.count || s.err != nil {
		s.valid = false
		return false
	}
	if s.off >= len(s.cells) && len(s.area.Subs) > 0 && !s.nextSub() {
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
	if s.col != nil {
		return s.colSeekGE(key)
	}
	if s.err != nil {
		return false
	}
	if len(s.area.Subs) > 0 {
		if !s.seekSub(key) {
			return false
		}
	} else if s.enc != RowIndex && (!s.valid || bytes.Compare(s.kv.Key, key) >= 0) {
		s.rewind()
	}
	if s.enc == RowIndex {
		return s.seekRowIndex(key)
	}
	return s.scan(key)
}

// scan steps forward until the key is >= key.
//
// In the prefix encodings most steps need no key comparison: once the
// current key is known to be below key with m bytes in common, a next key
// that shares more than m bytes with it is below key too (its byte m is the
// current key's). One that shares fewer is above it when the shared length
// is the longest (cells are sorted), which an Encoder ensures but a
// restart, an LZ4Dict sub-block start or a hostile block need not: such a
// key is compared from its shared length on, which costs a byte compare
// once per seek (on the cell it lands on). A next key sharing exactly m
// bytes is compared from byte m on.
func (s *Seeker) scan(key []byte) bool {
	m := -1 // common prefix of s.kv.Key and key while s.kv.Key < key; -1: unknown
	for s.idx < s.count {
		if s.off >= len(s.cells) && len(s.area.Subs) > 0 && !s.nextSub() {
			return false
		}
		if s.fast {
			if !s.Next() { // lands on the cell: decodes its seq too
				return false
			}
		} else if !s.step() {
			return false
		}
		if m >= 0 && s.enc != None {
			if s.shared > m {
				continue
			}
			m = s.shared // s.kv.Key and key agree on s.shared <= m bytes
		} else {
			m = 0
		}
		// s.kv.Key and key agree on their first m bytes.
		m += sharedPrefixLen(s.kv.Key[m:], key[m:])
		if m == len(key) || (m < len(s.kv.Key) && s.kv.Key[m] > key[m]) {
			return s.fast || s.land()
		}
	}
	s.valid = false
	return false
}

func (s *Seeker) seekRowIndex(key []byte) bool {
	lo := 0
	if s.valid && bytes.Compare(s.kv.Key, key) < 0 {
		// Ascending: if key is before the next restart, the answer is in
		// this interval; else search only the restarts after it.
		if s.ri >= s.riHi {
			return s.scan(key)
		}
		k, ok := s.restartKeyQuick(s.ri)
		if !ok {
			if k, ok = s.restartKey(s.ri); !ok {
				return false
			}
		}
		if bytes.Compare(k, key) >= 0 {
			return s.scan(key)
		}
		lo = s.ri + 1
	}
	// Find the first restart at or after lo whose key is >= key; the answer
	// is in the interval before it.
	lo = max(lo, s.riLo)
	hi := s.riHi
	if hi == 0 {
		s.valid = false
		return false // empty block
	}
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		k, ok := s.restartKeyQuick(m)
		if !ok {
			if k, ok = s.restartKey(m); !ok {
				return false
			}
		}
		if bytes.Compare(k, key) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	s.toRestart(max(lo-1, s.riLo))
	return s.scan(key)
}

// checkRestarts checks a restart array (at offset at of the block) over
// cells of n bytes: restart 0 is the first cell; offsets increase and stay
// inside the cells, so restartKey never reads out of the stream. Whether
// each offset is a cell boundary is checked by the step that reaches it.
func checkRestarts(restarts []byte, n, at int) error {
	prev := -1
	for i := 0; i < len(restarts)/restartLen; i++ {
		r := int(binary.LittleEndian.Uint32(restarts[restartLen*i:]))
		if (i == 0 && r != 0) || r <= prev || r >= n {
			return frame.Corrupt(at+restartLen*i, "restart %d at %d", i, r)
		}
		prev = r
	}
	return nil
}

// restartOffset returns the offset of restart i (0 <= i < nRestarts),
// checked against the cells by init.
func (s *Seeker) restartOffset(i int) int {
	return int(binary.LittleEndian.Uint32(s.restarts[restartLen*i:]))
}

// restartKeyQuick is restartKey for the common restart cell, inlined in
// the binary search: shared 0, one-byte suffix and value lengths, the
// suffix inside the cells (init checked that the offset is). It reports
// false for any other cell, which restartKey then reads or rejects.
// Measured: SeekGE on random keys, 803 -> 566 instructions in the search.
func (s *Seeker) restartKeyQuick(i int) ([]byte, bool) {
	c := s.cells[s.restartOffset(i):]
	if len(c) < 3 || c[0] != 0 || c[1]|c[2] >= 0x80 || int(c[1]) > len(c)-3 {
		return nil, false
	}
	return c[3 : 3+int(c[1])], true
}

// restartKey returns the key stored whole at restart i without moving.
func (s *Seeker) restartKey(i int) ([]byte, bool) {
	b := s.cells
	off := s.restartOffset(i)
	shared, suffix, _, p := frame.ReadLens3(b, off)
	if p < 0 || shared != 0 || suffix > len(b)-p {
		s.off, s.idx = off, i*s.interval
		return nil, s.corrupt("bad restart cell")
	}
	return b[p : p+suffix], true
}

// rewind positions s before the first cell, with the empty "previous
// cell" the encoders start from.
func (s *Seeker) rewind() {
	s.off, s.idx = 0, 0
	s.ri, s.nextRestart = 0, -1
	if s.enc == RowIndex {
		s.nextRestart = 0
	}
	s.kv.Key, s.val, s.kv.Kind = s.keyBuf[:0], nil, KindPut
	s.valid = false
	if len(s.area.Subs) > 0 { // LZ4Dict: the first step enters sub-block 0
		s.sub, s.subStart, s.cells = -1, 0, s.area.Raw[:0]
		s.riLo, s.riHi = 0, s.nRestarts
	}
}

// toRestart positions s before the cell at restart i.
func (s *Seeker) toRestart(i int) {
	s.off, s.idx = s.restartOffset(i), i*s.interval
	s.ri, s.nextRestart = i, i*s.interval
	s.kv.Key, s.val, s.kv.Kind = s.keyBuf[:0], nil, KindPut
	s.valid = false
}

// land makes the cell just stepped over current: decodes its seq, or
// with a seq column reads it there.
func (s *Seeker) land() bool {
	if s.intW == 0 {
		s.kv.Value = s.val
	} else {
		// A value column: the cells hold empty values.
		if len(s.val) != 0 {
			return s.corrupt("a value in the cells of a block with a value column")
		}
		s.kv.Value = s.intValue(s.idx - 1)
	}
	if i := s.idx - 1; i < len(s.seqCol) {
		// A seq column: the cells hold seq 0.
		if s.cells[s.seqOff] != 0 {
			return s.corrupt("a seq in the cells of a block with a seq column")
		}
		s.kv.Seq = uint64(s.seqCol[i]) // 0..MaxSeq: checked by initSeqColumn
		s.valid = true
		return true
	}
	b := s.tail[s.seqOff:] // seqOff < len(cells): checked by skipSeq
	c := b[0]
	switch {
	case c < 0x80: // one byte, 0..127
		s.kv.Seq = uint64(c)
	case c&^7 == 0x88 && len(b) >= vlong.MaxLen:
		// Non-negative multi-byte vlong (markers 0x88..0x8f: 8..1 payload
		// bytes), with 8 bytes readable after the marker: one load and a
		// shift, no branch on the width. With seqs of mixed widths
		// vlong.DecodeWide's switch on the width mispredicts: profiled, seq
		// decoding was 41% of a RowIndex scan of the "user" benchmark block
		// before this path. skipSeq checked that the payload lies inside
		// the cells; vlong.Decode remains the reference for other forms.
		pl := 0x90 - uint(c) // payload bytes, 1..8
		u := binary.BigEndian.Uint64(b[1:vlong.MaxLen]) >> (64 - 8*pl)
		if u > MaxSeq {
			s.off = s.seqOff
			return s.corrupt("bad seq")
		}
		s.kv.Seq = u
	default: // negative, or too near the block end for the wide load
		v, _, err := vlong.Decode(b)
		if err != nil || v < 0 {
			s.off = s.seqOff
			return s.corrupt("bad seq")
		}
		s.kv.Seq = uint64(v)
	}
	s.valid = true
	return true
}

// corrupt records an error at the current cell and offset and returns false.
func (s *Seeker) corrupt(what string) bool {
	where := "offset"
	if s.compressed {
		where = "uncompressed offset"
	}
	s.err = fmt.Errorf("%w: cell %d %s %d: %s", ErrCorrupt, s.idx, where, s.hdrLen+s.off, what)
	s.valid, s.fast = false, false
	return false
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
		if i > 0 {
			c := bytes.Compare(prev, s.kv.Key)
			if c > 0 || (c == 0 && prevSeq <= s.kv.Seq) {
				return fmt.Errorf("%w: cell %d out of order", ErrCorrupt, i)
			}
		}
		prev = append(prev[:0], s.kv.Key...)
		prevSeq = s.kv.Seq
	}
	return s.Err()
}
