package rowblk

import (
	"encoding/binary"

	"github.com/kvenc/kvenc/blockenc/internal/cell"
	"github.com/kvenc/kvenc/blockenc/internal/frame"
	"github.com/kvenc/kvenc/blockenc/internal/intcol"
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

// rowPolicy is how a row block's value and seq columns are encoded: chunks
// of 256 values (shapeshift's smallest, so a chunk mostly holds one
// series), deltas whenever they are smaller. It differs from Columnar's
// colPolicy only in what the Encoder chooses, not in what a reader reads;
// blocks written by it are pinned by the golden files.
var rowPolicy = intcol.Policy{Opts: []shapeshift.Options{{LogChunkSize: shapeshift.MinLogChunkSize}}}

// valuesDelta is the mode bit of a delta column. Part of the format.
const valuesDelta = 0x80

// Seq column (flag bit 4, only with bit 3). With a value column the seqs
// may be a second shapeshift column, after the values section, and every
// cell's seq vlong is then 0 (one byte; the layouts do not change, so
// neither do the step functions; land and Next take the seq from the
// column):
//
//	seqs := mode u8 | clen uv | column (clen bytes, shapeshift format)
//	mode := 0 | delta (bit 7)
//
// Seq i is value i of the column, or with delta the zigzag-decoded steps
// summed as for values; every seq must be 0..MaxSeq.
//
// Time series cells are sorted by series and time but get their seqs in
// ingest order, one tick of every series after the other: in key order a
// series' seqs climb by the number of series, and the next series starts
// lower. Inline, each cell then carries a 6-byte seq that differs from
// the cell a series before only in its low byte, which breaks the LZ4
// matches that the series' identical timestamps would otherwise give
// (with seqs zeroed the keys of the benchmark cost 0.2 B/cell, with their
// seqs 4.2). As a column the steps are Patched constants with an
// exception per series. On the time series benchmark, value and seq
// columns with LZ4 take 2.25 B/cell against 6.07 with the seqs inline and
// 11.92 for FastDiff+LZ4 with values inline. A delta from the block's
// first seq (the cells unchanged but smaller) was tried and is worse:
// 7.61 B/cell, its 3-byte deltas differing from series to series in more
// bytes for LZ4 to miss.
//
// The Encoder keeps three encodings of the cells when IntValues is set
// (inline values; a value column with inline seqs; both columns) and
// Finish returns the smallest block. The flag is frame.FlagSeqColumn (bit 4).

// intValues is the Encoder's second and third encoding of the block: the
// values as integers and the cells without them, with their seqs or with
// the seqs as a column.
type intValues struct {
	ok   bool          // every value so far has width w
	w    int           // 0 before the first cell
	vals []int64       // the values
	seqs []int64       // the seqs
	enc  *Writer       // the cells with empty values
	encS *Writer       // the cells with empty values and seq 0
	cw   intcol.Writer // the value and seq columns
	vsec []byte        // Finish scratch: the values section
	out  []byte        // Finish scratch: the sections and the cells
}

func (iv *intValues) reset() {
	iv.ok, iv.w, iv.vals, iv.seqs = true, 0, iv.vals[:0], iv.seqs[:0]
	iv.enc.Reset()
	iv.encS.Reset()
}

func (iv *intValues) add(c cell.Cell) {
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
	iv.seqs = append(iv.seqs, int64(c.Seq)) // c.Seq <= cell.MaxSeq: Add checked
	iv.enc.add(cell.Cell{Key: c.Key, Seq: c.Seq, Kind: c.Kind})
	iv.encS.add(cell.Cell{Key: c.Key, Kind: c.Kind})
}

// appendColumn appends a column section: mode (the base mode, with
// valuesDelta if the zigzag delta column is taken), the column's length and
// the column.
func (iv *intValues) appendColumn(dst []byte, mode byte, vals []int64) []byte {
	dst = append(dst, mode)
	at := len(dst) - 1
	dst, delta := iv.cw.AppendDelta(dst, vals)
	if delta {
		dst[at] |= valuesDelta
	}
	return dst
}

// appendColumns appends to b (whose header ends at h) the smaller of the
// value column forms, if it is smaller than b's cells, and returns b and
// its flags.
func (iv *intValues) appendColumns(b []byte, h int, flags byte) ([]byte, byte) {
	iv.vsec = iv.appendColumn(iv.vsec[:0], byte(iv.w), iv.vals)
	// Values as a column, seqs inline.
	alt := append(iv.out[:0], iv.vsec...)
	alt, altFlags := iv.enc.appendStream(alt)
	if len(alt) < len(b)-h {
		b, flags = append(b[:h], alt...), altFlags|frame.FlagIntValues
	}
	// Both as columns.
	alt = append(alt[:0], iv.vsec...)
	alt = iv.appendColumn(alt, 0, iv.seqs)
	alt, altFlags = iv.encS.appendStream(alt)
	if len(alt) < len(b)-h {
		b, flags = append(b[:h], alt...), altFlags|frame.FlagIntValues|frame.FlagSeqColumn
	}
	iv.out = alt
	return b, flags
}

// decodeColumn reads the column section at block[p:end] (mode u8, then
// clen uv | column as colColumn reads it; what, "value" or "seq", says
// where errors point) into dst, undoing the delta mode, and returns the
// values, the mode without its delta bit and the offset after it.
func (s *Reader) decodeColumn(dst []int64, block []byte, p, end int, what string) ([]int64, byte, int, error) {
	if p >= end {
		return dst, 0, 0, frame.Corrupt(p, "missing %s column", what)
	}
	mode := block[p]
	vals, q, err := intcol.Read(dst[:0], block[:end], p+1, s.Count, what)
	if err != nil {
		return vals, 0, 0, err
	}
	if mode&valuesDelta != 0 {
		intcol.UndoZigzagDeltas(vals)
	}
	return vals, mode &^ valuesDelta, q, nil
}

// initIntValues reads the values section at block[p:end] into s.ints and
// returns the offset after it.
func (s *Reader) initIntValues(block []byte, p, end int) (int, error) {
	if p < end {
		if w := block[p] &^ valuesDelta; w != 1 && w != 2 && w != 4 && w != 8 {
			return 0, frame.Corrupt(p, "value width %d", w)
		}
	}
	vals, mode, q, err := s.decodeColumn(s.ints, block, p, end, "value")
	s.ints = vals
	if err != nil {
		return 0, err
	}
	w := int(mode)
	if w < 8 {
		for i, v := range vals {
			if uint64(v) >= 1<<(8*w) {
				return 0, frame.Corrupt(p, "value %d (%d) wider than %d bytes", i, v, w)
			}
		}
	}
	s.intW = w
	return q, nil
}

// initSeqColumn reads the seqs section at block[p:end] into s.seqCol and
// returns the offset after it.
func (s *Reader) initSeqColumn(block []byte, p, end int) (int, error) {
	if p < end && block[p]&^valuesDelta != 0 {
		return 0, frame.Corrupt(p, "seq column mode %#02x", block[p])
	}
	seqs, _, q, err := s.decodeColumn(s.seqCol, block, p, end, "seq")
	s.seqCol = seqs
	if err != nil {
		return 0, err
	}
	or := int64(0)
	for _, v := range seqs {
		or |= v
	}
	if or < 0 { // one pass without a branch per seq; the culprit if it fails
		for i, v := range seqs {
			if v < 0 {
				return 0, frame.Corrupt(p, "seq %d (%d) out of range", i, v)
			}
		}
	}
	return q, nil
}

// intValue returns the value of cell i from the column, in s.vbuf.
func (s *Reader) intValue(i int) []byte {
	binary.BigEndian.PutUint64(s.vbuf[:], uint64(s.ints[i]))
	return s.vbuf[8-s.intW:]
}
