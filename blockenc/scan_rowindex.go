package blockenc

import "encoding/binary"

// The RowIndex fast path: Next and the scan of a SeekGE on a RowIndex
// block without dedupe and without LZ4Dict sub-blocks (s.fast, chosen by
// Init; whole-block LZ4 and a value column leave the cells as this reads
// them). The general path costs five calls per cell (step, stepPrefix,
// setKey, valueKindSeq, skipSeq, then land) and tests the feature fields
// in each; this decodes the common cell in one function and falls back to
// the general path for anything else.

// nextFast moves to the next cell of a fast block if it is a common one,
// and reports whether it did; if not (the end of the block, an unusual
// cell or a bad one) it has changed nothing, and the general path (step
// and land) decodes the cell from the same state and says what is wrong.
//
// A common cell has three one-byte lengths, a kind byte, a seq of one
// byte or a non-negative multi-byte vlong, and a key that fits the key
// buffer. nextFast calls nothing, so it needs no stack frame.
//
// Reads go through s.tail, which Init made at least 8 bytes longer than
// the cells (the restart array and checksum follow them; decompressed
// cells have 8 bytes of slack), so fixed-size loads of the cell head and
// of a seq at the end of the cells stay in it; what a cell claims is
// checked against the end of the cells: once the cell's end is inside
// them, so is every field before it.
//
// In a fast block s.key has the capacity of the key buffer it aliases, so
// the key is set by reslicing it (Cell caps it).
func (s *Seeker) nextFast() bool {
	idx, p, t := s.idx, s.off, s.tail
	if idx >= s.count || uint(p)+32 > uint(len(t)) {
		return false
	}
	le := binary.LittleEndian
	// shared, suffix length and value length, one byte each. Fixed-size
	// slices (x[a:a+8:a+8]) cost one bounds check and no pointer masking.
	h := le.Uint64(t[p : p+8 : p+8])
	shared, slen := int(h&0xff), int(h>>8&0xff)
	k := p + 3 + slen        // value
	v := k + int(h>>16&0xff) // kind, seq
	key := s.key
	if h&0x808080 != 0 || slen > 16 || shared > len(key) || shared+32 > cap(key) || uint(v)+10 > uint(len(t)) {
		// The key buffer never grows past MaxKeyLen+16 (setKey), so a
		// key that fits it is not too long.
		return false
	}
	x := t[v : v+10 : v+10] // kind, seq marker, 8 bytes
	seq, end := uint64(x[1]), v+2
	if x[0] > byte(KindPut) {
		return false
	}
	if seq >= 0x80 {
		// As in land: a non-negative vlong of 1..8 payload bytes (marker
		// 0x88+8-payload), read with one big-endian load and a shift.
		if seq&^7 != 0x88 {
			return false
		}
		end += 8 - int(seq&7)
		seq = binary.BigEndian.Uint64(x[2:]) >> (8 * (seq & 7))
		if int64(seq) < 0 {
			return false
		}
	}
	if n := len(s.cells); end > n || (idx+1 == s.count && end != n) {
		return false
	}
	if idx == s.nextRestart {
		if shared != 0 || p != s.restartOffset(s.ri) {
			return false
		}
		s.ri++
		s.nextRestart += s.interval
	}
	// The shared prefix is in place; the suffix (up to 16 bytes) is
	// copied with two 8-byte loads and stores.
	src, dst := t[p+3:p+19:p+19], key[shared:shared+16:shared+16]
	le.PutUint64(dst[:8], le.Uint64(src[:8]))
	le.PutUint64(dst[8:], le.Uint64(src[8:]))
	s.key = s.key[:shared+slen]
	s.val = t[k:v:v]
	s.kind, s.seq = Kind(x[0]), seq
	s.off, s.idx = end, idx+1
	s.shared = shared
	s.valid = true
	return true
}
