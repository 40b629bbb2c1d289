package rowblk

import (
	"github.com/kvenc/kvenc/blockenc/internal/cell"
	"github.com/kvenc/kvenc/blockenc/internal/frame"
)

// The hot loop: one step function per encoding decodes the cell at s.Off
// into s.KV.Key, s.val and s.KV.Kind, notes where its seq is, and moves s.Off past
// it. Every length read is bounds-checked here, so Init needs no pass over
// the cells; a bad cell sets s.Fail and returns false.

// step decodes the next cell (the caller checked s.Idx < s.Count).
//
// An LZ4Dict block's s.Cells ends with the current sub-block: Next and
// scan call nextSub first when s.Off has reached its end. The test is kept
// out of step so that step stays one call per cell.
func (s *Reader) step() bool {
	switch s.enc {
	case None:
		return s.stepNone()
	case Prefix, RowIndex:
		return s.stepPrefix()
	case Diff:
		return s.stepDiff()
	default:
		return s.stepFastDiff()
	}
}

// setValue makes b[p:p+n] the current value and returns the offset after
// it, or a negative offset if it does not fit.
func (s *Reader) setValue(p, n int) int {
	if n > cell.MaxValueLen || n > len(s.Cells)-p {
		return -1
	}
	s.val = s.Cells[p : p+n : p+n]
	return p + n
}

// setKind reads a kind byte at p.
func (s *Reader) setKind(p int) int {
	if p >= len(s.Cells) || s.Cells[p] > byte(cell.KindPut) {
		return -1
	}
	s.KV.Kind = cell.Kind(s.Cells[p])
	return p + 1
}

// None: klen | vlen | key | value | kind | seq.
func (s *Reader) stepNone() bool {
	b := s.Cells
	klen, p := frame.ReadLen(b, s.Off)
	vlen, p := frame.ReadLen(b, p)
	if p < 0 || klen > cell.MaxKeyLen || klen > len(b)-p {
		return s.Corrupt("bad key")
	}
	s.KV.Key = b[p : p+klen : p+klen]
	return s.valueKindSeq(p+klen, vlen)
}

// valueKindSeq reads the value | kind | seq tail of None, Prefix and
// RowIndex cells.
func (s *Reader) valueKindSeq(p, vlen int) bool {
	if vlen&s.refBit != 0 {
		p = s.setValueRef(p, vlen>>1)
	} else {
		p = s.setValue(p, vlen>>s.lenShift)
	}
	if p < 0 {
		return s.Corrupt("bad value")
	}
	return s.SkipSeq(s.setKind(p))
}

// Prefix and RowIndex: shared | suffix len | vlen | suffix | value | kind |
// seq. RowIndex restart cells have shared = 0 and sit at the offsets the
// restart array gives.
func (s *Reader) stepPrefix() bool {
	b := s.Cells
	p := s.Off
	var shared, slen, vlen int
	if p+3 <= len(b) && (b[p]|b[p+1]|b[p+2]) < 0x80 { // readLens3, inlined by hand
		shared, slen, vlen, p = int(b[p]), int(b[p+1]), int(b[p+2]), p+3
	} else {
		shared, slen, vlen, p = frame.ReadLens3Slow(b, p)
	}
	if p < 0 || slen > len(b)-p {
		return s.Corrupt("bad key")
	}
	if s.Idx == s.NextRestart && !s.CheckRestart(shared, s.Off) {
		return s.Corrupt("restart offset is not a whole-key cell")
	}
	return s.SetKey(shared, b[p:p+slen]) && s.valueKindSeq(p+slen, vlen)
}

// Diff: flags | [klen] | [vlen] | shared | suffix | value | [kind] | seq.
func (s *Reader) stepDiff() bool {
	b := s.Cells
	p := s.Off
	if p >= len(b) {
		return s.Corrupt("cell overruns the block")
	}
	flags := b[p]
	p++
	if flags&^diffKnownFlags != 0 {
		return s.Corrupt("unknown diff flags")
	}
	klen, vlen := len(s.KV.Key), -1
	if flags&diffSameKeyLen == 0 {
		klen, p = frame.ReadLen(b, p)
	}
	if flags&diffSameValueLen == 0 {
		vlen, p = frame.ReadLen(b, p)
	}
	shared, p := frame.ReadLen(b, p)
	if p < 0 || shared > klen || klen-shared > len(b)-p {
		return s.Corrupt("bad key")
	}
	slen := klen - shared
	if !s.SetKey(shared, b[p:p+slen]) {
		return false
	}
	switch {
	case vlen < 0:
		p = s.setValue(p+slen, len(s.val))
	case vlen&s.refBit != 0:
		p = s.setValueRef(p+slen, vlen>>1)
	default:
		p = s.setValue(p+slen, vlen>>s.lenShift)
	}
	if p < 0 {
		return s.Corrupt("bad value")
	}
	if flags&diffSameKind == 0 {
		p = s.setKind(p)
	}
	return s.SkipSeq(p)
}

// FastDiff: flags | [suffix len - 15] | [shared] | [vlen] | suffix |
// [value] | seq.
func (s *Reader) stepFastDiff() bool {
	b := s.Cells
	p := s.Off
	if p >= len(b) {
		return s.Corrupt("cell overruns the block")
	}
	flags := b[p]
	p++
	slen := int(flags & fdSuffixMask)
	if slen == fdSuffixEscape {
		var x int
		x, p = frame.ReadLen(b, p)
		slen += x
	}
	var shared int
	if flags&fdSameKeyLen != 0 {
		shared = len(s.KV.Key) - slen
	} else {
		shared, p = frame.ReadLen(b, p)
	}
	vlen := -1 // the same length as the previous value
	switch flags & (fdSameValue | fdSameValueLen) {
	case 0:
		vlen, p = frame.ReadLen(b, p)
	case fdSameValue | fdSameValueLen:
		return s.Corrupt("same value and same value length both set")
	}
	if p < 0 || shared < 0 || slen > len(b)-p {
		return s.Corrupt("bad key")
	}
	if !s.SetKey(shared, b[p:p+slen]) {
		return false
	}
	p += slen
	if flags&fdSameValue == 0 {
		switch {
		case vlen < 0:
			p = s.setValue(p, len(s.val))
		case vlen&s.refBit != 0:
			p = s.setValueRef(p, vlen>>1)
		default:
			p = s.setValue(p, vlen>>s.lenShift)
		}
		if p < 0 {
			return s.Corrupt("bad value")
		}
	}
	s.KV.Kind = cell.Kind(flags >> 7)
	return s.SkipSeq(p)
}
