// Package intcol writes and reads the integer columns of blockenc blocks:
// a shapeshift column behind its length,
//
//	column := clen uv | clen bytes (blockenc/shapeshift format)
//
// optionally holding the zigzag deltas of the values instead of the values,
// and the range checks a reader runs over a decoded column. Packing
// fixed-length byte strings into integers is in pack.go.
package intcol

import (
	"encoding/binary"

	"github.com/kvenc/kvenc/blockenc/internal/frame"
	"github.com/kvenc/kvenc/blockenc/shapeshift"
)

// Policy is how a Writer encodes a column: each of Opts is tried and the
// smallest kept; the zigzag deltas of the values are taken instead of the
// values when their column is smaller by more than 1/MinGain of it (0:
// when it is smaller at all).
type Policy struct {
	Opts    []shapeshift.Options
	MinGain int
}

// Writer encodes columns by a Policy, reusing its buffers.
type Writer struct {
	Policy
	col, alt, dcol []byte
	d              []int64
}

// encode returns *dst (reused) holding v as the smallest of the Policy's
// encodings.
func (w *Writer) encode(dst *[]byte, v []int64) []byte {
	*dst = shapeshift.Encode((*dst)[:0], v, w.Opts[0])
	for _, o := range w.Opts[1:] {
		if len(v) <= 1<<o.LogChunkSize && len(v) <= 1<<w.Opts[0].LogChunkSize {
			continue // one chunk either way
		}
		w.alt = shapeshift.Encode(w.alt[:0], v, o)
		if len(w.alt) < len(*dst) {
			*dst, w.alt = w.alt, *dst
		}
	}
	return *dst
}

// Append appends clen uv | the column of v.
func (w *Writer) Append(dst []byte, v []int64) []byte {
	col := w.encode(&w.col, v)
	dst = binary.AppendUvarint(dst, uint64(len(col)))
	return append(dst, col...)
}

// AppendDelta appends clen uv | the column of v or of its zigzag deltas,
// whichever the Policy takes, and reports whether it took the deltas. A
// block of several time series has values that step evenly within a series
// and jump between them: deltas turn the jumps into a few exceptions.
func (w *Writer) AppendDelta(dst []byte, v []int64) ([]byte, bool) {
	col := w.encode(&w.col, v)
	w.d = ZigzagDeltas(w.d[:0], v)
	dcol := w.encode(&w.dcol, w.d)
	delta := len(dcol) < len(col)
	if w.MinGain > 0 {
		delta = w.MinGain*len(dcol) < (w.MinGain-1)*len(col)
	}
	if delta {
		col = dcol
	}
	dst = binary.AppendUvarint(dst, uint64(len(col)))
	return append(dst, col...), delta
}

// Read reads clen uv | a column of n values at b[p:], appending them to
// dst, and returns them and the offset after the column. what names the
// column in errors.
func Read(dst []int64, b []byte, p, n int, what string) ([]int64, int, error) {
	clen, q := frame.ReadLen(b, p)
	if q < 0 || clen > len(b)-q {
		return dst, 0, frame.Corrupt(p, "bad %s column length", what)
	}
	start := len(dst)
	dst, err := shapeshift.Decode(dst, b[q:q+clen])
	if err != nil {
		return dst, 0, frame.Corrupt(q, "%s column: %v", what, err)
	}
	if len(dst)-start != n {
		return dst, 0, frame.Corrupt(q, "%s column of %d values, want %d", what, len(dst)-start, n)
	}
	return dst, q + clen, nil
}

// ZigzagDeltas appends to dst the zigzag encoding ((d << 1) ^ (d >> 63))
// of d = vals[i] - vals[i-1] (vals[-1] taken as 0, wrapping int64
// arithmetic) for every value: small steps of either sign become small
// non-negative integers, a jump one exception for shapeshift's Patched
// forms.
func ZigzagDeltas(dst, vals []int64) []int64 {
	prev := int64(0)
	for _, v := range vals {
		d := v - prev
		dst = append(dst, d<<1^d>>63)
		prev = v
	}
	return dst
}

// UndoZigzagDeltas turns ZigzagDeltas' output back into the values, in
// place.
func UndoZigzagDeltas(vals []int64) {
	prev := int64(0)
	for i, z := range vals {
		prev += int64(uint64(z)>>1) ^ -(z & 1)
		vals[i] = prev
	}
}

// Bound bounds the column (without clen) of n values in [0, max] encoded
// with shapeshift.Smaller in chunks of 256 values or more: the header and
// ends of BytePack chunks of the width max needs, each chunk at most that
// (Smaller picks the smallest size; its speed weight of 0.001 can prefer a
// form 0.05% larger), plus slack for that.
func Bound(n int, max uint64) int {
	w := 1
	for max >= 1<<(8*w) && w < 8 {
		w++
	}
	chunks := (n + 255) >> 8 // the shorter chunks: more of them
	b := 1 + frame.UvarintLen(uint64(n)) + 1 + 10*frame.UvarintLen(uint64(chunks)) + 4*chunks +
		chunks*(10+8) + n*w + 4
	return b + b/512 + 8
}

// The checks below run over every value of a column on every Init: each
// is one branch-free pass (an OR or a max folded over four lanes, no
// loads of the caller's state in the loop), then a second pass to find the
// culprit only when the column is bad.

// FirstOver returns the index of the first of vs with a bit outside mask
// (taken as uint64), or -1.
func FirstOver(vs []int64, mask uint64) int {
	var a, b, c, d uint64
	i := 0
	for ; i+4 <= len(vs); i += 4 {
		v := (*[4]int64)(vs[i : i+4])
		a |= uint64(v[0])
		b |= uint64(v[1])
		c |= uint64(v[2])
		d |= uint64(v[3])
	}
	for ; i < len(vs); i++ {
		a |= uint64(vs[i])
	}
	if (a|b|c|d)&^mask == 0 {
		return -1
	}
	for i, v := range vs {
		if uint64(v)&^mask != 0 {
			return i
		}
	}
	return -1
}

// ByteMask is the mask of w-byte unsigned integers, w = 0..8.
func ByteMask(w int) uint64 {
	if w >= 8 {
		return ^uint64(0)
	}
	return 1<<(8*w) - 1
}

// FirstAtLeast returns the index of the first of vs that is not below n
// (taken as uint64), or -1. (An OR of v | n-1-v, sign bit clear when
// every v is in [0, n), profiled twice as slow as these max chains.)
func FirstAtLeast(vs []int64, n uint64) int {
	var a, b, c, d uint64
	i := 0
	for ; i+4 <= len(vs); i += 4 {
		v := (*[4]int64)(vs[i : i+4])
		a = max(a, uint64(v[0]))
		b = max(b, uint64(v[1]))
		c = max(c, uint64(v[2]))
		d = max(d, uint64(v[3]))
	}
	for ; i < len(vs); i++ {
		a = max(a, uint64(vs[i]))
	}
	if max(a, b, c, d) < n || len(vs) == 0 {
		return -1
	}
	for i, v := range vs {
		if uint64(v) >= n {
			return i
		}
	}
	return -1
}

// BadStep returns the first i >= 1 where ends[i] is below ends[i-1] or
// more than maxStep after it, or -1. With ends[0] = 0 one unsigned compare
// of the wrapped difference checks both: as long as every step is in
// [0, maxStep], no end can wrap around.
func BadStep(ends []int64, maxStep int64) int {
	var m uint64
	for i := 1; i < len(ends); i++ {
		m = max(m, uint64(ends[i]-ends[i-1]))
	}
	if m <= uint64(maxStep) {
		return -1
	}
	for i := 1; i < len(ends); i++ {
		if ends[i] < ends[i-1] || ends[i]-ends[i-1] > maxStep {
			return i
		}
	}
	return -1 // unreachable: some wrapped difference exceeds maxStep
}
