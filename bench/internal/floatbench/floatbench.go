// Package floatbench encodes float64 vectors with kvenc's float columns and
// with the time-series codecs they are measured against, and measures them
// the same way: bits per value, encode and full decode time, and whether
// the decoded values are the input, bit for bit.
//
// Peers:
//   - xor: Prometheus's tsdb/chunkenc XOR chunks (Gorilla), cut every 120
//     samples as Prometheus cuts them. A chunk holds timestamps too; the
//     benchmark appends them at a fixed step, which costs a known number of
//     bits (XORTimestampBits), and charges the values with the rest of the
//     chunk: its 2-byte header, the value bits and the padding to a byte.
//     Decode runs Prometheus's chunk iterator.
//   - vm: VictoriaMetrics' lib/decimal conversion (a mantissa per value and
//     one decimal exponent per block) then lib/encoding.MarshalValues at
//     full precision (64 bits), one block per vector; the size counts the
//     marshalled bytes and what VictoriaMetrics keeps beside them in its
//     block header (first value 8 bytes, exponent 2, marshal type 1). The
//     decimal conversion rounds values with more significant digits than
//     an int64 mantissa holds: such a vector does not come back exactly
//     and is reported lossy.
//   - zstd: the raw doubles (8 bytes little-endian each) as one zstd frame
//     at klauspost/compress's best level.
package floatbench

import (
	"fmt"
	"math"
)

// Codec encodes a vector of float64 values.
type Codec struct {
	Name   string
	Encode func(values []float64) (Encoded, error)
}

// Encoded is one encoded vector.
type Encoded interface {
	// Bits is the encoded size charged to the values, in bits.
	Bits() float64
	// Decode appends every value to dst.
	Decode(dst []float64) ([]float64, error)
}

// Codecs returns the peers in table order: xor, vm, zstd.
func Codecs() []Codec { return []Codec{xorCodec(), vmCodec(), zstdCodec()} }

// Mismatch counts the values of got that differ from want bit for bit
// (a length difference counts every missing or extra value), and returns
// the first differing index (-1 if none).
func Mismatch(got, want []float64) (n, first int) {
	first = -1
	for i := range max(len(got), len(want)) {
		if i < len(got) && i < len(want) && math.Float64bits(got[i]) == math.Float64bits(want[i]) {
			continue
		}
		if first < 0 {
			first = i
		}
		n++
	}
	return n, first
}

// describeMismatch says how got differs from want, for a lossy codec.
func describeMismatch(got, want []float64) string {
	n, i := Mismatch(got, want)
	if n == 0 {
		return ""
	}
	if i >= len(got) || i >= len(want) {
		return fmt.Sprintf("%d values decoded for %d", len(got), len(want))
	}
	return fmt.Sprintf("%d of %d values differ, the first at %d: %v decoded as %v", n, len(want), i, want[i], got[i])
}
