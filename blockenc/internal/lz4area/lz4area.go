// Package lz4area writes and reads the LZ4-compressed areas of blockenc
// blocks: one LZ4 block, or LZ4Dict sub-blocks whose first is the preset
// dictionary of every later one (Lucene's layout, LUCENE-9447), so that a
// reader decompresses the dictionary and the one sub-block it needs.
// Blocks are written by blockenc/internal/lz4dict and read by
// pierrec/lz4/v4.
//
// The index of an LZ4Dict area is one entry per sub-block, then their data:
//
//	subs  := entry * nsub | data
//	entry := rawlen uv | complen uv | [crc u32] | [first uv | klen uv | key]
//	data  := the sub-blocks in order, complen bytes each: the first an LZ4
//	         block alone, every later one an LZ4 block whose matches may
//	         reach into the first's uncompressed bytes; complen == rawlen
//	         means stored raw
//
// crc, the CRC-32C (little-endian) of the sub-block's complen bytes of
// data, is in checked indexes (version 4 Columnar blocks, whose trailer
// does not cover the data): Load compares it before it decodes a byte.
// The key part is in keyed indexes (row blocks, whose sub-blocks
// start at a cell: its index and key), for every sub-block but the first.
// Where nsub (and the area's length) stand is up to the block layout.
//
// With an external dictionary (a Dict, kept outside the block and named
// in it by its ID) the index is the same, but no sub-block is a
// dictionary: every one, the first too, is an LZ4 block whose matches may
// reach into the external dictionary's bytes (as if they preceded it), so
// a reader decompresses only the sub-block it needs.
package lz4area

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/pierrec/lz4/v4"

	"github.com/kvenc/kvenc/blockenc/internal/frame"
	"github.com/kvenc/kvenc/blockenc/internal/lz4dict"
)

// MaxExpansion bounds the uncompressed size of n LZ4 bytes (a match length
// byte of 255 adds 255 bytes): a larger claimed length is corrupt, and is
// refused before a buffer is sized for it.
const MaxExpansion = 255

// LZ4Dict sub-block sizes (uncompressed bytes): the dictionary, sub-block
// 0, is about DictSize bytes, every later sub-block about SubBlockSize
// (row blocks cut at the first cell, or RowIndex restart, at or after the
// size; Columnar value areas cut at the size). Variables so that tests get
// many sub-blocks from few cells (SetSizes).
var DictSize, SubBlockSize = 8 << 10, 8 << 10

// ExtSubBlockSize is the size of the sub-blocks of an area compressed
// against an external dictionary (the last one fewer). Against a shared
// 64 KiB dictionary the size costs little ratio (lineitem rows: 0.432 of
// raw at 1 KiB, 0.427 at 2 KiB, 0.425 at 4 KiB, index included) and a
// point read decodes one sub-block, so it is small. A variable for tests
// (SetExtSize).
var ExtSubBlockSize = 1 << 10

// SetExtSize sets ExtSubBlockSize and returns a function that restores
// it; for tests.
func SetExtSize(sub int) (restore func()) {
	s := ExtSubBlockSize
	ExtSubBlockSize = sub
	return func() { ExtSubBlockSize = s }
}

// Dict is an external dictionary: its bytes with the compressor's tables
// prepared once (LZ), and its ID, which blocks that use it record. Safe
// for concurrent use; make one with NewDict.
type Dict struct {
	LZ  *lz4dict.Dict
	ID  uint32
	win *windows // decodes against LZ's bytes
}

// NewDict returns the Dict of lz with ID id.
func NewDict(lz *lz4dict.Dict, id uint32) *Dict {
	return &Dict{LZ: lz, ID: id, win: &windows{dict: lz.Bytes()}}
}

// decode decodes src, an LZ4 block compressed against d, into dst, and
// returns the bytes written, or -1 if src is not such a block or does
// not fit dst.
func (d *Dict) decode(dst, src []byte) int { return d.win.decode(dst, src) }

// SetSizes sets DictSize and SubBlockSize and returns a function that
// restores them; for tests.
func SetSizes(dict, sub int) (restore func()) {
	d, s := DictSize, SubBlockSize
	DictSize, SubBlockSize = dict, sub
	return func() { DictSize, SubBlockSize = d, s }
}

// Sub is one sub-block of an LZ4Dict area.
type Sub struct {
	Raw, RawLen   int    // its bytes in the uncompressed area
	Comp, CompLen int    // its data in the block
	First         int    // keyed: the index of its first cell
	Key, KeyLen   int    // keyed: its first key in the block (not for sub-block 0)
	CRC           uint32 // checked: the CRC-32C of its data
	CRCAt         int    // checked: where CRC is in the block
	Loaded        bool   // decompressed since the index was read
	Checked       bool   // keyed: its first cell's key compared with the index
}

// Writer compresses areas, reusing its buffers.
type Writer struct {
	Level int   // lz4dict compression level
	Ext   *Dict // an external dictionary for AppendSubs, or nil
	lz    *lz4dict.Compressor
	data  []byte
}

func (w *Writer) compressor() *lz4dict.Compressor {
	if w.lz == nil {
		w.lz = &lz4dict.Compressor{Level: w.Level}
	}
	return w.lz
}

// Compress appends raw as one LZ4 block.
func (w *Writer) Compress(dst, raw []byte) []byte {
	return w.compressor().CompressBlock(dst, raw, nil)
}

// AppendSubs appends the sub-blocks of area that start at cuts (cuts[0]
// is 0, the last ends at len(area)) as entries and data; key, if not nil,
// gives the first cell and key of every sub-block but the first; with
// sums every entry carries the CRC-32C of its sub-block's data (a checked
// index, ParseSubs's sums). With w.Ext, every sub-block is compressed
// against it; else the first is compressed alone and is the dictionary of
// the others.
//
// Above level 0, once the first sub-block's search saved less than an
// eighth of it, the others are compressed at level 0: the area is mostly
// incompressible (random bytes, hashes, encrypted values, with a few
// repeats between them), and LZ4's greedy parse, which skips ahead faster
// the longer it finds nothing, finds the few repeats at a fraction of the
// slow searches' time.
func (w *Writer) AppendSubs(dst, area []byte, cuts []int, key func(j int) (int, []byte), sums bool) []byte {
	lz := w.compressor()
	dict := area[:len(area)]
	if len(cuts) > 1 {
		dict = area[:cuts[1]]
	}
	w.data = w.data[:0]
	defer func() { lz.Level = w.Level }()
	for j, lo := range cuts {
		hi := len(area)
		if j+1 < len(cuts) {
			hi = cuts[j+1]
		}
		raw := area[lo:hi]
		start := len(w.data)
		if w.Ext != nil {
			w.data = lz.CompressBlockDict(w.data, raw, w.Ext.LZ)
		} else if j == 0 {
			w.data = lz.CompressBlock(w.data, raw, nil)
		} else {
			w.data = lz.CompressBlock(w.data, raw, dict)
		}
		if j == 0 && 8*(len(w.data)-start) > 7*len(raw) {
			lz.Level = lz4dict.LevelFast
		}
		if len(w.data)-start >= len(raw) {
			w.data = append(w.data[:start], raw...)
		}
		dst = binary.AppendUvarint(dst, uint64(len(raw)))
		dst = binary.AppendUvarint(dst, uint64(len(w.data)-start))
		if sums {
			dst = binary.LittleEndian.AppendUint32(dst, frame.Checksum(w.data[start:]))
		}
		if key != nil && j > 0 {
			first, k := key(j)
			dst = binary.AppendUvarint(dst, uint64(first))
			dst = binary.AppendUvarint(dst, uint64(len(k)))
			dst = append(dst, k...)
		}
	}
	return append(dst, w.data...)
}

// DataLen returns the bytes of sub-block data the last AppendSubs wrote
// (the last part of what it appended).
func (w *Writer) DataLen() int { return len(w.data) }

// Reader holds the uncompressed bytes of an area and what it takes to make
// them; its buffers are kept across Reset.
type Reader struct {
	Subs []Sub  // LZ4Dict: the index
	Raw  []byte // the uncompressed area, 8 bytes of slack after it
	// Ext is the external dictionary every sub-block is compressed
	// against, or nil: the first sub-block is the dictionary. Set by the
	// block layout after ParseSubs.
	Ext *Dict
	// Sums: the index is checked (ParseSubs's sums), and Load compares
	// every sub-block's CRC-32C before it decodes it.
	Sums bool

	lzSrc, lzOut []byte // scratch for uncompressWithDict
}

// Reset empties r for a new block, keeping its buffers.
func (r *Reader) Reset() {
	r.Subs, r.Raw, r.Ext, r.Sums = r.Subs[:0], r.Raw[:0], nil, false
}

// ReadID reads the u32 dictionary ID at b[p:] of an area compressed
// against an external dictionary, checks it against have (nil: the
// reader was given none), sets r.Ext and returns the offset after it.
func (r *Reader) ReadID(b []byte, p int, have *Dict) (int, error) {
	if p < 0 || p+4 > len(b) {
		return 0, frame.Corrupt(max(p, 0), "missing dictionary ID")
	}
	id := binary.LittleEndian.Uint32(b[p:])
	switch {
	case have == nil:
		return 0, fmt.Errorf("%w: offset %d: the block needs dictionary %#08x, none given", frame.ErrWrongDict, p, id)
	case have.ID != id:
		return 0, fmt.Errorf("%w: offset %d: the block needs dictionary %#08x, given %#08x", frame.ErrWrongDict, p, id, have.ID)
	}
	r.Ext = have
	return p + 4, nil
}

// NeedsFirst reports whether every sub-block needs the first one loaded
// (it is their dictionary): false with an external dictionary.
func (r *Reader) NeedsFirst() bool { return r.Ext == nil }

// Grow sizes r.Raw for n bytes plus 8 bytes of slack (so a reader may load
// 8 bytes after any byte of the area) and returns its first n bytes.
func (r *Reader) Grow(n int) []byte {
	if cap(r.Raw) < n+8 {
		r.Raw = make([]byte, n+8, max(n+8, 2*cap(r.Raw)))
	}
	r.Raw = r.Raw[:n+8]
	return r.Raw[:n:n]
}

// Decode decompresses src, one LZ4 block of n bytes uncompressed (found at
// offset at of the block), into r.Raw and returns them.
func (r *Reader) Decode(src []byte, n, at int) ([]byte, error) {
	if n > len(src)*MaxExpansion || n > 1<<31 || len(src) == 0 {
		return nil, frame.Corrupt(at, "bad uncompressed length")
	}
	raw := r.Grow(n)
	if got, err := lz4.UncompressBlock(src, raw); err != nil || got != n {
		return nil, frame.Corrupt(at, "LZ4 data does not decode to %d bytes", n)
	}
	return raw, nil
}

// ParseSubs reads the nsub entries of an LZ4Dict index at b[p:end] into
// r.Subs and returns the offset of their data and the uncompressed length
// of the area; the data takes the sum of the complens from there. sums
// says the index is checked (a crc in every entry), what names the area in
// errors. Nothing is decompressed: Load does that.
func (r *Reader) ParseSubs(b []byte, p, end, nsub int, keyed, sums bool, what string) (int, int, error) {
	b = b[:end]
	if nsub == 0 || nsub > (end-p)/2 {
		return 0, 0, frame.Corrupt(p, "%s: bad sub-block count", what)
	}
	subs := r.Subs[:0]
	raw, comp := 0, 0
	for j := range nsub {
		var sb Sub
		q := p
		sb.RawLen, p = frame.ReadLen(b, p)
		sb.CompLen, p = frame.ReadLen(b, p)
		if sums {
			if p < 0 || p+4 > end {
				return 0, 0, frame.Corrupt(q, "%s: bad sub-block entry", what)
			}
			sb.CRC, sb.CRCAt = binary.LittleEndian.Uint32(b[p:]), p
			p += 4
		}
		if keyed && j > 0 {
			sb.First, p = frame.ReadLen(b, p)
			sb.KeyLen, p = frame.ReadLen(b, p)
			if p >= 0 && sb.KeyLen > end-p {
				p = -1
			}
			sb.Key = p
			p += sb.KeyLen
			if p >= 0 && sb.First <= subs[j-1].First {
				return 0, 0, frame.Corrupt(q, "%s: first cells not increasing", what)
			}
		}
		if p < 0 {
			return 0, 0, frame.Corrupt(q, "%s: bad sub-block entry", what)
		}
		if sb.RawLen == 0 || sb.CompLen > sb.RawLen || sb.RawLen > sb.CompLen*MaxExpansion {
			return 0, 0, frame.Corrupt(q, "%s: bad sub-block lengths", what)
		}
		sb.Raw, sb.Comp = raw, comp
		raw += sb.RawLen
		comp += sb.CompLen
		if raw > 1<<31 || comp > end {
			return 0, 0, frame.Corrupt(q, "%s: sub-blocks too long", what)
		}
		subs = append(subs, sb)
	}
	if comp > end-p {
		return 0, 0, frame.Corrupt(p, "%s: %d bytes of sub-blocks, %d bytes left", what, comp, end-p)
	}
	for j := range subs {
		subs[j].Comp += p
	}
	r.Subs, r.Sums = subs, sums
	return p, raw, nil
}

// DataEnd returns the offset after the data of the sub-blocks.
func (r *Reader) DataEnd() int {
	last := r.Subs[len(r.Subs)-1]
	return last.Comp + last.CompLen
}

// Load decompresses sub-block j of block into r.Raw if it is not there
// yet; without r.Ext, every sub-block after the first needs the first
// loaded.
func (r *Reader) Load(block []byte, j int) error {
	sb := &r.Subs[j]
	if sb.Loaded {
		return nil
	}
	src := block[sb.Comp : sb.Comp+sb.CompLen]
	if r.Sums {
		if got := frame.Checksum(src); got != sb.CRC {
			return frame.Corrupt(sb.Comp, "LZ4Dict sub-block %d: checksum %#08x, index says %#08x", j, got, sb.CRC)
		}
	}
	dst := r.Raw[sb.Raw : sb.Raw+sb.RawLen : sb.Raw+sb.RawLen]
	var n int
	var err error
	switch {
	case sb.CompLen == sb.RawLen:
		n = copy(dst, src)
	case r.Ext != nil:
		if n = r.Ext.decode(dst, src); n < 0 {
			err = errShortLZ4
		}
	case j == 0:
		n, err = lz4.UncompressBlock(src, dst)
	case dictAsLiterals:
		n, err = r.uncompressWithDict(src, dst, r.Raw[:r.Subs[0].RawLen])
	default:
		n, err = lz4.UncompressBlockWithDict(src, dst, r.Raw[:r.Subs[0].RawLen])
	}
	if err != nil || n != sb.RawLen {
		return frame.Corrupt(sb.Comp, "LZ4Dict sub-block %d does not decode to %d bytes", j, sb.RawLen)
	}
	sb.Loaded = true
	return nil
}

// uncompressWithDict decodes the LZ4 block src, whose matches may reach
// into dict, into dst, like lz4.UncompressBlockWithDict. That function
// calls memmove for every match that starts in the dictionary, and
// sub-blocks of lineitem rows have many short ones (dates, words). Here
// the dictionary's last 64 KiB (the farthest an LZ4 offset reaches) become
// literals of the block's first sequence, so the block decodes into
// scratch as dictionary followed by dst, with every match inside its
// output, and dst is copied out: three copies of about 8 KiB instead of a
// call per match. A cold SeekGE on lineitem LZ4Dict blocks takes about two
// thirds of the time it takes with UncompressBlockWithDict (BenchmarkRatios,
// data=lineitem); on text with few dictionary matches the copies can cost
// more than the calls. A block that reaches before the dictionary fails
// either way.
func (r *Reader) uncompressWithDict(src, dst, dict []byte) (int, error) {
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
			if p >= len(src) || lit > len(src)*MaxExpansion {
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
	b := append(r.lzSrc[:0], byte(min(lit, 15))<<4|tok&15)
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
	r.lzSrc = b
	if cap(r.lzOut) < len(dict)+len(dst) {
		r.lzOut = make([]byte, len(dict)+len(dst))
	}
	out := r.lzOut[:len(dict)+len(dst)]
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

// SetDictAsLiterals chooses how LZ4Dict sub-blocks are decoded (for
// benchmarks), and returns a function that restores the choice.
func SetDictAsLiterals(on bool) (restore func()) {
	old := dictAsLiterals
	dictAsLiterals = on
	return func() { dictAsLiterals = old }
}
