// Package prefixkeys reads a stream of cells whose keys are prefix
// compressed, with restarts: the keys of row blocks (Prefix, RowIndex) and
// of Columnar key columns. Each cell starts
//
//	cell := shared uv | slen uv | [vlen uv] | suffix (slen bytes) | ...
//
// where the key is the first shared bytes of the previous key followed by
// the suffix (Reader.Lens says whether a value length sits before the
// suffix: 3 lengths in row cells, 2 in Columnar key cells). Restart cells,
// every Interval cells, store their key whole (shared 0) at the offsets a
// restart array gives, so that a seek binary-searches the restart keys and
// scans at most one interval:
//
//	restarts := offset u32 (little-endian) * nrestarts
//
// What follows the suffix (value, kind, seq) is the block layout's; a seq
// stored in the stream is a Hadoop vlong that SkipSeq skips and DecodeSeq
// and LandSeqSlow read.
package prefixkeys

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/kvenc/kvenc/blockenc/internal/cell"
	"github.com/kvenc/kvenc/blockenc/internal/frame"
	"github.com/kvenc/kvenc/vlong"
)

// RestartLen is the length of one restart offset.
const RestartLen = 4

// MaxInterval bounds the restart interval of a block.
const MaxInterval = 1 << 16

// Reader is a position in a cell stream and the cell there. The layouts
// embed it and decode their cells into it; it checks every bound it reads,
// and an error (Corrupt) is sticky until the layout resets it.
type Reader struct {
	Cells      []byte // the cell stream
	Tail       []byte // Cells and at least 8 more readable bytes when the layout has them (for seqs)
	Restarts   []byte // the restart array
	HdrLen     int    // offset of Cells in the block, for error positions (0 when decompressed)
	Compressed bool   // Cells were decompressed: errors say "uncompressed offset"
	Lens       int    // uvarint lengths before a cell's suffix: 2 or 3
	Count      int    // cells in the stream
	Interval   int    // cells per restart
	NRestarts  int

	Off         int  // offset in Cells of the next cell to decode
	Idx         int  // index of the next cell to decode
	RI          int  // number of the next restart to meet
	NextRestart int  // index of the cell at restart RI; -1: no restarts
	RILo, RIHi  int  // the restarts a seek may read (all, or an LZ4Dict sub-block's)
	Run         int  // the run of cells Cells holds (LZ4Dict: the sub-block; -1 before the first)
	ValueAt     bool // the layout reads a cell's value by its index: Back keeps none
	Back        Back // cells kept for backward moves

	// KV is the current cell; its Key aliases Cells or KeyBuf.
	KV     cell.Cell
	KeyBuf []byte // keys rebuilt from shared prefixes and suffixes
	Shared int    // bytes the current key shares with the previous one
	SeqOff int    // offset in Cells of the current cell's seq
	Valid  bool   // KV is a cell
	Fast   bool   // the layout's own fast path may run (cleared by an error)
	Fail   error  // the error that stopped the reader (sticky)
}

// Corrupt records an error at the current cell and offset and returns
// false.
func (r *Reader) Corrupt(what string) bool {
	where := "offset"
	if r.Compressed {
		where = "uncompressed offset"
	}
	r.Fail = fmt.Errorf("%w: cell %d %s %d: %s", frame.ErrCorrupt, r.Idx, where, r.HdrLen+r.Off, what)
	r.Valid, r.Fast = false, false
	return false
}

// CheckRestarts checks a restart array (at offset at of the block) over
// cells of n bytes: restart 0 is the first cell; offsets increase and stay
// inside the cells, so RestartKey never reads out of the stream. Whether
// each offset is a cell boundary is checked by the step that reaches it
// (CheckRestart).
func CheckRestarts(restarts []byte, n, at int) error {
	prev := -1
	for i := 0; i < len(restarts)/RestartLen; i++ {
		r := int(binary.LittleEndian.Uint32(restarts[RestartLen*i:]))
		if (i == 0 && r != 0) || r <= prev || r >= n {
			return frame.Corrupt(at+RestartLen*i, "restart %d at %d", i, r)
		}
		prev = r
	}
	return nil
}

// RestartOffset returns the offset of restart i (0 <= i < NRestarts),
// checked against the cells by CheckRestarts.
func (r *Reader) RestartOffset(i int) int {
	return int(binary.LittleEndian.Uint32(r.Restarts[RestartLen*i:]))
}

// CheckRestart is called when the cell at off, whose key shares shared
// bytes, is the one restart RI names (Idx == NextRestart): it must be a
// whole key at the restart's offset. It moves on to the next restart.
func (r *Reader) CheckRestart(shared, off int) bool {
	if shared != 0 || off != r.RestartOffset(r.RI) {
		return false
	}
	r.RI++
	r.NextRestart += r.Interval
	return true
}

// RestartKey returns the key stored whole at restart i without moving.
func (r *Reader) RestartKey(i int) ([]byte, bool) {
	if k, ok := r.restartKeyQuick(i); ok {
		return k, true
	}
	return r.restartKeySlow(i)
}

// restartKeyQuick is RestartKey for the common restart cell, inlined in
// the binary search: shared 0, one-byte lengths, the suffix inside the
// cells (CheckRestarts checked that the offset is). It reports false for
// any other cell, which restartKeySlow then reads or rejects. Measured:
// SeekGE on random keys ran 803 instructions in the search without it,
// 566 with it.
func (r *Reader) restartKeyQuick(i int) ([]byte, bool) {
	c := r.Cells[r.RestartOffset(i):]
	n := r.Lens
	if len(c) < 3 || c[0] != 0 || c[1]|c[n-1] >= 0x80 || int(c[1]) > len(c)-n {
		return nil, false
	}
	return c[n : n+int(c[1])], true
}

func (r *Reader) restartKeySlow(i int) ([]byte, bool) {
	b := r.Cells
	off := r.RestartOffset(i)
	shared, slen, p := frame.ReadLens2(b, off)
	if r.Lens == 3 {
		_, p = frame.ReadLen(b, p)
	}
	if p < 0 || shared != 0 || slen > len(b)-p {
		r.Off, r.Idx = off, i*r.Interval
		return nil, r.Corrupt("bad restart cell")
	}
	return b[p : p+slen], true
}

// SeekStart finds where a SeekGE for key scans from: the current cell
// (-1) when key is after it and not after the next restart's key, else
// the restart before the first restart in [RILo, RIHi) whose key is >=
// key. It returns false on a bad restart cell (Fail is set) or when there
// are no restarts.
func (r *Reader) SeekStart(key []byte) (int, bool) {
	lo := r.RILo
	if r.Valid && bytes.Compare(r.KV.Key, key) < 0 {
		// Ascending: if key is before the next restart, the answer is in
		// this interval; else search only the restarts after it.
		if r.RI >= r.RIHi {
			return -1, true
		}
		k, ok := r.restartKeyQuick(r.RI)
		if !ok {
			if k, ok = r.restartKeySlow(r.RI); !ok {
				return 0, false
			}
		}
		if bytes.Compare(k, key) >= 0 {
			return -1, true
		}
		lo = max(lo, r.RI+1)
	}
	hi := r.RIHi
	if hi == 0 {
		r.Valid = false
		return 0, false
	}
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		k, ok := r.restartKeyQuick(m)
		if !ok {
			if k, ok = r.restartKeySlow(m); !ok {
				return 0, false
			}
		}
		if bytes.Compare(k, key) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return max(lo-1, r.RILo), true
}

// Rewind positions r before the first cell, with the empty previous key
// the encoders start from.
func (r *Reader) Rewind() {
	r.Off, r.Idx, r.RI = 0, 0, 0
	r.NextRestart = -1
	if r.NRestarts > 0 {
		r.NextRestart = 0
	}
	r.KV.Key, r.KV.Kind = r.KeyBuf[:0], cell.KindPut
	r.Valid = false
}

// PrevIndex returns the cell a Prev moves to: the one before the current
// cell, or from after the last cell (not on a cell, past cell 0) the last;
// -1 when there is none (on or before the first cell) and on error.
func (r *Reader) PrevIndex() int {
	switch {
	case r.Fail != nil:
		return -1
	case r.Valid:
		return r.Idx - 2 // the current cell is Idx-1
	case r.Idx == 0:
		return -1
	}
	return r.Count - 1
}

// LastIndex returns the cell a Last moves to: the last; -1 when the
// stream is empty and on error.
func (r *Reader) LastIndex() int {
	if r.Fail != nil {
		return -1
	}
	return r.Count - 1
}

// ToRestart positions r before the cell at restart i.
func (r *Reader) ToRestart(i int) {
	r.Off, r.Idx = r.RestartOffset(i), i*r.Interval
	r.RI, r.NextRestart = i, i*r.Interval
	r.KV.Key, r.KV.Kind = r.KeyBuf[:0], cell.KindPut
	r.Valid = false
}

// Reached tells a scan whether the key just decoded is >= key. m is what
// the scan knows: -1 at first, then the bytes the previous key (below key)
// shares with key. Most steps need no key comparison: a key that shares
// more than m bytes with the previous one is below key too (its byte m is
// the previous key's), and the caller skips Reached then (Shared > m). One
// that shares fewer is above it when the shared length is the longest
// (cells are sorted), which an Encoder ensures but a restart, an LZ4Dict
// sub-block start or a hostile block need not: such a key is compared from
// its shared length on, which costs a byte compare once per seek. It
// returns the new m.
func (r *Reader) Reached(m int, key []byte) (int, bool) {
	if m >= 0 {
		m = r.Shared // the key and key agree on Shared <= m bytes
	} else {
		m = 0
	}
	k := r.KV.Key
	m += SharedPrefixLen(k[m:], key[m:])
	return m, m == len(key) || (m < len(k) && k[m] > key[m])
}

// SetKey makes the current key its first shared bytes followed by suffix.
func (r *Reader) SetKey(shared int, suffix []byte) bool {
	if shared > len(r.KV.Key) {
		return r.Corrupt("shared prefix longer than previous key")
	}
	n := shared + len(suffix)
	if n > cell.MaxKeyLen {
		return r.Corrupt("key too long")
	}
	if n+32 > cap(r.KeyBuf) {
		// 32 bytes to spare (a fast path may copy a suffix of up to 32
		// bytes whole), never more than MaxKeyLen+32 (so a key that leaves
		// a fast path its 32 bytes is not too long).
		nb := make([]byte, n, min(max(n+32, 2*cap(r.KeyBuf), 64), cell.MaxKeyLen+32))
		copy(nb, r.KV.Key[:shared])
		r.KeyBuf = nb
	}
	r.Shared = shared
	// KV.Key is KeyBuf[:len(KV.Key)], so the shared prefix is in place.
	// A suffix of up to 16 bytes (the common case) is copied with two
	// 8-byte loads and stores, not a memmove call: KeyBuf keeps 32 spare
	// bytes, and the bytes loaded past the suffix are only read when
	// cap(suffix) shows they are in the block.
	buf := r.KeyBuf[:cap(r.KeyBuf)]
	if len(suffix) <= 16 && cap(suffix) >= 16 {
		le := binary.LittleEndian
		dst, src := buf[shared:shared+16], suffix[:16]
		le.PutUint64(dst, le.Uint64(src))
		le.PutUint64(dst[8:], le.Uint64(src[8:]))
	} else {
		copy(buf[shared:n], suffix)
	}
	r.KV.Key = buf[:n] // the capacity of KeyBuf: a fast path reslices it
	return true
}

// SkipSeq notes the seq vlong at p and moves past it without decoding it
// (a seek decodes only the seq of the cell it lands on), ending
// the cell.
func (r *Reader) SkipSeq(p int) bool {
	if p < 0 || p >= len(r.Cells) {
		return r.Corrupt("cell overruns the block")
	}
	n := vlong.LenFromFirstByte(r.Cells[p])
	if n > len(r.Cells)-p {
		return r.Corrupt("seq overruns the block")
	}
	r.SeqOff = p
	r.Off = p + n
	return r.EndCell()
}

// EndCell counts the cell that ends at Off; the last must end the stream.
func (r *Reader) EndCell() bool {
	r.Idx++
	if r.Idx == r.Count && r.Off != len(r.Cells) {
		return r.Corrupt("bytes after the last cell")
	}
	return true
}

// LandSeq decodes the seq at SeqOff into KV.Seq and makes KV a cell.
func (r *Reader) LandSeq() bool {
	if s, ok := DecodeSeq(r.Tail[r.SeqOff:]); ok { // SeqOff < len(Cells): checked by SkipSeq
		r.KV.Seq = s
	} else if !r.LandSeqSlow() {
		return false
	}
	r.Valid = true
	return true
}

// LandSeqSlow decodes the seq at SeqOff into KV.Seq, for the seqs
// DecodeSeq does not take.
func (r *Reader) LandSeqSlow() bool {
	v, _, err := vlong.Decode(r.Tail[r.SeqOff:])
	if err != nil || v < 0 {
		r.Off = r.SeqOff
		return r.Corrupt("bad seq")
	}
	r.KV.Seq = uint64(v)
	return true
}

// DecodeSeq decodes the common seqs: one byte, 0..127, or a non-negative
// multi-byte vlong (markers 0x88..0x8f: 8..1 payload bytes) with 8 bytes
// readable after the marker, with one load and a shift, no branch on the
// width. With seqs of mixed widths vlong.DecodeWide's switch on the width
// mispredicts: profiled, seq decoding was 41% of a RowIndex scan of the
// "user" benchmark block without this. It reports false for any other
// vlong, which vlong.Decode, the reference, then reads or rejects.
func DecodeSeq(b []byte) (uint64, bool) {
	c := uint64(b[0])
	if c < 0x80 {
		return c, true
	}
	if c&^7 != 0x88 || len(b) < vlong.MaxLen {
		return 0, false
	}
	u := binary.BigEndian.Uint64(b[1:vlong.MaxLen]) >> (8 * (c & 7))
	return u, int64(u) >= 0
}

// SharedPrefixLen returns the length of the common prefix of a and b,
// comparing 8 bytes at a time.
func SharedPrefixLen(a, b []byte) int {
	n := min(len(a), len(b))
	a, b = a[:n], b[:n]
	i := 0
	for ; i+8 <= n; i += 8 {
		x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:])
		if x != 0 {
			return i + bits.TrailingZeros64(x)>>3
		}
	}
	for ; i < n && a[i] == b[i]; i++ {
	}
	return i
}
