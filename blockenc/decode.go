package blockenc

import (
	"encoding/binary"
	"github.com/kvenc/kvenc/blockenc/internal/frame"

	"github.com/kvenc/kvenc/vlong"
)

// The hot loop: one step function per encoding decodes the cell at s.off
// into s.kv.Key, s.val and s.kv.Kind, notes where its seq is, and moves s.off past
// it. Every length read is bounds-checked here, so Init needs no pass over
// the cells; a bad cell sets s.err and returns false.

// step decodes the next cell (the caller checked s.idx < s.count).
//
// An LZ4Dict block's s.cells ends with the current sub-block: Next and
// scan call nextSub first when s.off has reached its end. The test is kept
// out of step so that step stays one call per cell, as before the
// features.
func (s *Seeker) step() bool {
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

// setKey makes the current key its first shared bytes followed by suffix:
// the key reconstruction every prefix encoding shares.
func (s *Seeker) setKey(shared int, suffix []byte) bool {
	if shared > len(s.kv.Key) {
		return s.corrupt("shared prefix longer than previous key")
	}
	n := shared + len(suffix)
	if n > MaxKeyLen {
		return s.corrupt("key too long")
	}
	if n+32 > cap(s.keyBuf) {
		// 32 bytes to spare (Next copies a suffix of up to 32 bytes
		// whole), never more than MaxKeyLen+32 (so a key that leaves
		// Next its 32 bytes is not too long).
		nb := make([]byte, n, min(max(n+32, 2*cap(s.keyBuf), 64), MaxKeyLen+32))
		copy(nb, s.kv.Key[:shared])
		s.keyBuf = nb
	}
	s.shared = shared
	// s.kv.Key is s.keyBuf[:len(s.kv.Key)], so the shared prefix is in place.
	// A suffix of up to 16 bytes (the common case) is copied with two
	// 8-byte loads and stores, not a memmove call: keyBuf keeps 32 spare
	// bytes, and the bytes loaded past the suffix are only read when
	// cap(suffix) shows they are in the block.
	buf := s.keyBuf[:cap(s.keyBuf)]
	if len(suffix) <= 16 && cap(suffix) >= 16 {
		le := binary.LittleEndian
		dst, src := buf[shared:shared+16], suffix[:16]
		le.PutUint64(dst, le.Uint64(src))
		le.PutUint64(dst[8:], le.Uint64(src[8:]))
	} else {
		copy(buf[shared:n], suffix)
	}
	s.kv.Key = buf[:n] // the capacity of keyBuf: Next reslices it
	return true
}

// setValue makes b[p:p+n] the current value and returns the offset after
// it, or a negative offset if it does not fit.
func (s *Seeker) setValue(p, n int) int {
	if n > MaxValueLen || n > len(s.cells)-p {
		return -1
	}
	s.val = s.cells[p : p+n : p+n]
	return p + n
}

// setKind reads a kind byte at p.
func (s *Seeker) setKind(p int) int {
	if p >= len(s.cells) || s.cells[p] > byte(KindPut) {
		return -1
	}
	s.kv.Kind = Kind(s.cells[p])
	return p + 1
}

// skipSeq notes the seq vlong at p and moves past it without decoding it:
// a seek decodes only the seq of the cell it lands on.
func (s *Seeker) skipSeq(p int) bool {
	if p < 0 || p >= len(s.cells) {
		return s.corrupt("cell overruns the block")
	}
	n := vlong.LenFromFirstByte(s.cells[p])
	if n > len(s.cells)-p {
		return s.corrupt("seq overruns the block")
	}
	s.seqOff = p
	s.off = p + n
	s.idx++
	if s.idx == s.count && s.off != len(s.cells) {
		return s.corrupt("bytes after the last cell")
	}
	return true
}

// None: klen | vlen | key | value | kind | seq.
func (s *Seeker) stepNone() bool {
	b := s.cells
	klen, p := frame.ReadLen(b, s.off)
	vlen, p := frame.ReadLen(b, p)
	if p < 0 || klen > MaxKeyLen || klen > len(b)-p {
		return s.corrupt("bad key")
	}
	s.kv.Key = b[p : p+klen : p+klen]
	return s.valueKindSeq(p+klen, vlen)
}

// valueKindSeq reads the value | kind | seq tail of None, Prefix and
// RowIndex cells.
func (s *Seeker) valueKindSeq(p, vlen int) bool {
	if vlen&s.refBit != 0 {
		p = s.setValueRef(p, vlen>>1)
	} else {
		p = s.setValue(p, vlen>>s.lenShift)
	}
	if p < 0 {
		return s.corrupt("bad value")
	}
	return s.skipSeq(s.setKind(p))
}

// Prefix and RowIndex: shared | suffix len | vlen | suffix | value | kind |
// seq. RowIndex restart cells have shared = 0 and sit at the offsets the
// restart array gives.
func (s *Seeker) stepPrefix() bool {
	b := s.cells
	p := s.off
	var shared, slen, vlen int
	if p+3 <= len(b) && (b[p]|b[p+1]|b[p+2]) < 0x80 { // readLens3, inlined by hand
		shared, slen, vlen, p = int(b[p]), int(b[p+1]), int(b[p+2]), p+3
	} else {
		shared, slen, vlen, p = frame.ReadLens3Slow(b, p)
	}
	if p < 0 || slen > len(b)-p {
		return s.corrupt("bad key")
	}
	if s.idx == s.nextRestart {
		if shared != 0 || s.off != s.restartOffset(s.ri) {
			return s.corrupt("restart offset is not a whole-key cell")
		}
		s.ri++
		s.nextRestart += s.interval
	}
	return s.setKey(shared, b[p:p+slen]) && s.valueKindSeq(p+slen, vlen)
}

// Diff: flags | [klen] | [vlen] | shared | suffix | value | [kind] | seq.
func (s *Seeker) stepDiff() bool {
	b := s.cells
	p := s.off
	if p >= len(b) {
		return s.corrupt("cell overruns the block")
	}
	flags := b[p]
	p++
	if flags&^diffKnownFlags != 0 {
		return s.corrupt("unknown diff flags")
	}
	klen, vlen := len(s.kv.Key), -1
	if flags&diffSameKeyLen == 0 {
		klen, p = frame.ReadLen(b, p)
	}
	if flags&diffSameValueLen == 0 {
		vlen, p = frame.ReadLen(b, p)
	}
	shared, p := frame.ReadLen(b, p)
	if p < 0 || shared > klen || klen-shared > len(b)-p {
		return s.corrupt("bad key")
	}
	slen := klen - shared
	if !s.setKey(shared, b[p:p+slen]) {
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
		return s.corrupt("bad value")
	}
	if flags&diffSameKind == 0 {
		p = s.setKind(p)
	}
	return s.skipSeq(p)
}

// FastDiff: flags | [suffix len - 15] | [shared] | [vlen] | suffix |
// [value] | seq.
func (s *Seeker) stepFastDiff() bool {
	b := s.cells
	p := s.off
	if p >= len(b) {
		return s.corrupt("cell overruns the block")
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
		shared = len(s.kv.Key) - slen
	} else {
		shared, p = frame.ReadLen(b, p)
	}
	vlen := -1 // the same length as the previous value
	switch flags & (fdSameValue | fdSameValueLen) {
	case 0:
		vlen, p = frame.ReadLen(b, p)
	case fdSameValue | fdSameValueLen:
		return s.corrupt("same value and same value length both set")
	}
	if p < 0 || shared < 0 || slen > len(b)-p {
		return s.corrupt("bad key")
	}
	if !s.setKey(shared, b[p:p+slen]) {
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
			return s.corrupt("bad value")
		}
	}
	s.kv.Kind = Kind(flags >> 7)
	return s.skipSeq(p)
}
