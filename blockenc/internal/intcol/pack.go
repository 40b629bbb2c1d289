package intcol

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/kvenc/kvenc/blockenc/internal/frame"
)

// Packing fixed-length byte strings into integers: the bytes that differ
// between the strings, each reduced by the smallest byte seen at its
// position and cut to the bits its range needs, concatenated most
// significant first (so packed integers sort as the strings do) into at
// most 64 bits. A layout is written as
//
//	layout := nvar u8 (0..64) | field * nvar
//	field  := pos uv | base u8 | bits u8 (1..8)
//
// with positions increasing; a string is the template with, for each field
// from the last, byte pos = base + the low bits of the integer (then
// shifted right by bits).

// MaxFields is the most fields a layout has: each takes a bit or more
// of the 64.
const MaxFields = 64

// Layout says which bytes of a fixed-length value vary and how they
// pack into an integer.
type Layout struct {
	N     int // fields
	Bits  int // total bits, 0..64
	pos   [MaxFields]uint16
	base  [MaxFields]byte
	w     [MaxFields]uint8
	fmask [MaxFields]byte // 1<<w - 1
}

// Set makes field k the w bits at byte pos, from base.
func (p *Layout) Set(k, pos int, base byte, w int) {
	p.pos[k], p.base[k], p.w[k], p.fmask[k] = uint16(pos), base, uint8(w), byte(1<<w-1)
}

// Plan lays out fields over the per-position ranges [lo[j], hi[j]] and
// reports whether they fit in 64 bits.
func (p *Layout) Plan(lo, hi []byte) bool {
	p.N, p.Bits = 0, 0
	for j := range lo {
		if hi[j] == lo[j] {
			continue
		}
		w := bits.Len8(hi[j] - lo[j])
		if p.Bits+w > 64 {
			return false
		}
		p.Set(p.N, j, lo[j], w)
		p.Bits += w
		p.N++
	}
	return true
}

// Pack returns the integer of value v (len(v) is the layout's L).
func (p *Layout) Pack(v []byte) uint64 {
	var x uint64
	for k := range p.N {
		x = x<<p.w[k] | uint64(v[p.pos[k]]-p.base[k])
	}
	return x
}

// Fill writes the varying bytes of x into buf (the template) and returns
// it.
func (p *Layout) Fill(buf []byte, x uint64) []byte {
	for k := p.N - 1; k >= 0; k-- {
		buf[p.pos[k]] = p.base[k] + byte(x)&p.fmask[k]
		x >>= p.w[k] & 63 // w <= 8: no shift-past-64 code
	}
	return buf
}

// Mask is the mask of the layout's integers.
func (p *Layout) Mask() uint64 {
	if p.Bits >= 64 {
		return ^uint64(0)
	}
	return 1<<p.Bits - 1
}

// AppendFields appends nvar u8 | field * nvar.
func (p *Layout) AppendFields(dst []byte) []byte {
	dst = append(dst, byte(p.N))
	for k := range p.N {
		dst = binary.AppendUvarint(dst, uint64(p.pos[k]))
		dst = append(dst, p.base[k], p.w[k])
	}
	return dst
}

// ParseFields reads nvar u8 | field * nvar at b[p:] for values of L bytes
// and returns the offset after them.
func (p *Layout) ParseFields(b []byte, at, L int) (int, error) {
	bad := func(at int, what string) error {
		return frame.Corrupt(at, "packed values: %s", what)
	}
	if at >= len(b) || b[at] > MaxFields {
		return 0, bad(at, "bad field count")
	}
	p.N, p.Bits = int(b[at]), 0
	q := at + 1
	prev := -1
	for k := range p.N {
		j, r := frame.ReadLen(b, q)
		if r < 0 || j <= prev || j >= L || r+2 > len(b) {
			return 0, bad(q, fmt.Sprintf("field %d: bad position", k))
		}
		w := int(b[r+1])
		if w < 1 || w > 8 || p.Bits+w > 64 {
			return 0, bad(r+1, fmt.Sprintf("field %d: bad width %d", k, w))
		}
		p.Set(k, j, b[r], w)
		p.Bits += w
		prev, q = j, r+2
	}
	return q, nil
}

// Whole bytes: a layout of at most 8 fields of 8 bits from base 0, written
// as its positions only:
//
//	bytes := nvar u8 (0..8) | pos uv * nvar

// PlanBytes lays out a field for every position where lo and hi differ and
// reports whether there are at most 8.
func (p *Layout) PlanBytes(lo, hi []byte) bool {
	p.N, p.Bits = 0, 0
	for j := range lo {
		if lo[j] != hi[j] {
			if p.N == 8 {
				return false
			}
			p.Set(p.N, j, 0, 8)
			p.N++
		}
	}
	p.Bits = 8 * p.N
	return true
}

// AppendPositions appends nvar u8 | pos uv * nvar of a PlanBytes layout.
func (p *Layout) AppendPositions(dst []byte) []byte {
	dst = append(dst, byte(p.N))
	for k := range p.N {
		dst = binary.AppendUvarint(dst, uint64(p.pos[k]))
	}
	return dst
}

// ParsePositions reads nvar u8 | pos uv * nvar at b[at:] for strings of L
// bytes and returns the offset after them.
func (p *Layout) ParsePositions(b []byte, at, L int) (int, error) {
	if at >= len(b) {
		return 0, frame.Corrupt(at, "missing varying byte count")
	}
	p.N = int(b[at])
	if p.N > 8 {
		return 0, frame.Corrupt(at, "more than 8 varying key bytes")
	}
	p.Bits = 8 * p.N
	q := at + 1
	prev := -1
	for f := range p.N {
		var j int
		at := q
		if j, q = frame.ReadLen(b, q); q < 0 || j <= prev || j >= L {
			return 0, frame.Corrupt(at, "bad varying key byte position")
		}
		p.Set(f, j, 0, 8)
		prev = j
	}
	return q, nil
}
