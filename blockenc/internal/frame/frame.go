// Package frame is what every blockenc block shares whatever its encoding:
// the first three header bytes (format version, encoding, flags), the
// CRC-32C trailer, uvarint lengths, and the corrupt-block error with the
// offset it is at.
//
//	block   := version u8 | encoding u8 | flags u8 | ... | crc32c u32 (LE)
//
// The trailer is the CRC-32C (Castagnoli) of every byte before it, but in
// a version 4 block: there it covers the bytes before the value area's
// sub-block data (the head), and every sub-block carries a CRC-32C of its
// own in the area's index, so that a reader checks the head and the
// sub-blocks it decompresses and nothing else.
package frame

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// ErrCorrupt is blockenc.ErrCorrupt: every error about block bytes wraps it.
var ErrCorrupt = errors.New("blockenc: corrupt block")

// ErrWrongDict is blockenc.ErrWrongDict: a block compressed against an
// external dictionary read without it, or with another one. It wraps
// ErrCorrupt.
var ErrWrongDict = fmt.Errorf("%w: wrong dictionary", ErrCorrupt)

// Corrupt returns an error wrapping ErrCorrupt that says at which offset of
// the block what is wrong: "blockenc: corrupt block: offset 3: ...".
func Corrupt(offset int, format string, args ...any) error {
	return fmt.Errorf("%w: offset %d: %s", ErrCorrupt, offset, fmt.Sprintf(format, args...))
}

// Format versions (byte 0). Part of the format, never reuse.
const (
	// Version1 is byte 0 of every block but a Columnar block that uses a
	// form version 1 did not have.
	Version1 = 1
	// Version2 is byte 0 of a Columnar block with packed keys or values,
	// zigzag delta columns or an LZ4Dict value area. Readers take both.
	Version2 = 2
	// Version3 is byte 0 of a block (of any encoding) whose LZ4Dict cells
	// or value area are compressed against an external dictionary (flag
	// bit 5): version 2 readers do not know it. Readers take all three.
	Version3 = 3
	// Version4 is byte 0 of a Columnar block whose value area is
	// compressed against an external dictionary (flags 0x22) with a
	// CRC-32C per sub-block; its trailer covers the bytes before the
	// sub-blocks' data only. Version 3 readers do not know it. Readers
	// take all four.
	Version4 = 4
	// Version5 is byte 0 of a Columnar block whose values are a float
	// column (float64 or float32 bit patterns, either byte order) or
	// decimal text parsed into one; flags 0. Version 4 readers do not
	// know it. Readers take all five.
	Version5 = 5
)

// Columnar is the encoding id (byte 1) of blockenc.Columnar, the only
// encoding with version 2 blocks.
const Columnar = 5

// Header flag bits (byte 2). Part of the format, never reuse. Row blocks
// may set bits 0-5; Columnar blocks bits 0 and 1, and 5 with 1, for
// their value area. Bits 6-7 are reserved and rejected.
const (
	FlagLZ4        = 1 << 0 // LZ4-compressed whole
	FlagLZ4Dict    = 1 << 1 // LZ4 sub-blocks with a preset dictionary
	FlagValueDedup = 1 << 2 // value lengths doubled; odd: a back-reference
	FlagIntValues  = 1 << 3 // values in a shapeshift integer column
	FlagSeqColumn  = 1 << 4 // seqs in a shapeshift column (with bit 3)
	FlagExtDict    = 1 << 5 // LZ4Dict against an external dictionary (with bit 1; version 3)

	// Compressed are the flags of a compressed block.
	Compressed = FlagLZ4 | FlagLZ4Dict
)

// TrailerLen is the length of the CRC-32C trailer.
const TrailerLen = 4

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// AppendTrailer appends the CRC-32C of b to b.
func AppendTrailer(b []byte) []byte { return AppendHeadTrailer(b, len(b)) }

// AppendHeadTrailer appends the CRC-32C of b[:head] to b: the trailer of
// a version 4 block whose sub-block data starts at head.
func AppendHeadTrailer(b []byte, head int) []byte {
	return binary.LittleEndian.AppendUint32(b, Checksum(b[:head]))
}

// Checksum returns the CRC-32C of b, the checksum of trailers and of
// version 4 sub-blocks.
func Checksum(b []byte) uint32 { return crc32.Checksum(b, crcTable) }

// Check checks what every block shares: at least minBlock bytes, the
// trailer, and the format version (versions 2, 4 and 5 only for Columnar).
// It returns the block without its trailer. A version 4 block's trailer
// covers its head only: Check leaves it to CheckHead, after the head's
// length is known.
func Check(block []byte, minBlock int) ([]byte, error) {
	if len(block) < minBlock {
		return nil, fmt.Errorf("%w: block of %d bytes (min %d)", ErrCorrupt, len(block), minBlock)
	}
	body := block[:len(block)-TrailerLen]
	if body[0] != Version4 {
		if err := CheckHead(block, len(body)); err != nil {
			return nil, err
		}
	}
	if body[0] < Version1 || body[0] > Version5 {
		return nil, Corrupt(0, "format version %d (want %d..%d)", body[0], Version1, Version5)
	}
	if (body[0] == Version2 || body[0] == Version4 || body[0] == Version5) && body[1] != Columnar {
		return nil, Corrupt(0, "format version %d for encoding %d (only Columnar has it)", body[0], body[1])
	}
	return body, nil
}

// CheckHead checks that the trailer of block is the CRC-32C of its first
// head bytes (0 <= head <= len(block)-TrailerLen).
func CheckHead(block []byte, head int) error {
	want := binary.LittleEndian.Uint32(block[len(block)-TrailerLen:])
	if got := Checksum(block[:head]); got != want {
		return fmt.Errorf("%w: checksum %#08x, trailer says %#08x", ErrCorrupt, got, want)
	}
	return nil
}

// Header is what the first three bytes of a block say.
type Header struct {
	Version, Encoding, Flags byte
}

// Peek reads the first three bytes of a block without checking the rest.
func Peek(block []byte) (Header, error) {
	if len(block) < 3+TrailerLen {
		return Header{}, fmt.Errorf("%w: block of %d bytes (min %d)", ErrCorrupt, len(block), 3+TrailerLen)
	}
	return Header{Version: block[0], Encoding: block[1], Flags: block[2]}, nil
}

// ReadLen reads a uvarint length at b[off:] (0 <= off <= len(b)). It
// returns the value and the offset after it, or a negative offset if the
// varint is truncated or the value is 2^31 or more. Once the offset is
// negative, further ReadLen calls keep it negative, so callers check once.
func ReadLen(b []byte, off int) (int, int) {
	if uint(off) < uint(len(b)) && b[off] < 0x80 {
		return int(b[off]), off + 1
	}
	return readLenSlow(b, off)
}

func readLenSlow(b []byte, off int) (int, int) {
	if off < 0 || off > len(b) {
		return 0, -1
	}
	v, n := binary.Uvarint(b[off:])
	if n <= 0 || v >= 1<<31 {
		return 0, -1
	}
	return int(v), off + n
}

// ReadLens2 reads two uvarint lengths at p like ReadLen; the common case,
// both under 128, costs one bounds check.
func ReadLens2(b []byte, p int) (x, y, q int) {
	if p >= 0 && p+2 <= len(b) && (b[p]|b[p+1]) < 0x80 {
		return int(b[p]), int(b[p+1]), p + 2
	}
	x, q = ReadLen(b, p)
	y, q = ReadLen(b, q)
	return x, y, q
}

// ReadLens3 reads three uvarint lengths at p >= 0 like ReadLen; the
// common case, all three under 128, costs one bounds check.
func ReadLens3(b []byte, p int) (x, y, z, q int) {
	if p+3 <= len(b) && (b[p]|b[p+1]|b[p+2]) < 0x80 {
		return int(b[p]), int(b[p+1]), int(b[p+2]), p + 3
	}
	return ReadLens3Slow(b, p)
}

// ReadLens3Slow is ReadLens3 for any lengths.
func ReadLens3Slow(b []byte, p int) (x, y, z, q int) {
	x, q = ReadLen(b, p)
	y, q = ReadLen(b, q)
	z, q = ReadLen(b, q)
	return x, y, z, q
}

// UvarintLen returns the length of v as a uvarint.
func UvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}
