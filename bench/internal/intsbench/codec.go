// Package intsbench encodes int64 columns with shapeshift and with the
// baselines it has to beat, and measures them the same way: encoded bytes,
// full decode, random Get, and selecting n sorted rows.
//
// Baselines:
//   - lz4-bytepack: Druid's CompressedVSizeColumnarInts, the format
//     shapeshifting columns were measured against: values minus the column
//     minimum, packed into the fewest whole bytes, in 64 KiB buffers each
//     compressed with LZ4 (pierrec/lz4/v4). Get decompresses the buffer
//     holding the row, once, into a reused buffer, as Druid's reader does.
//   - uvarint: encoding/binary zigzag varints, one after another, with an
//     offset every 64 values so Get can skip ahead.
//   - zstd: the column minus its minimum as 8-byte little-endian values, one
//     zstd frame (klauspost/compress, default level). No random access.
//   - pebble-colblk: Pebble v2's colblk uint column (delta from the minimum
//     and a width of 0, 1, 2, 4 or 8 bytes) per chunk of 16,384 values, the
//     chunk size shapeshift uses by default.
package intsbench

import "math"

// Codec encodes a column.
type Codec struct {
	Name   string
	Encode func(values []int64) (Encoded, error)
}

// Encoded is one encoded column.
type Encoded interface {
	// Size is the encoded size in bytes, headers included.
	Size() int
	// Decode appends every value to dst.
	Decode(dst []int64) ([]int64, error)
	// SumAt returns the sum of the values at rows (one Get per row), or
	// false if the codec has no random access.
	SumAt(rows []int) (int64, bool)
}

// Codecs returns the shapeshift codecs (one per target) then the baselines.
func Codecs() []Codec {
	return append(shapeshiftCodecs(), lz4Codec(), uvarintCodec(), zstdCodec(), colblkCodec())
}

// minMax returns the smallest and largest value (0, 0 for none).
func minMax(v []int64) (lo, hi int64) {
	if len(v) == 0 {
		return 0, 0
	}
	lo, hi = math.MaxInt64, math.MinInt64
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi
}

// byteWidth returns the bytes needed to hold every value of v minus min.
func byteWidth(v []int64) (base int64, w int) {
	lo, hi := minMax(v)
	span := uint64(hi - lo)
	w = 1
	for w < 8 && span >= 1<<(8*w) {
		w++
	}
	return lo, w
}
