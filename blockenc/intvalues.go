package blockenc

import (
	"encoding/binary"
	"fmt"

	"github.com/kvenc/kvenc/blockenc/shapeshift"
)

// Integer value columns (flag bit 3). When every value of a block has the
// same width w in {1, 2, 4, 8}, the values may be stored as one shapeshift
// column before the cells, and the cells are written as if every value
// were empty (their layouts do not change, so neither does the hot loop;
// None, Prefix and RowIndex keep a 0 length byte per cell, Diff and
// FastDiff omit it through their "same length"/"same value" flags):
//
//	values := mode u8 | clen uv | column (clen bytes, shapeshift format)
//	mode   := w (bits 0-6) | delta (bit 7)
//
// Value i is the big-endian unsigned integer of its w bytes; for w = 8 the
// int64 with the same bits (so small negative gauges stay small). Without
// delta the column holds the values; with delta it holds the zigzag
// encoding ((d << 1) ^ (d >> 63)) of d = value i minus value i-1 (value -1
// taken as 0; wrapping int64 arithmetic). Delta is for blocks of several
// series: each counter or gauge moves in small steps, but the series differ
// in magnitude. Shapeshift's forms take the chunk minimum as base, so one
// large negative step at a series boundary would widen every value; zigzag
// makes the steps small and non-negative and the boundaries a few
// exceptions of its Patched form. On the time series benchmark (5000 cells
// of 14 series) the column is 8.6 KB this way against 10.8 KB for the
// values and 12.2 KB for plain deltas. Chunks are 256 values (shapeshift's
// smallest), so a chunk mostly holds one series. The Encoder writes both
// columns and keeps the smaller, and uses the value column only when the
// block gets smaller.

// valuesDelta is the mode bit of a delta column. Part of the format.
const valuesDelta = 0x80

// intValues is the Encoder's second encoding of the block: the values as
// integers and the cells without them.
type intValues struct {
	ok   bool     // every value so far has width w
	w    int      // 0 before the first cell
	vals []int64  // the values
	enc  *Encoder // the cells with empty values
	col  []byte   // Finish scratch: the column
	dcol []byte   // Finish scratch: the delta column
	d    []int64  // Finish scratch: the deltas
	out  []byte   // Finish scratch: the values section and the cells
}

func (iv *intValues) reset() {
	iv.ok, iv.w, iv.vals = true, 0, iv.vals[:0]
	iv.enc.Reset()
}

func (iv *intValues) add(c Cell) {
	if !iv.ok {
		return
	}
	w := len(c.Value)
	if iv.w == 0 {
		iv.w = w
	}
	if w != iv.w || (w != 1 && w != 2 && w != 4 && w != 8) {
		iv.ok = false
		return
	}
	var x uint64
	switch w {
	case 1:
		x = uint64(c.Value[0])
	case 2:
		x = uint64(binary.BigEndian.Uint16(c.Value))
	case 4:
		x = uint64(binary.BigEndian.Uint32(c.Value))
	default:
		x = binary.BigEndian.Uint64(c.Value)
	}
	iv.vals = append(iv.vals, int64(x))
	iv.enc.add(Cell{Key: c.Key, Seq: c.Seq, Kind: c.Kind})
}

// appendColumn appends the values section.
func (iv *intValues) appendColumn(dst []byte) []byte {
	opts := shapeshift.Options{LogChunkSize: shapeshift.MinLogChunkSize}
	iv.col = shapeshift.Encode(iv.col[:0], iv.vals, opts)
	iv.d = iv.d[:0]
	prev := int64(0)
	for _, v := range iv.vals {
		d := v - prev
		iv.d = append(iv.d, d<<1^d>>63)
		prev = v
	}
	iv.dcol = shapeshift.Encode(iv.dcol[:0], iv.d, opts)
	mode, col := byte(iv.w), iv.col
	if len(iv.dcol) < len(col) {
		mode, col = mode|valuesDelta, iv.dcol
	}
	dst = append(dst, mode)
	dst = binary.AppendUvarint(dst, uint64(len(col)))
	return append(dst, col...)
}

// initIntValues reads the values section at block[p:end] into s.ints and
// returns the offset after it.
func (s *Seeker) initIntValues(block []byte, p, end int) (int, error) {
	if p >= end {
		return 0, fmt.Errorf("%w: offset %d: missing value column", ErrCorrupt, p)
	}
	w := int(block[p] &^ valuesDelta)
	if w != 1 && w != 2 && w != 4 && w != 8 {
		return 0, fmt.Errorf("%w: offset %d: value width %d", ErrCorrupt, p, w)
	}
	clen, q := readLen(block[:end], p+1)
	if q < 0 || clen > end-q {
		return 0, fmt.Errorf("%w: offset %d: bad value column length", ErrCorrupt, p+1)
	}
	vals, err := shapeshift.Decode(s.ints[:0], block[q:q+clen])
	if err != nil {
		return 0, fmt.Errorf("%w: offset %d: value column: %v", ErrCorrupt, q, err)
	}
	s.ints = vals
	if len(vals) != s.count {
		return 0, fmt.Errorf("%w: offset %d: value column of %d values for %d cells", ErrCorrupt, q, len(vals), s.count)
	}
	if block[p]&valuesDelta != 0 {
		prev := int64(0)
		for i, z := range vals {
			prev += int64(uint64(z)>>1) ^ -(z & 1)
			vals[i] = prev
		}
	}
	if w < 8 {
		for i, v := range vals {
			if uint64(v) >= 1<<(8*w) {
				return 0, fmt.Errorf("%w: offset %d: value %d (%d) wider than %d bytes", ErrCorrupt, q, i, v, w)
			}
		}
	}
	s.intW = w
	return q + clen, nil
}

// intValue returns the current cell's value from the column, in s.vbuf.
func (s *Seeker) intValue() []byte {
	binary.BigEndian.PutUint64(s.vbuf[:], uint64(s.ints[s.idx-1]))
	return s.vbuf[8-s.intW:]
}
