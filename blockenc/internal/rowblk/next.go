package rowblk

import (
	"encoding/binary"

	"github.com/kvenc/kvenc/blockenc/internal/cell"
)

// The RowIndex fast path. A RowIndex block without LZ4Dict sub-blocks
// (s.Fast, chosen by Init; whole-block LZ4, dedupe and a value column
// leave the cells as this reads them) is read by Next alone, for Next and
// for the scan of a SeekGE. The general path costs six calls per
// cell (step, stepPrefix, setKey, valueKindSeq, skipSeq, land) that test
// the feature fields in each; Next decodes the common cell in one
// function and leaves any other to the general path.

// Next moves to the next cell (from before the first cell: to the first
// one). It returns false at the end of the block or on error.
//
// On a fast block Next decodes the common cell itself: three one-byte
// lengths (with dedupe the value length field doubled, odd for a
// back-reference of a one- or two-byte distance), a kind byte, a seq of one byte or a non-negative multi-byte
// vlong, a key suffix of up to 32 bytes that leaves the key buffer 32
// bytes to spare. It writes no field until every check has passed, so any
// other cell, and every bad one, is decoded by the general path (next:
// step and land) from the same state, which says what is wrong. So is the
// last cell of the block, whose end must be the end of the cells: one
// test less for every other cell.
//
// Reads go through s.Tail, which Init made at least 8 bytes longer than
// the cells (the restart array and checksum follow them; decompressed
// cells have 8 bytes of slack), so fixed-size loads of the cell head and
// of a seq at the end of the cells stay in it; what a cell claims is
// checked against the end of the cells: once the cell's end is inside
// them, so is every field before it. Array conversions
// ((*[n]byte)(t[a:a+n])) cost one bounds check and no pointer masking,
// and index their bytes without more checks.
//
// In a fast block s.KV.Key has the capacity of the key buffer it aliases, so
// the key is set by reslicing it (Cell caps it).
//
// Measured with callgrind: BenchmarkBlock's RowIndex scan (Next and Cell)
// runs 170-190 instructions per cell against 355-359 on the general
// path; Next alone is about 150, where Pebble's rowblk spends about 200 in
// Next, readEntry and memmove.
//
// Dedupe blocks take this path too: a scan of BenchmarkDedupe's cells
// (Init, Next, Cell and a copy of each value) runs 1.10x the instructions
// of the same cells without dedupe on l_shipmode and 1.03x on l_shipdate
// (1.88x and 1.72x on the general path; callgrind). The dedupe code sits
// behind one test of s.dedupe: merged into the common path it cost blocks
// without dedupe 3.5% more instructions.
func (s *Reader) Next() bool {
	var (
		idx, p, t    = s.Idx, s.Off, s.Tail
		w            *[40]byte // the cell's first 40 bytes
		x            *[10]byte // kind, seq marker, 8 bytes
		h, seq       uint64
		shared, slen int
		k, v, end    int
		vs, ve       int // the value is t[vs:ve]
		key          []byte
	)
	if !s.Fast || idx+1 >= s.Count || uint(p)+40 > uint(len(t)) {
		goto general
	}
	w = (*[40]byte)(t[p : p+40])
	// shared, suffix length and value length, one byte each.
	h = binary.LittleEndian.Uint64(w[:8])
	shared, slen = int(h&0xff), int(h>>8&0xff)
	k = p + 3 + slen        // value
	v = k + int(h>>16&0xff) // kind, seq
	key = s.KV.Key
	if h&0x808080 != 0 || slen > 32 || shared > len(key) || shared+slen+32 > cap(key) || uint(v)+10 > uint(len(t)) {
		// The key buffer never grows past cell.MaxKeyLen+32 (setKey), so a
		// key that leaves it 32 bytes is not too long.
		goto general
	}
	vs, ve = k, v
	if s.dedupe {
		// A doubled value length field; odd: a back-reference. The
		// checks above hold for the true v, which is at most the v they
		// saw, but for a two-byte distance after a field of 1 (an empty
		// value): checked there.
		if vf := int(h >> 16 & 0xff); vf&1 != 0 {
			// A back-reference (see dedupe.go): a distance of one or two
			// bytes (dedupMaxDist) at k, inside w (slen <= 32), to the
			// value's copy before it. A fast block has no sub-blocks:
			// the copy may be anywhere before k. The width is a branch,
			// not arithmetic: the distances to a block's few copies are
			// mostly of one width, and a predicted branch does not wait
			// for the load to find the next cell.
			d := int(w[k-p])
			v = k + 1
			if d >= 0x80 {
				if w[k-p+1] >= 0x80 || uint(k)+2+10 > uint(len(t)) {
					goto general
				}
				d = d&0x7f | int(w[k-p+1])<<7
				v = k + 2
			}
			n := vf >> 1
			if d < n || d > k {
				goto general
			}
			vs, ve = k-d, k-d+n
		} else {
			ve = k + vf>>1
			v = ve
		}
	}
	x = (*[10]byte)(t[v : v+10])
	// The seq as land reads it: one byte or a non-negative vlong of 1..8
	// payload bytes (marker 0x88+8-payload), the 9 bytes after the kind.
	// prefixkeys.DecodeSeq, written out here so that the seq's length
	// comes from the same branch (fewer instructions per cell).
	seq, end = uint64(x[1]), v+2
	if x[0] > byte(cell.KindPut) {
		goto general
	}
	if seq >= 0x80 {
		if seq&^7 != 0x88 {
			goto general
		}
		end += 8 - int(seq&7)
		seq = binary.BigEndian.Uint64(x[2:]) >> (8 * (seq & 7))
		if int64(seq) < 0 {
			goto general
		}
	}
	if end > len(s.Cells) {
		goto general
	}
	if idx < len(s.seqCol) { // a seq column: the cell's seq is 0 (land says why not)
		if seq != 0 {
			goto general
		}
		seq = uint64(s.seqCol[idx]) // 0..MaxSeq: checked by initSeqColumn
	}
	if s.intW != 0 && ve != vs { // a value column: the cell's value is empty (land says why not)
		goto general
	}
	if idx == s.NextRestart && !s.CheckRestart(shared, p) {
		goto general
	}
	// The shared prefix is in place; the suffix is copied as 32 bytes (two
	// 16-byte moves, no memmove call): the key buffer has room for them.
	{
		d := (*[32]byte)(key[shared : shared+32])
		*(*[16]byte)(d[:16]) = *(*[16]byte)(w[3:19])
		*(*[16]byte)(d[16:]) = *(*[16]byte)(w[19:35])
	}
	s.KV.Key = s.KV.Key[:shared+slen]
	if s.intW == 0 {
		s.KV.Value = t[vs:ve:ve]
	} else {
		s.KV.Value = s.intValue(idx)
	}
	s.KV.Kind, s.KV.Seq = cell.Kind(x[0]), seq
	s.Off, s.Idx = end, idx+1
	s.Shared = shared
	s.Valid = true
	return true
general:
	return s.next()
}
