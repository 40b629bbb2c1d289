package blockenc

import (
	"encoding/binary"
	"fmt"
	"github.com/kvenc/kvenc/blockenc/internal/frame"
	"math/bits"
)

// Packed values (values mode 3, format version 2): every value of the
// block has one length L (1..maxPackedLen) and the bytes that differ
// between values, each reduced by the smallest byte seen at its position
// and cut to the bits the range needs, fit together in 64 bits. Value i
// is then one integer of a shapeshift column: fixed-format text such as
// TPC-H's l_shipdate ("1995-03-13": 5 positions vary, 14 bits) packs to
// under 2 bytes a value where LZ4 leaves about 5. The layout:
//
//	packed := L uv | template (L bytes) | nvar u8 (0..64)
//	          | field * nvar | column
//	field  := pos uv | base u8 | bits u8 (1..8)
//
// Positions increase; a value is the template with, for each field from
// the last, byte pos = base + the low bits of the integer (then shifted
// right by bits). Fields concatenate most significant first, so packed
// integers sort as their values do.

// maxPackedLen bounds the values the Encoder tracks for the packed form:
// past it every value costs the encoder a per-byte min/max pass and more
// than 64 bits would rarely be enough anyway.
const maxPackedLen = 32

// maxPackFields is the most fields a layout has: each takes a bit or more
// of the 64.
const maxPackFields = 64

// packLayout says which bytes of a fixed-length value vary and how they
// pack into an integer.
type packLayout struct {
	n     int // fields
	bits  int // total bits, 0..64
	pos   [maxPackFields]uint16
	base  [maxPackFields]byte
	w     [maxPackFields]uint8
	fmask [maxPackFields]byte // 1<<w - 1
}

// set makes field k the w bits at byte pos, from base.
func (p *packLayout) set(k, pos int, base byte, w int) {
	p.pos[k], p.base[k], p.w[k], p.fmask[k] = uint16(pos), base, uint8(w), byte(1<<w-1)
}

// plan lays out fields over the per-position ranges [lo[j], hi[j]] and
// reports whether they fit in 64 bits.
func (p *packLayout) plan(lo, hi []byte) bool {
	p.n, p.bits = 0, 0
	for j := range lo {
		if hi[j] == lo[j] {
			continue
		}
		w := bits.Len8(hi[j] - lo[j])
		if p.bits+w > 64 {
			return false
		}
		p.set(p.n, j, lo[j], w)
		p.bits += w
		p.n++
	}
	return true
}

// pack returns the integer of value v (len(v) is the layout's L).
func (p *packLayout) pack(v []byte) uint64 {
	var x uint64
	for k := range p.n {
		x = x<<p.w[k] | uint64(v[p.pos[k]]-p.base[k])
	}
	return x
}

// fill writes the varying bytes of x into buf (the template) and returns
// it.
func (p *packLayout) fill(buf []byte, x uint64) []byte {
	for k := p.n - 1; k >= 0; k-- {
		buf[p.pos[k]] = p.base[k] + byte(x)&p.fmask[k]
		x >>= p.w[k] & 63 // w <= 8: no shift-past-64 code
	}
	return buf
}

// mask is the mask of the layout's integers.
func (p *packLayout) mask() uint64 {
	if p.bits >= 64 {
		return ^uint64(0)
	}
	return 1<<p.bits - 1
}

// appendFields appends nvar u8 | field * nvar.
func (p *packLayout) appendFields(dst []byte) []byte {
	dst = append(dst, byte(p.n))
	for k := range p.n {
		dst = binary.AppendUvarint(dst, uint64(p.pos[k]))
		dst = append(dst, p.base[k], p.w[k])
	}
	return dst
}

// parseFields reads nvar u8 | field * nvar at b[p:] for values of L bytes
// and returns the offset after them.
func (p *packLayout) parseFields(b []byte, at, L int) (int, error) {
	bad := func(at int, what string) error {
		return frame.Corrupt(at, "packed values: %s", what)
	}
	if at >= len(b) || b[at] > maxPackFields {
		return 0, bad(at, "bad field count")
	}
	p.n, p.bits = int(b[at]), 0
	q := at + 1
	prev := -1
	for k := range p.n {
		j, r := frame.ReadLen(b, q)
		if r < 0 || j <= prev || j >= L || r+2 > len(b) {
			return 0, bad(q, fmt.Sprintf("field %d: bad position", k))
		}
		w := int(b[r+1])
		if w < 1 || w > 8 || p.bits+w > 64 {
			return 0, bad(r+1, fmt.Sprintf("field %d: bad width %d", k, w))
		}
		p.set(k, j, b[r], w)
		p.bits += w
		prev, q = j, r+2
	}
	return q, nil
}
