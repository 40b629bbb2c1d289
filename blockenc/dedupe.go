package blockenc

import (
	"encoding/binary"
	"fmt"
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

// Dedupe table size: Kudu's and the 256-1024 slots. 512 slots of 8
// bytes stay in L1 while encoding.
const (
	dedupLog   = 9
	dedupSlots = 1 << dedupLog
	// dedupMin is the shortest value worth a back-reference: a reference
	// costs at least one byte, and usually two or three.
	dedupMin = 3
)

// dedupTable maps the hash of a value to where an earlier copy of it is in
// the encoder's buffer.
type dedupTable struct {
	slot [dedupSlots]struct{ off, n uint32 } // n == 0: empty
}

func (t *dedupTable) reset() { clear(t.slot[:]) }

// dedupHash hashes the first and last 8 bytes and the length of v. It is
// not CRC32C (Kudu's choice): crc32.Checksum costs a call and a dispatch
// per value, more than this multiply on the 4-16 byte values dedupe is for;
// a weak hash only makes the lossy table lose more, never a wrong match
// (lookup compares the bytes).
func dedupHash(v []byte) uint32 {
	var x uint64
	if n := len(v); n >= 8 {
		x = binary.LittleEndian.Uint64(v) ^ binary.LittleEndian.Uint64(v[n-8:])>>1
	} else {
		for i, c := range v {
			x |= uint64(c) << (8 * i)
		}
	}
	x ^= uint64(len(v)) << 59
	return uint32((x * 0x9E3779B97F4A7C15) >> (64 - dedupLog))
}

// lookup returns the offset in buf of an earlier copy of v at or after
// minOff (the current sub-block), or -1.
func (t *dedupTable) lookup(buf, v []byte, minOff int) int {
	if len(v) < dedupMin {
		return -1
	}
	s := &t.slot[dedupHash(v)]
	off, n := int(s.off), int(s.n)
	if n != len(v) || off < minOff || string(buf[off:off+n]) != string(v) {
		return -1
	}
	return off
}

// insert remembers that v was written at offset off.
func (t *dedupTable) insert(v []byte, off int) {
	if len(v) >= dedupMin {
		t.slot[dedupHash(v)] = struct{ off, n uint32 }{uint32(off), uint32(len(v))}
	}
}

// setValueField reads the value at p whose length field said v: with
// dedupe, v is the doubled length, odd for a back-reference.
func (s *Seeker) setValueField(p, v int) int {
	if !s.dedup {
		return s.setValue(p, v)
	}
	if v&1 == 0 {
		return s.setValue(p, v>>1)
	}
	n := v >> 1
	d, q := readLen(s.cells, p)
	if q < 0 || d < n || d > p-s.subStart {
		return -1
	}
	s.val = s.cells[p-d : p-d+n : p-d+n]
	return q
}

// checkFlagPairs rejects flag pairs no encoder writes: both LZ4 forms, and
// dedupe with a value column (values in a column are not in the cells to
// dedupe).
func checkFlagPairs(flags byte) error {
	if flags&(flagLZ4|flagLZ4Dict) == flagLZ4|flagLZ4Dict {
		return fmt.Errorf("%w: offset 2: flags %#02x: LZ4 and LZ4Dict both set", ErrCorrupt, flags)
	}
	if flags&(flagValueDedup|flagIntValues) == flagValueDedup|flagIntValues {
		return fmt.Errorf("%w: offset 2: flags %#02x: dedupe and a value column both set", ErrCorrupt, flags)
	}
	return nil
}
