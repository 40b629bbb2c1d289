package rowblk

import (
	"encoding/binary"
	"fmt"

	"github.com/kvenc/kvenc/blockenc/internal/cell"
	"github.com/kvenc/kvenc/blockenc/internal/frame"
	"github.com/kvenc/kvenc/blockenc/internal/lz4area"
)

// The LZ4 and LZ4Dict cell areas of row blocks. The cells (without the
// restart array, which stays uncompressed so Init checks it and seeks read
// it in place) are compressed as one LZ4 block or as LZ4Dict sub-blocks
// cut at cells (internal/lz4area):
//
//	lz4     := rawlen uv | LZ4 block                        (flag bit 0)
//	lz4dict := nsub uv | keyed lz4area index and data      (flag bit 1)
//	         | id u32 | nsub uv | keyed index and data     (flag bits 1
//	                                                        and 5: every
//	                                                        sub-block against
//	                                                        the external
//	                                                        dictionary id)
//
// Sub-blocks start at the first cell (RowIndex: restart) at or after
// lz4area.DictSize bytes into the cells, and then every SubBlockSize
// bytes; against an external dictionary every ExtSubBlockSize (1 KiB).

// appendLZ4 appends the LZ4 cell area.
func (e *Writer) appendLZ4(dst []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(e.buf)))
	return e.lz.Compress(dst, e.buf)
}

// subIndexBound bounds the LZ4Dict index: the per-sub-block lengths (a
// complen is at most its rawlen) and first keys.
func (e *Writer) subIndexBound() int {
	n := frame.UvarintLen(uint64(len(e.subs))) + 2*len(e.subs)*frame.UvarintLen(uint64(len(e.buf))) + e.subIndex
	if e.opts.Ext != nil {
		n += 4 // the dictionary ID
	}
	return n
}

// appendLZ4Dict appends the LZ4Dict cell area.
func (e *Writer) appendLZ4Dict(dst []byte) []byte {
	if e.opts.Ext != nil {
		dst = binary.LittleEndian.AppendUint32(dst, e.opts.Ext.ID)
	}
	dst = binary.AppendUvarint(dst, uint64(len(e.subs)))
	e.cuts = e.cuts[:0]
	for _, sc := range e.subs {
		e.cuts = append(e.cuts, int(sc.off))
	}
	return e.lz.AppendSubs(dst, e.buf, e.cuts, e.subKey, false)
}

// subKey returns the first cell and key of sub-block j > 0.
func (e *Writer) subKey(j int) (int, []byte) {
	sc := e.subs[j]
	end := len(e.subKeys)
	if j+1 < len(e.subs) {
		end = e.subs[j+1].key
	}
	return sc.first, e.subKeys[sc.key:end]
}

// initLZ4 decompresses an LZ4 cell area (area starts at offset at of the
// block) and returns the cells.
func (s *Reader) initLZ4(area []byte, at int) ([]byte, error) {
	n, k := frame.ReadLen(area, 0)
	if k < 0 {
		return nil, frame.Corrupt(at, "bad uncompressed length")
	}
	raw, err := s.area.Decode(area[k:], n, at)
	s.Tail = s.area.Raw
	return raw, err
}

// initLZ4Dict reads an LZ4Dict index and returns the length of the
// uncompressed cells; sub-blocks are decompressed when a move reaches them.
func (s *Reader) initLZ4Dict(block []byte, at, end int, ext bool) (int, error) {
	if ext {
		var err error
		if at, err = s.area.ReadID(block[:end], at, s.ext); err != nil {
			return 0, err
		}
	}
	nsub, p := frame.ReadLen(block[:end], at)
	if p < 0 {
		return 0, frame.Corrupt(at, "LZ4Dict index: bad sub-block count")
	}
	p, raw, err := s.area.ParseSubs(block, p, end, nsub, true, false, "LZ4Dict index")
	if err != nil {
		return 0, err
	}
	if e := s.area.DataEnd(); e != end {
		return 0, frame.Corrupt(p, "LZ4Dict index: %d bytes of sub-blocks, %d bytes left", e-p, end-p)
	}
	s.area.Grow(raw)
	s.Tail = s.area.Raw
	return raw, nil
}

// toSub positions s before the first cell of sub-block j, decompressing it
// (and the dictionary sub-block, without an external dictionary) if
// needed. Cells are read only up to the end of the
// sub-block: crossing into the next goes through nextSub.
func (s *Reader) toSub(j int) bool {
	if (s.area.NeedsFirst() && !s.loadSub(&s.area, 0)) || !s.loadSub(&s.area, j) {
		return false
	}
	sb := &s.area.Subs[j]
	s.Run = j
	s.subStart = sb.Raw
	s.Cells = s.area.Raw[: sb.Raw+sb.RawLen : sb.Raw+sb.RawLen]
	s.Off, s.Idx = sb.Raw, sb.First
	s.KV.Key, s.val, s.KV.Kind = s.KeyBuf[:0], nil, cell.KindPut
	s.Valid = false
	if s.enc == RowIndex {
		s.RI, s.NextRestart = sb.First/s.Interval, sb.First
		s.RILo, s.RIHi = s.RI, s.NRestarts
		if j+1 < len(s.area.Subs) {
			s.RIHi = s.area.Subs[j+1].First / s.Interval
		}
	}
	if j > 0 && !sb.Checked {
		// The index key must be the first cell's key, or seeks would
		// disagree with a scan: decode that cell once, then step back.
		if !s.step() {
			return false
		}
		if string(s.KV.Key) != string(s.block[sb.Key:sb.Key+sb.KeyLen]) {
			return s.Corrupt(fmt.Sprintf("sub-block %d: first key differs from the index", j))
		}
		sb.Checked = true
		return s.toSub(j)
	}
	return true
}

// nextSub moves on from the end of one sub-block to the next; the cell
// count must agree with the index.
func (s *Reader) nextSub() bool {
	j := s.Run + 1
	if j >= len(s.area.Subs) {
		return s.Corrupt("cell overruns the block")
	}
	if s.Idx != s.area.Subs[j].First {
		return s.Corrupt(fmt.Sprintf("sub-block %d starts at cell %d, index says %d", j, s.Idx, s.area.Subs[j].First))
	}
	return s.toSub(j)
}

// loadSub decompresses sub-block j of area, whose first is the
// dictionary, if it is not there yet; on bad bytes it stops the Seeker.
func (s *Reader) loadSub(area *lz4area.Reader, j int) bool {
	if err := area.Load(s.block, j); err != nil {
		s.Fail, s.Valid = err, false
		return false
	}
	return true
}

// seekSub positions s for a SeekGE on an LZ4Dict block: in the sub-block
// before the first one whose first key is >= key (the answer starts there,
// or is the first cell of the next). An ascending seek inside the current
// sub-block keeps its position.
func (s *Reader) seekSub(key []byte) bool {
	lo, hi := 1, len(s.area.Subs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		sb := &s.area.Subs[m]
		if string(s.block[sb.Key:sb.Key+sb.KeyLen]) < string(key) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	j := lo - 1
	if j == s.Run && s.Valid && string(s.KV.Key) < string(key) {
		return true
	}
	return s.toSub(j)
}

// SubsLoaded returns how many LZ4Dict sub-blocks s has decompressed since
// Init, and how many the block has (for tests).
func (s *Reader) SubsLoaded() (loaded, total int) {
	for _, sb := range s.area.Subs {
		if sb.Loaded {
			loaded++
		}
	}
	return loaded, len(s.area.Subs)
}
