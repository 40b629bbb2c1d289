package blockenc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/kvenc/kvenc/blockenc/internal/frame"

	"github.com/kvenc/kvenc/blockenc/internal/lz4dict"
	"github.com/pierrec/lz4/v4"
)

// LZ4 and LZ4Dict cell areas. The cells (without the restart array, which
// stays uncompressed so Init checks it and seeks read it in place) are
// compressed as LZ4 blocks, written by internal/lz4dict and read by
// pierrec/lz4/v4:
//
//	lz4     := rawlen uv | LZ4 block                 (flag bit 0)
//	lz4dict := nsub uv | sub * nsub | data            (flag bit 1)
//	sub     := rawlen uv | complen uv | [first uv | klen uv | key]
//	                                    (every sub-block but the first: its
//	                                     first cell's index and key)
//	data    := the sub-blocks in order, complen bytes each: the first an
//	           LZ4 block alone, every later one an LZ4 block whose matches
//	           may reach into the first's uncompressed bytes (its preset
//	           dictionary); complen == rawlen means stored raw

// maxExpansion bounds the uncompressed size of n LZ4 bytes (a match length
// byte of 255 adds 255 bytes): a larger claimed length is corrupt, and is
// refused before a buffer is sized for it.
const maxExpansion = 255

// appendLZ4 appends the LZ4 cell area.
func (e *Encoder) appendLZ4(dst []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(e.buf)))
	return e.lz.CompressBlock(dst, e.buf, nil)
}

// subRaw returns the cells of sub-block j.
func (e *Encoder) subRaw(j int) []byte {
	end := len(e.buf)
	if j+1 < len(e.subs) {
		end = int(e.subs[j+1].off)
	}
	return e.buf[e.subs[j].off:end]
}

// subIndexBound bounds the LZ4Dict index: the per-sub-block lengths (a
// complen is at most its rawlen) and first keys.
func (e *Encoder) subIndexBound() int {
	return frame.UvarintLen(uint64(len(e.subs))) + 2*len(e.subs)*frame.UvarintLen(uint64(len(e.buf))) + e.subIndex
}

// appendLZ4Dict appends the LZ4Dict cell area.
func (e *Encoder) appendLZ4Dict(dst []byte) []byte {
	dict := e.subRaw(0)
	e.comp = e.comp[:0]
	dst = binary.AppendUvarint(dst, uint64(len(e.subs)))
	for j, sc := range e.subs {
		raw := e.subRaw(j)
		start := len(e.comp)
		e.comp = appendSubBlock(e.lz, e.comp, raw, dict, j)
		dst = binary.AppendUvarint(dst, uint64(len(raw)))
		dst = binary.AppendUvarint(dst, uint64(len(e.comp)-start))
		if j > 0 {
			klen := len(e.subKeys) - sc.key
			if j+1 < len(e.subs) {
				klen = e.subs[j+1].key - sc.key
			}
			dst = binary.AppendUvarint(dst, uint64(sc.first))
			dst = binary.AppendUvarint(dst, uint64(klen))
			dst = append(dst, e.subKeys[sc.key:sc.key+klen]...)
		}
	}
	return append(dst, e.comp...)
}

// appendSubBlock appends sub-block j, raw, of an LZ4Dict area to dst:
// compressed alone (j = 0) or against dict, or stored when compressing
// does not make it smaller (complen = rawlen).
func appendSubBlock(lz *lz4dict.Compressor, dst, raw, dict []byte, j int) []byte {
	if j == 0 {
		dict = nil
	}
	start := len(dst)
	dst = lz.CompressBlock(dst, raw, dict)
	if len(dst)-start >= len(raw) {
		dst = append(dst[:start], raw...)
	}
	return dst
}

// subBlock is a Seeker's view of one LZ4Dict sub-block.
type subBlock struct {
	raw     int // offset of its cells in the uncompressed stream
	rawLen  int
	comp    int // offset of its data in the block
	compLen int
	first   int // index of its first cell
	key     int // offset of its first key in the block (not for sub-block 0)
	keyLen  int
	loaded  bool // decompressed into Seeker.raw since Init
	checked bool // first cell's key compared with the index since Init
}

// initLZ4 decompresses an LZ4 cell area (area starts at offset at of the
// block) into s.raw and returns the cells.
func (s *Seeker) initLZ4(area []byte, at int) ([]byte, error) {
	n, k := binary.Uvarint(area)
	if k <= 0 || n > uint64(len(area)-k)*maxExpansion || n > 1<<31 {
		return nil, frame.Corrupt(at, "bad uncompressed length")
	}
	raw := s.growRaw(int(n))
	if got, err := lz4.UncompressBlock(area[k:], raw); err != nil || got != len(raw) {
		return nil, frame.Corrupt(at+k, "LZ4 data does not decode to %d bytes", n)
	}
	return raw, nil
}

// growRaw sizes s.raw for n bytes of cells plus 8 bytes of slack, so the
// seq decoder may load 8 bytes after any seq byte, and returns its first n
// bytes.
func (s *Seeker) growRaw(n int) []byte {
	if cap(s.raw) < n+8 {
		s.raw = make([]byte, n+8, max(n+8, 2*cap(s.raw)))
	}
	s.raw = s.raw[:n+8]
	s.tail = s.raw
	return s.raw[:n:n]
}

// initLZ4Dict reads an LZ4Dict index and returns the length of the
// uncompressed cells; sub-blocks are decompressed when a move reaches them.
func (s *Seeker) initLZ4Dict(block []byte, at, end int) (int, error) {
	bad := func(p int, what string) (int, error) {
		return 0, frame.Corrupt(p, "LZ4Dict index: %s", what)
	}
	p := at
	nsub, p := frame.ReadLen(block[:end], p)
	if p < 0 || nsub == 0 || nsub > (end-at)/2 {
		return bad(at, "bad sub-block count")
	}
	subs := s.subs[:0]
	raw, comp := 0, 0
	for j := range nsub {
		var sb subBlock
		q := p
		sb.rawLen, p = frame.ReadLen(block[:end], p)
		sb.compLen, p = frame.ReadLen(block[:end], p)
		if j > 0 {
			sb.first, p = frame.ReadLen(block[:end], p)
			sb.keyLen, p = frame.ReadLen(block[:end], p)
			if p >= 0 && (sb.keyLen > MaxKeyLen || sb.keyLen > end-p) {
				p = -1
			}
			sb.key = p
			p += sb.keyLen
			if p >= 0 && sb.first <= subs[j-1].first {
				return bad(q, "first cells not increasing")
			}
		}
		if p < 0 {
			return bad(q, "bad sub-block entry")
		}
		if sb.rawLen == 0 || sb.compLen > sb.rawLen || sb.rawLen > sb.compLen*maxExpansion {
			return bad(q, "bad sub-block lengths")
		}
		sb.raw, sb.comp = raw, comp
		raw += sb.rawLen
		comp += sb.compLen
		if raw > 1<<31 || comp > end {
			return bad(q, "sub-blocks too long")
		}
		subs = append(subs, sb)
	}
	if comp != end-p {
		return bad(p, fmt.Sprintf("%d bytes of sub-blocks, %d bytes left", comp, end-p))
	}
	for j := range subs {
		subs[j].comp += p
	}
	s.subs = subs
	s.growRaw(raw)
	return raw, nil
}

// toSub positions s before the first cell of sub-block j, decompressing it
// (and the dictionary) if needed. Cells are read only up to the end of the
// sub-block: crossing into the next goes through nextSub.
func (s *Seeker) toSub(j int) bool {
	if !s.loadSub(0) || !s.loadSub(j) {
		return false
	}
	sb := &s.subs[j]
	s.sub = j
	s.subStart = sb.raw
	s.cells = s.raw[: sb.raw+sb.rawLen : sb.raw+sb.rawLen]
	s.off, s.idx = sb.raw, sb.first
	s.kv.Key, s.val, s.kv.Kind = s.keyBuf[:0], nil, KindPut
	s.valid = false
	if s.enc == RowIndex {
		s.ri, s.nextRestart = sb.first/s.interval, sb.first
		s.riLo, s.riHi = s.ri, s.nRestarts
		if j+1 < len(s.subs) {
			s.riHi = s.subs[j+1].first / s.interval
		}
	}
	if j > 0 && !sb.checked {
		// The index key must be the first cell's key, or seeks would
		// disagree with a scan: decode that cell once, then step back.
		if !s.step() {
			return false
		}
		if string(s.kv.Key) != string(s.block[sb.key:sb.key+sb.keyLen]) {
			return s.corrupt(fmt.Sprintf("sub-block %d: first key differs from the index", j))
		}
		sb.checked = true
		return s.toSub(j)
	}
	return true
}

// nextSub moves on from the end of one sub-block to the next; the cell
// count must agree with the index.
func (s *Seeker) nextSub() bool {
	j := s.sub + 1
	if j >= len(s.subs) {
		return s.corrupt("cell overruns the block")
	}
	if s.idx != s.subs[j].first {
		return s.corrupt(fmt.Sprintf("sub-block %d starts at cell %d, index says %d", j, s.idx, s.subs[j].first))
	}
	return s.toSub(j)
}

// loadSub decompresses sub-block j into s.raw if it is not there yet.
func (s *Seeker) loadSub(j int) bool { return s.loadSubOf(s.subs, j) }

// loadSubOf decompresses sub-block j of subs (the cells' or a Columnar
// value area's, whose first is the dictionary at s.raw[0:]) into s.raw if
// it is not there yet.
func (s *Seeker) loadSubOf(subs []subBlock, j int) bool {
	sb := &subs[j]
	if sb.loaded {
		return true
	}
	src := s.block[sb.comp : sb.comp+sb.compLen]
	dst := s.raw[sb.raw : sb.raw+sb.rawLen : sb.raw+sb.rawLen]
	var n int
	var err error
	switch {
	case sb.compLen == sb.rawLen:
		n = copy(dst, src)
	case j == 0:
		n, err = lz4.UncompressBlock(src, dst)
	case dictAsLiterals:
		n, err = s.uncompressWithDict(src, dst, s.raw[:subs[0].rawLen])
	default:
		n, err = lz4.UncompressBlockWithDict(src, dst, s.raw[:subs[0].rawLen])
	}
	if err != nil || n != sb.rawLen {
		s.err = frame.Corrupt(sb.comp, "LZ4Dict sub-block %d does not decode to %d bytes", j, sb.rawLen)
		s.valid = false
		return false
	}
	sb.loaded = true
	return true
}

// uncompressWithDict decodes the LZ4 block src, whose matches may reach
// into dict, into dst, like lz4.UncompressBlockWithDict. That function
// calls memmove for every match that starts in the dictionary, and
// sub-blocks of lineitem rows have many short ones (dates, words). Here
// the dictionary's last 64 KiB (the farthest an LZ4 offset reaches) become
// literals of the block's first sequence, so the block decodes into
// scratch as dictionary followed by dst, with every match inside its
// output, and dst is copied out: three copies of about 8 KiB instead of a
// call per match. Measured by BenchmarkGoals (interleaved, medians): a
// cold SeekGE on the lineitem LZ4Dict blocks takes 7.5 us this way and
// 11.4 us with UncompressBlockWithDict. (On other data it can lose: on
// text with few dictionary matches the copies cost more than the calls.)
// A block that reaches before the dictionary fails either way.
func (s *Seeker) uncompressWithDict(src, dst, dict []byte) (int, error) {
	dict = dict[max(len(dict)-65535, 0):]
	if len(src) == 0 {
		return 0, errShortLZ4
	}
	// The first sequence's literal length: the token's high nibble, plus
	// bytes while they are 255.
	tok, p := src[0], 1
	lit := int(tok >> 4)
	if lit == 15 {
		for {
			if p >= len(src) || lit > len(src)*maxExpansion {
				return 0, errShortLZ4
			}
			b := src[p]
			p++
			lit += int(b)
			if b != 255 {
				break
			}
		}
	}
	lit += len(dict)
	b := append(s.lzSrc[:0], byte(min(lit, 15))<<4|tok&15)
	if lit >= 15 {
		for n := lit - 15; ; n -= 255 {
			if n < 255 {
				b = append(b, byte(n))
				break
			}
			b = append(b, 255)
		}
	}
	b = append(append(b, dict...), src[p:]...)
	s.lzSrc = b
	if cap(s.lzOut) < len(dict)+len(dst) {
		s.lzOut = make([]byte, len(dict)+len(dst))
	}
	out := s.lzOut[:len(dict)+len(dst)]
	n, err := lz4.UncompressBlock(b, out)
	if err != nil || n != len(out) {
		return 0, errShortLZ4
	}
	return copy(dst, out[len(dict):]), nil
}

var errShortLZ4 = errors.New("bad LZ4 block")

// dictAsLiterals chooses uncompressWithDict over pierrec's dictionary
// decoding; a variable so benchmarks can compare the two.
var dictAsLiterals = true

// seekSub positions s for a SeekGE on an LZ4Dict block: in the sub-block
// before the first one whose first key is >= key (the answer starts there,
// or is the first cell of the next). An ascending seek inside the current
// sub-block keeps its position.
func (s *Seeker) seekSub(key []byte) bool {
	lo, hi := 1, len(s.subs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		sb := &s.subs[m]
		if string(s.block[sb.key:sb.key+sb.keyLen]) < string(key) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	j := lo - 1
	if j == s.sub && s.valid && string(s.kv.Key) < string(key) {
		return true
	}
	return s.toSub(j)
}
