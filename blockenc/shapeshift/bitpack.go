package shapeshift

import (
	"encoding/binary"
	"math/bits"
)

//go:generate go test -run TestUnpackGenUpToDate -rewrite

// Bit-packed streams: field j of width b occupies stream bits [j*b, j*b+b),
// where stream bit i is bit i%8 of byte i/8 (least significant bit first).
// The stream is zero-padded to a whole number of 8-byte words, so it can be
// read as little-endian uint64 words.

// packedBytes is the byte length of n fields of b bits.
func packedBytes(n, b int) int { return (n*b + 63) / 64 * 8 }

// lowMask returns a mask of the low b bits, 0 <= b <= 64.
func lowMask(b int) uint64 {
	if b == 0 {
		return 0
	}
	return ^uint64(0) >> (64 - uint(b))
}

// appendBits appends the low b bits of each src value as a packed stream.
// Bits above b must be zero.
func appendBits(dst []byte, src []uint64, b int) []byte {
	if b == 0 {
		return dst
	}
	if b == 64 {
		for _, v := range src {
			dst = binary.LittleEndian.AppendUint64(dst, v)
		}
		return dst
	}
	var acc uint64
	var n uint // bits held in acc
	ub := uint(b)
	for _, v := range src {
		acc |= v << n
		n += ub
		if n >= 64 {
			dst = binary.LittleEndian.AppendUint64(dst, acc)
			n -= 64
			acc = 0
			if n > 0 {
				acc = v >> (ub - n)
			}
		}
	}
	if n > 0 {
		dst = binary.LittleEndian.AppendUint64(dst, acc)
	}
	return dst
}

// unpackBits stores base+field(j) in dst[j] for every j. src must hold at
// least packedBytes(len(dst), b) bytes; b is 0..64 (0 fills with base).
func unpackBits(dst []int64, src []byte, b int, base int64) {
	if b == 0 {
		for i := range dst {
			dst[i] = base
		}
		return
	}
	f := unpackFuncs[b]
	step := 8 * b
	for len(dst) >= 64 {
		f(dst, src, base)
		dst = dst[64:]
		src = src[step:]
	}
	if len(dst) == 0 {
		return
	}
	// Tail of fewer than 64 fields. (A stack scratch group for f would
	// escape to the heap through the indirect call.)
	for j := range dst {
		dst[j] = base + int64(getBits(src, b, j))
	}
}

// getBits returns field j of a b-bit stream, 1 <= b <= 64. src must hold
// packedBytes(j+1, b) bytes.
func getBits(src []byte, b int, j int) uint64 {
	p := uint(j) * uint(b)
	i := p >> 6 << 3
	s := p & 63
	v := binary.LittleEndian.Uint64(src[i:]) >> s
	if s+uint(b) > 64 {
		v |= binary.LittleEndian.Uint64(src[i+8:]) << (64 - s)
	}
	return v & lowMask(b)
}

// bitLen is the number of bits needed for x (0 for 0).
func bitLen(x uint64) int { return bits.Len64(x) }
