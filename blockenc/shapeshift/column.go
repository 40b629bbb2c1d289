package shapeshift

import (
	"encoding/binary"
)

// chunkRef is what Get needs to know about one chunk. Every form is read
// as bit-packed fields with one unaligned 8-byte load: BytePack (and
// expanded chunks) as 8w-bit fields, Raw as 64-bit fields with base 0, Zero
// and Constant as 0-bit fields. Open makes sure 8 bytes can be loaded at
// the first byte of every field.
type chunkRef struct {
	base int64  // min, the value (Constant), 0 (Zero, Raw)
	mask uint64 // field mask
	p    []byte // packed fields: in the column, or in Column.side
	bits uint   // bits per field, 0..64 (never 57..63)
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
// Chunks that Get cannot read in place (Delta, PatchedDelta, RunLength,
// Patched, LZ4, BitPack of 57..63 bits) are decoded here, which validates
// them, and kept byte-packed from the chunk's minimum: the Column then
// holds, besides src, w bytes per value of those chunks, w being the bytes
// their value range needs (1..8; about as much as the column itself for
// Patched and LZ4 chunks, usually 2-4x more for Delta chunks and up to 10x
// more for PatchedDelta ones, whose bit-packed deltas are narrower than
// the values). The bound is 8 bytes per value, as for Decode: a small
// column of many values can make Open allocate that much, so check Len
// before opening untrusted columns if that matters. In return a random Get
// costs one load for every form (BenchmarkGet, BenchmarkGetSorted) where
// decoding the whole chunk on every jump to another chunk cost 2.6-18 us.
func Open(src []byte) (*Column, error) {
	h, err := parseIntHeader(src)
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
	var sb sideBuilder
	for i := range c.chunks {
		b, n, at := h.chunk(i)
		if err := checkChunk(b, n, at); err != nil {
			return nil, err
		}
		if Form(b[0]) == Huffman {
			return nil, corrupt("Huffman chunk %d in an integer column, offset %d", i, at)
		}
		comp[b[0]]++
		if err := sb.open(&c.chunks[i], src, b, n, at); err != nil {
			return nil, err
		}
	}
	if comp != h.comp {
		return nil, corrupt("chunk forms %v disagree with the composition %v, offset 1", comp, h.comp)
	}
	c.side = sb.finish()
	return c, nil
}

// sideBuilder makes the chunkRefs of integer chunks for random access (the
// chunks of a Column, the integer parts of a FloatColumn's chunks) and
// collects the byte-packed copies of those that cannot be read in place.
type sideBuilder struct {
	side []byte
	refs []sideRef
	buf  []int64 // decoded chunk
	lz   []byte  // LZ4 scratch
}

type sideRef struct {
	r  *chunkRef
	at int // offset in side
}

// open sets *r up for chunk body b (form byte first, n values, checked by
// checkChunk) at offset at of src. The pointer r must stay valid until
// finish.
func (s *sideBuilder) open(r *chunkRef, src, b []byte, n, at int) error {
	switch f := Form(b[0]); f {
	case Zero, Constant:
		r.p = zeros8
		if f == Constant {
			r.base = int64(binary.LittleEndian.Uint64(b[1:]))
		}
		return nil
	case BytePack:
		// The padding leaves 8 bytes at every field.
		r.base, r.bits, r.p = int64(binary.LittleEndian.Uint64(b[1:])), 8*uint(b[9]), b[hdrBytePack:]
		r.mask = lowMask(int(r.bits))
		return nil
	case Raw:
		r.bits, r.mask, r.p = 64, ^uint64(0), b[hdrRaw:]
		return nil
	case BitPack:
		r.base, r.bits = int64(binary.LittleEndian.Uint64(b[1:])), uint(b[9])
		r.mask = lowMask(int(r.bits))
		// Read in place, up to the end of src, when 8 bytes follow the
		// last field's first byte (all chunks but the last one or two
		// of a column); else a copy with 8 bytes of padding. Fields of
		// 57..63 bits can span 9 bytes: those chunks are expanded.
		if r.bits <= 56 {
			stream := src[at+hdrBitPack:]
			if (uint(n-1)*r.bits)>>3+8 <= uint(len(stream)) {
				r.p = stream
			} else {
				s.refs = append(s.refs, sideRef{r, len(s.side)})
				s.side = append(append(s.side, b[hdrBitPack:]...), zeros8...)
			}
			return nil
		}
	}
	// Delta, PatchedDelta, RunLength, Patched, LZ4, and BitPack of
	// 57..63 bits: decode (which validates) and keep byte-packed.
	if cap(s.buf) < n {
		s.buf = make([]int64, n)
	}
	v := s.buf[:n]
	if err := decodeChunk(v, b, at, &s.lz); err != nil {
		return err
	}
	lo, hi := v[0], v[0]
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	w := byteWidth(bitLen(uint64(hi - lo)))
	r.base, r.bits, r.mask = lo, 8*uint(w), lowMask(8*w)
	s.refs = append(s.refs, sideRef{r, len(s.side)})
	s.side = putBytePack(s.side, v, lo, w)
	return nil
}

// finish points the chunkRefs kept in the side buffer into it, now that
// it is complete, and returns it.
func (s *sideBuilder) finish() []byte {
	for _, x := range s.refs {
		x.r.p = s.side[x.at:]
	}
	return s.side
}

// get returns field j of the chunk r refers to.
func (r *chunkRef) get(j int) int64 {
	p := uint(j) * r.bits
	return r.base + int64(binary.LittleEndian.Uint64(r.p[p>>3:])>>(p&7)&r.mask)
}

// Len returns the number of values in the column.
func (c *Column) Len() int { return c.n }

// Composition returns the number of chunks stored in each form; forms with
// no chunk are absent.
func (c *Column) Composition() map[Form]int { return composition(&c.comp) }

// Get returns value i. It panics if i is out of range [0, Len()), like a
// slice index; it cannot fail otherwise.
//
// One path for every form: one unaligned 8-byte load at the field's first
// byte, a shift and a mask; small enough to be inlined.
func (c *Column) Get(i int) int64 {
	if uint(i) >= uint(c.n) {
		panic("shapeshift: Get index out of range")
	}
	return c.chunks[i>>c.log].get(i & c.mask)
}
