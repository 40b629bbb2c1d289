package shapeshift

import (
	"encoding/binary"
)

// chunkRef is what Get needs to know about one chunk. Every form is read
// as bit-packed fields: BytePack (and expanded chunks) as 8w-bit fields,
// Raw as 64-bit fields with base 0, Zero and Constant as 0-bit fields.
type chunkRef struct {
	base int64  // min, the value (Constant), 0 (Zero, Raw)
	mask uint64 // field mask
	p    []byte // packed fields: in the column, or in Column.side for expanded chunks
	bits uint8  // bits per field, 0..64
	// slow is set for BitPack fields of 57..63 bits, which one 8-byte
	// load cannot always hold.
	slow bool
}

// zeros8 is the packed data of Zero and Constant chunks: one 8-byte load.
var zeros8 = make([]byte, 8)

// Column is a validated column for random access. Get reads every chunk in
// place: Zero, Constant, BytePack, BitPack and Raw chunks in the column's
// bytes, and chunks of the other forms (Delta, RunLength, Patched, LZ4) in
// a frame-of-reference byte-packed copy that Open makes (see Open for its
// memory cost).
//
// A Column aliases the bytes passed to Open: they must not change while the
// Column is used. Get does not mutate the Column, so one Column may be read
// by many goroutines at once.
type Column struct {
	n      int
	log    uint
	mask   int
	chunks []chunkRef
	comp   [numForms]int
	side   []byte // byte-packed copies of the chunks Get cannot read in place
}

// Open validates src (checksum first, then the header, the offsets and
// every chunk) and returns a Column over it. Errors wrap ErrCorrupt.
//
// Chunks that Get cannot read in place (Delta, RunLength, Patched, LZ4) are
// decoded here, which validates them, and kept byte-packed from the chunk's
// minimum: the Column then holds, besides src, w bytes per value of those
// chunks, w being the bytes their value range needs (1..8; about as much as
// the column itself for Patched and LZ4 chunks, and usually 2-4x more for
// Delta chunks, whose bit-packed deltas are narrower than the values).
// In return a random Get costs one load for every form (BenchmarkGet)
// where decoding the whole chunk on every jump to another chunk cost
// 2.6-18 us.
func Open(src []byte) (*Column, error) {
	h, err := parseHeader(src)
	if err != nil {
		return nil, err
	}
	c := &Column{
		n:      h.count,
		log:    h.log,
		mask:   1<<h.log - 1,
		chunks: make([]chunkRef, h.nChunks),
		comp:   h.comp,
	}
	var comp [numForms]int
	var buf []int64 // decoded chunk
	var lz []byte   // LZ4 scratch
	type sideRef struct{ chunk, at int }
	var sides []sideRef
	for i := range c.chunks {
		b, n, at := h.chunk(i)
		if err := checkChunk(b, n, at); err != nil {
			return nil, err
		}
		f := Form(b[0])
		comp[f]++
		r := &c.chunks[i]
		switch f {
		case Zero, Constant:
			r.p = zeros8
			if f == Constant {
				r.base = int64(binary.LittleEndian.Uint64(b[1:]))
			}
		case BytePack, BitPack:
			r.base = int64(binary.LittleEndian.Uint64(b[1:]))
			r.bits = b[9]
			if f == BytePack {
				r.bits *= 8
			}
			r.mask = lowMask(int(r.bits))
			r.p = b[hdrBytePack:]
			r.slow = r.bits > 56 && r.bits%8 != 0
		case Raw:
			r.bits, r.mask, r.p = 64, ^uint64(0), b[hdrRaw:]
		default:
			if buf == nil {
				buf = make([]int64, 1<<h.log)
			}
			v := buf[:n]
			if err := decodeChunk(v, b, at, &lz); err != nil {
				return nil, err
			}
			lo, hi := v[0], v[0]
			for _, x := range v {
				lo, hi = min(lo, x), max(hi, x)
			}
			w := byteWidth(bitLen(uint64(hi - lo)))
			r.base, r.bits, r.mask = lo, uint8(8*w), lowMask(8*w)
			sides = append(sides, sideRef{i, len(c.side)})
			c.side = putBytePack(c.side, v, lo, w)
		}
	}
	if comp != h.comp {
		return nil, corrupt("chunk forms %v disagree with the composition %v, offset 1", comp, h.comp)
	}
	// c.side is complete: point the expanded chunks into it.
	for _, s := range sides {
		c.chunks[s.chunk].p = c.side[s.at:]
	}
	return c, nil
}

// Clone returns a Column over the same bytes. Since Get no longer mutates a
// Column, Clone is only a shallow copy, kept for callers that gave each
// goroutine its own.
func (c *Column) Clone() *Column {
	d := *c
	return &d
}

// Len returns the number of values in the column.
func (c *Column) Len() int { return c.n }

// Composition returns the number of chunks stored in each form; forms with
// no chunk are absent.
func (c *Column) Composition() map[Form]int {
	m := make(map[Form]int)
	for f, n := range c.comp {
		if n > 0 {
			m[Form(f)] = n
		}
	}
	return m
}

// Get returns value i. It panics if i is out of range [0, Len()), like a
// slice index; it cannot fail otherwise.
func (c *Column) Get(i int) int64 {
	if uint(i) >= uint(c.n) {
		panic("shapeshift: Get index out of range")
	}
	r := &c.chunks[i>>c.log]
	// One unaligned 8-byte load at the field's first byte holds the whole
	// field unless it is a 57..63-bit one (r.slow) or the load would run
	// past the chunk (the last few BitPack fields; BytePack and Raw fields
	// never, thanks to the padding). One path for every form, no switch.
	p := uint(i&c.mask) * uint(r.bits)
	if k := p >> 3; k+8 <= uint(len(r.p)) && !r.slow {
		return r.base + int64(binary.LittleEndian.Uint64(r.p[k:])>>(p&7)&r.mask)
	}
	return r.getSlow(i & c.mask)
}

// getSlow is Get's path for the fields one 8-byte load cannot reach; kept
// out of Get so that Get can be inlined.
//
//go:noinline
func (r *chunkRef) getSlow(j int) int64 {
	return r.base + int64(getBits(r.p, int(r.bits), j))
}
