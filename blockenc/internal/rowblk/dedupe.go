package rowblk

import (
	"encoding/binary"

	"github.com/kvenc/kvenc/blockenc/internal/frame"
)

// Value dedupe (flag bit 2), after Kudu's lossy-hash string dedupe (change
// 15806): while encoding, a 512-slot table remembers where recent values
// are; on a hash collision the newer value evicts the older. A value found
// there (and not the previous value, which FastDiff already omits) is
// written as a back-reference:
//
//	value length field := vlen<<1        the value follows, vlen bytes
//	                    | vlen<<1 | 1    a back-reference follows:
//	backref            := dist uv        the value is the vlen bytes that
//	                                     start dist bytes before the dist
//	                                     field (dist >= vlen), in the same
//	                                     LZ4Dict sub-block
//
// Diff and FastDiff omit the field when the length repeats; a
// back-reference always writes it (with the flag bit for "same length"
// clear).

// Dedupe table size: Kudu's 256-1024 slots. 512 slots of 8
// bytes stay in L1 while encoding.
const (
	dedupLog   = 9
	dedupSlots = 1 << dedupLog
	// dedupMin is the shortest value worth a back-reference: a reference
	// costs at least one byte, and usually two or three.
	dedupMin = 3
)

// dedupMaxDist bounds the distance of a back-reference the encoder writes,
// so that it is a one- or two-byte uvarint, which the reader decodes
// without a call; a value whose copy is further back is written again and
// becomes the copy later references point to. (The format allows any
// distance.)
const dedupMaxDist = 1 << 14

// The adaptive cut-off. A lookup costs about as much whether it hits or
// not (the value's words, a hash, a slot that is rarely in L1 next to a
// 64 KiB block being written): on mostly distinct values the table costs
// its time and saves little. So the Encoder measures the hit rate of each
// block as it goes, in windows of dedupWindow lookups after dedupWarm
// lookups that fill the table (their hits are not counted: a cold table
// hits less than a warm one would); a window with fewer than 1 hit in
// dedupCutDen lookups turns the table off for dedupSkip values (the one
// that closed the window and the next ones), which are written as
// literals without a lookup or insert (lookupValue and noteValue, both
// inlined), and the table is then probed again, warm-up and window. A
// window that reaches the cut-off keeps the table on and starts the next
// window. Kudu's dictionary encoding gives up in a similar way, on size
// rather than hits: once its dictionary block outgrows the block size,
// the later data blocks switch to plain strings (binary_dict_block).
//
// Every block starts with the table on and cold (Reset), so a block's
// bytes depend only on its cells, never on the blocks the Encoder wrote
// before. Only the encoder changes: the format does not say which values
// must be back-references, and a literal is always valid.
//
// Measured on BenchmarkDedupe's columns (RowIndex, 64 KiB blocks):
// l_shipmode (7 distinct) hits 99% of lookups, l_shipdate (~2500
// distinct) 13%, with windows of 64 ranging 0-28%. Probing 96 values in
// 1119 (warm-up, window, skip) costs a twelfth of the lookups on
// shipdate; the table still runs on shipmode all the time. Encoding
// shipdate with dedupe ran 13% more instructions than without it before
// the cut-off, 4.3% with a skip of 512 values and 2.7% with 1024
// (callgrind, Add, Size and Finish of 20000 cells); shipdate blocks then
// come out 0.999x the size without dedupe instead of 0.952x. A column
// that turns repetitive inside a block is noticed within 1119 values.
const (
	dedupWarm   = 32
	dedupWindow = 64
	dedupCutDen = 4 // fewer than dedupWindow/dedupCutDen hits: off
	dedupSkip   = 1024
)

// dedupTable maps the hash of a value to where an earlier copy of it is in
// the encoder's buffer, with the value's words (see dedupWords), so a
// value of up to 16 bytes is matched without reading the buffer.
type dedupTable struct {
	slot [dedupSlots]dedupSlot
	last int    // slot of the value looked up last; -1: none
	gen  uint32 // slots of other generations are empty

	// The adaptive cut-off: values left to write without a lookup (the
	// table is off while skip > 0; noteValue counts them down), lookups
	// left before the window counts, and the lookups and hits of the
	// window.
	skip, warm, n, hits int
}

type dedupSlot struct {
	a, b   uint64
	off, n uint32
	gen    uint32
}

// startBlock empties the table and turns it on, for a new block.
func (t *dedupTable) startBlock() {
	t.reset()
	t.skip, t.warm, t.n, t.hits = 0, dedupWarm, 0, 0
}

// reset empties the table by starting a generation: clearing its 16 KiB
// for every block was 4% of encoding one (memclr in the profile).
func (t *dedupTable) reset() {
	t.gen++
	if t.gen == 0 { // wrapped: slots of generation 0 could look current
		clear(t.slot[:])
		t.gen = 1
	}
}

// dedupWords returns two words that, with the length, identify a value of
// up to 16 bytes (3 <= len(v)): the first and last 8 bytes, or for 4-7
// bytes the first and last 4, or the bytes. Longer values share words
// with others, and are compared byte by byte.
func dedupWords(v []byte) (a, b uint64) {
	le := binary.LittleEndian
	switch n := len(v); {
	case n >= 8:
		return le.Uint64(v), le.Uint64(v[n-8:])
	case n >= 4:
		return uint64(le.Uint32(v)) | uint64(le.Uint32(v[n-4:]))<<32, 0
	default:
		return uint64(v[0]) | uint64(v[1])<<8 | uint64(v[2])<<16, 0
	}
}

// dedupHash hashes a value's words and length. It is not CRC32C (Kudu's
// choice): crc32.Checksum costs a call and a dispatch per value, more than
// this multiply on the 4-16 byte values dedupe is for; a weak hash only
// makes the lossy table lose more, never a wrong match.
func dedupHash(a, b uint64, n int) uint32 {
	x := a ^ b*0xff51afd7ed558ccd ^ uint64(n)<<56
	return uint32((x * 0x9E3779B97F4A7C15) >> (64 - dedupLog))
}

// lookup returns the offset in buf of an earlier copy of v at or after
// minOff (the current sub-block) and near enough for a cell whose key has
// klen bytes, or -1. It remembers v's slot for insert.
func (t *dedupTable) lookup(buf, v []byte, minOff, klen int) int {
	t.last = -1
	if len(v) < dedupMin {
		return -1
	}
	a, b := dedupWords(v)
	h := dedupHash(a, b, len(v))
	t.last = int(h)
	s := &t.slot[h]
	off, n := int(s.off), int(s.n)
	// The back-reference field comes after at most a flags byte, three
	// length uvarints and the key.
	if n != len(v) || s.a != a || s.b != b || s.gen != t.gen || off < minOff || len(buf)+16+klen-off >= dedupMaxDist ||
		(n > 16 && string(buf[off:off+n]) != string(v)) {
		s.a, s.b = a, b // for insert
		off = -1
	}
	t.count(off >= 0)
	return off
}

// count adds a lookup to the cut-off's measure (see dedupWindow).
func (t *dedupTable) count(hit bool) {
	if t.warm > 0 {
		t.warm--
		return
	}
	t.n++
	if hit {
		t.hits++
	}
	if t.n == dedupWindow {
		if t.hits*dedupCutDen < dedupWindow {
			t.skip, t.warm = dedupSkip, dedupWarm
		}
		t.n, t.hits = 0, 0
	}
}

// insert remembers that the value just looked up (and missed) was written
// at offset off.
func (t *dedupTable) insert(off, n int) {
	if t.last >= 0 {
		s := &t.slot[t.last]
		s.off, s.n, s.gen = uint32(off), uint32(n), t.gen
	}
}

// Value length fields: with dedupe (Seeker.refBit 1, lenShift 1) a field
// is the doubled length, odd for a back-reference; without, refBit and
// lenShift are 0. Each step function tests v&s.refBit and calls
// setValueRef or the inlined setValue(p, v>>s.lenShift) itself: a helper
// doing both is too big to inline, and its call cost blocks without dedupe
// a call per cell.

// setValueRef reads a back-reference at p to an n-byte value.
func (s *Reader) setValueRef(p, n int) int {
	b := s.Cells
	var d, q int
	if p+2 <= len(b) && b[p]&b[p+1] < 0x80 { // dedupMaxDist: one or two bytes
		if b[p] < 0x80 {
			d, q = int(b[p]), p+1
		} else {
			d, q = int(b[p]&0x7f)|int(b[p+1])<<7, p+2
		}
	} else {
		d, q = frame.ReadLen(b, p)
	}
	if q < 0 || d < n || d > p-s.subStart {
		return -1
	}
	s.val = s.Cells[p-d : p-d+n : p-d+n]
	return q
}

// checkFlagPairs rejects flag pairs no encoder writes: both LZ4 forms, an
// external dictionary without LZ4Dict,
// dedupe with a value column (values in a column are not in the cells to
// dedupe), and a seq column without a value column.
func checkFlagPairs(flags byte) error {
	if flags&(frame.FlagLZ4|frame.FlagLZ4Dict) == frame.FlagLZ4|frame.FlagLZ4Dict {
		return frame.Corrupt(2, "flags %#02x: LZ4 and LZ4Dict both set", flags)
	}
	if flags&(frame.FlagExtDict|frame.FlagLZ4Dict) == frame.FlagExtDict {
		return frame.Corrupt(2, "flags %#02x: an external dictionary without LZ4Dict", flags)
	}
	if flags&(frame.FlagValueDedup|frame.FlagIntValues) == frame.FlagValueDedup|frame.FlagIntValues {
		return frame.Corrupt(2, "flags %#02x: dedupe and a value column both set", flags)
	}
	if flags&(frame.FlagSeqColumn|frame.FlagIntValues) == frame.FlagSeqColumn {
		return frame.Corrupt(2, "flags %#02x: a seq column without a value column", flags)
	}
	return nil
}
