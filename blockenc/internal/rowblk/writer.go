package rowblk

import (
	"bytes"
	"encoding/binary"
	"slices"

	"github.com/kvenc/kvenc/blockenc/internal/cell"
	"github.com/kvenc/kvenc/blockenc/internal/frame"
	"github.com/kvenc/kvenc/blockenc/internal/intcol"
	"github.com/kvenc/kvenc/blockenc/internal/lz4area"
	"github.com/kvenc/kvenc/blockenc/internal/prefixkeys"
	"github.com/kvenc/kvenc/vlong"
)

// Diff flags byte: part of the format, never reuse. Other bits must be 0.
const (
	diffSameKeyLen   = 1 << 0 // key length omitted: equals the previous key's
	diffSameValueLen = 1 << 1 // value length omitted: equals the previous value's
	diffSameKind     = 1 << 2 // kind byte omitted: equals the previous kind
	diffKnownFlags   = diffSameKeyLen | diffSameValueLen | diffSameKind
)

// FastDiff flags byte: part of the format, never reuse.
const (
	fdSuffixMask   = 0x0f   // suffix length 0..14; 15: suffix length - 15 follows as uvarint
	fdSuffixEscape = 15     // nibble value meaning "uvarint follows"
	fdSameKeyLen   = 1 << 4 // shared length omitted: key length equals the previous key's
	fdSameValueLen = 1 << 5 // value length omitted: equals the previous value's
	fdSameValue    = 1 << 6 // value omitted: equals the previous value (fdSameValueLen is then 0)
	fdPut          = 1 << 7 // the kind: 1 = cell.KindPut, 0 = cell.KindDelete
)

// Layouts: the blockenc.Encoding ids of the row encodings (byte 1 of a
// block). Part of the format, never reuse.
const (
	None     = 0 // klen | vlen | key | value | kind | seq
	Prefix   = 1 // shared | slen | vlen | suffix | value | kind | seq
	Diff     = 2 // flags | [klen] | [vlen] | shared | suffix | value | [kind] | seq
	FastDiff = 3 // flags | [slen - 15] | [shared] | [vlen] | suffix | [value] | seq
	RowIndex = 4 // Prefix, restarted every Interval cells, with a restart array
)

// Options configure a Writer (blockenc.Options for the row encodings).
type Options struct {
	Layout   byte // None .. RowIndex
	Interval int  // RowIndex restart interval
	Compress byte // the compression to try: 0, frame.FlagLZ4 or frame.FlagLZ4Dict
	Level    int  // lz4dict compression level
	// Ext, with frame.FlagLZ4Dict, is the external dictionary of every
	// sub-block, or nil: the first sub-block is the others' dictionary.
	Ext       *lz4area.Dict
	Dedupe    bool // value back-references
	IntValues bool // value (and seq) columns when smaller
}

// Writer builds one row block from cells added in order (the caller
// checks the order and the limits).
type Writer struct {
	opts     Options
	buf      []byte   // the cells, as they will appear in the block
	restarts []uint32 // RowIndex: offsets of restart cells in buf
	n        int      // cells added

	prevKey  []byte // copy of the previous key
	prevSeq  uint64
	prevKind cell.Kind
	prevVal  int // offset of the previous value in buf
	prevVLen int // length of the previous value

	subs     []subCut       // LZ4Dict: where each sub-block starts (the first at 0)
	subStart int            // offset in buf of the current sub-block
	dedup    *dedupTable    // DedupeValues: recent values in the current sub-block
	ints     *intValues     // IntValues: the values as integers and the cells without them
	lz       lz4area.Writer // LZ4, LZ4Dict: the compressor
	cuts     []int          // LZ4Dict: Finish scratch, where the sub-blocks start
	out      []byte         // Finish scratch: the compressed candidate
	// subKeys holds the first key of every sub-block after the first;
	// subIndex bounds the bytes of the LZ4Dict index so far (for Size).
	subKeys  []byte
	subIndex int
}

// subCut is the start of an LZ4Dict sub-block.
type subCut struct {
	off   uint32 // offset in buf
	first int    // index of its first cell
	key   int    // offset of its first key in subKeys
}

// NewWriter returns a Writer for opts.
func NewWriter(opts Options) *Writer {
	e := &Writer{}
	e.setOptions(opts)
	e.Reset()
	return e
}

func (e *Writer) setOptions(opts Options) {
	e.opts = opts
	e.lz.Level, e.lz.Ext = opts.Level, opts.Ext
	if opts.Dedupe {
		e.dedup = new(dedupTable)
	}
	if opts.IntValues {
		inner := opts
		inner.Dedupe, inner.IntValues = false, false
		e.ints = &intValues{enc: &Writer{}, encS: &Writer{}, cw: intcol.Writer{Policy: rowPolicy}}
		e.ints.enc.setOptions(inner)
		e.ints.encS.setOptions(inner)
	}
}

// Reset empties the Writer for a new block, keeping its buffers.
func (e *Writer) Reset() {
	e.buf = e.buf[:0]
	e.restarts = e.restarts[:0]
	e.n = 0
	e.prevKey = e.prevKey[:0]
	e.prevSeq = 0
	e.prevKind = cell.KindPut
	e.prevVal, e.prevVLen = 0, 0
	e.subs = append(e.subs[:0], subCut{})
	e.subStart = 0
	e.subKeys = e.subKeys[:0]
	e.subIndex = 0
	if e.dedup != nil {
		e.dedup.startBlock()
	}
	if e.ints != nil {
		e.ints.reset()
	}
}

// Last returns the key and seq of the last cell added.
func (e *Writer) Last() ([]byte, uint64) { return e.prevKey, e.prevSeq }

// Buffered returns the bytes of cells added so far.
func (e *Writer) Buffered() int { return len(e.buf) }

// Size returns the length in bytes of the block Finish would return now
// without compression and with values inline: exact when Compression is
// NoCompression and IntValues is off, an upper bound otherwise (a
// compressed form or a value column is used only when smaller). Cutting
// blocks at a Size, as HBase does, makes blocks of equal uncompressed size.
func (e *Writer) Size() int {
	n := e.headerLen() + len(e.buf) + prefixkeys.RestartLen*len(e.restarts) + frame.TrailerLen
	if len(e.subs) > 1 {
		// Sub-blocks start from an empty previous cell, so the cells are
		// not a plain stream: they stay LZ4Dict, with incompressible
		// sub-blocks stored raw, and the index is added.
		n += e.subIndexBound()
	}
	return n
}

func (e *Writer) headerLen() int {
	n := 3 + frame.UvarintLen(uint64(e.n))
	if e.opts.Layout == RowIndex {
		n += frame.UvarintLen(uint64(e.opts.Interval))
	}
	return n
}

// Add appends c, which sorts after the cell added last and is within the
// limits.
func (e *Writer) Add(c cell.Cell) {
	if e.ints != nil {
		e.ints.add(c)
	}
	e.add(c)
}

// add appends a cell that passed Add's checks.
func (e *Writer) add(c cell.Cell) {
	if e.opts.Compress == frame.FlagLZ4Dict && e.n > 0 && e.cutSubBlock() {
		// A sub-block starts as a block does: from an empty previous cell
		// and an empty dedupe table, so it decodes knowing only itself.
		e.subs = append(e.subs, subCut{off: uint32(len(e.buf)), first: e.n, key: len(e.subKeys)})
		e.subStart = len(e.buf)
		e.subKeys = append(e.subKeys, c.Key...)
		e.subIndex += frame.UvarintLen(uint64(e.n)) + frame.UvarintLen(uint64(len(c.Key))) + len(c.Key)
		e.prevKey = e.prevKey[:0]
		e.prevKind = cell.KindPut
		e.prevVal, e.prevVLen = len(e.buf), 0
		if e.dedup != nil {
			e.dedup.reset()
		}
	}
	shared := prefixkeys.SharedPrefixLen(e.prevKey, c.Key)
	switch e.opts.Layout {
	case None:
		e.addNone(c)
	case Prefix:
		e.addPrefix(c, shared)
	case Diff:
		e.addDiff(c, shared)
	case FastDiff:
		e.addFastDiff(c, shared)
	case RowIndex:
		if e.n%e.opts.Interval == 0 {
			e.restarts = append(e.restarts, uint32(len(e.buf)))
			shared = 0
		}
		e.addPrefix(c, shared)
	}
	e.buf = vlong.Append(e.buf, int64(c.Seq))
	e.prevKey = append(e.prevKey[:0], c.Key...)
	e.prevSeq = c.Seq
	e.prevKind = c.Kind
	e.n++
}

// cutSubBlock reports whether the next cell starts a new LZ4Dict
// sub-block: the current one has reached its size, and (RowIndex) the next
// cell is a restart, so every sub-block starts with a whole key.
func (e *Writer) cutSubBlock() bool {
	if e.opts.Layout == RowIndex && e.n%e.opts.Interval != 0 {
		return false
	}
	size, last := lz4area.DictSize, e.subs[len(e.subs)-1]
	switch {
	case e.opts.Ext != nil:
		size = lz4area.ExtSubBlockSize
	case len(e.subs) > 1:
		size = lz4area.SubBlockSize
	}
	return len(e.buf)-int(last.off) >= size
}

// putValue appends v and remembers where it is, so FastDiff can compare
// the next value against the block itself instead of a copy (HBASE-30390).
// With dedupe, the cell functions call putRef for a back-reference and
// noteValue after putValue: one function doing all is too big to inline,
// and its call made FastDiff encoding without dedupe 13-18% slower than
// without the call (best of 8 alternating runs of BenchmarkBlock
// op=encode); with dedupe the call per cell is 3% of the instructions of
// encoding l_shipdate cells.
func (e *Writer) putValue(v []byte) {
	e.prevVal, e.prevVLen = len(e.buf), len(v)
	e.buf = append(e.buf, v...)
}

// noteValue tells the dedupe table, if any, where the value just written
// by putValue is, or counts it as skipped while the cut-off has the table
// off (see dedupWindow: lookupValue did not look it up).
func (e *Writer) noteValue() {
	if t := e.dedup; t != nil {
		if t.skip > 0 {
			t.skip--
			return
		}
		t.insert(e.prevVal, e.prevVLen)
	}
}

// putRef writes a back-reference to ref, an earlier copy of v, instead of
// the bytes of v.
func (e *Writer) putRef(v []byte, ref int) {
	e.prevVal, e.prevVLen = ref, len(v)
	e.buf = binary.AppendUvarint(e.buf, uint64(len(e.buf)-ref))
}

// lookupValue returns the offset of an earlier copy of c's value worth a
// back-reference, or -1. While the dedupe table's cut-off has it off, it
// returns -1 without a call (noteValue counts the value).
func (e *Writer) lookupValue(c cell.Cell) int {
	if e.dedup == nil || e.dedup.skip > 0 {
		return -1
	}
	return e.lookupDedup(c.Value, len(c.Key))
}

// lookupDedup is lookupValue's call: kept out of line (with fewer
// arguments than lookup) so that lookupValue inlines.
//
//go:noinline
func (e *Writer) lookupDedup(v []byte, klen int) int {
	return e.dedup.lookup(e.buf, v, e.subStart, klen)
}

// appendVLen appends the value length field: with DedupeValues doubled, plus
// one for a back-reference.
func (e *Writer) appendVLen(n, ref int) {
	v := uint64(n)
	if e.dedup != nil {
		v <<= 1
		if ref >= 0 {
			v |= 1
		}
	}
	e.buf = binary.AppendUvarint(e.buf, v)
}

// putValueOrRef writes value, or when ref >= 0 a reference to the earlier
// cell that holds the same value (dedupe).
func (e *Writer) putValueOrRef(value []byte, ref int) {
	if ref < 0 {
		e.putValue(value)
		e.noteValue()
	} else {
		e.putRef(value, ref)
	}
}

func (e *Writer) addNone(c cell.Cell) {
	ref := e.lookupValue(c)
	e.buf = binary.AppendUvarint(e.buf, uint64(len(c.Key)))
	e.appendVLen(len(c.Value), ref)
	e.buf = append(e.buf, c.Key...)
	e.putValueOrRef(c.Value, ref)
	e.buf = append(e.buf, byte(c.Kind))
}

// addPrefix writes a Prefix cell; RowIndex writes the same cells.
func (e *Writer) addPrefix(c cell.Cell, shared int) {
	ref := e.lookupValue(c)
	e.buf = binary.AppendUvarint(e.buf, uint64(shared))
	e.buf = binary.AppendUvarint(e.buf, uint64(len(c.Key)-shared))
	e.appendVLen(len(c.Value), ref)
	e.buf = append(e.buf, c.Key[shared:]...)
	e.putValueOrRef(c.Value, ref)
	e.buf = append(e.buf, byte(c.Kind))
}

func (e *Writer) addDiff(c cell.Cell, shared int) {
	var flags byte
	ref := e.lookupValue(c)
	sameKeyLen := len(c.Key) == len(e.prevKey)
	sameValueLen := len(c.Value) == e.prevVLen && ref < 0
	sameKind := c.Kind == e.prevKind
	if sameKeyLen {
		flags |= diffSameKeyLen
	}
	if sameValueLen {
		flags |= diffSameValueLen
	}
	if sameKind {
		flags |= diffSameKind
	}
	e.buf = append(e.buf, flags)
	if !sameKeyLen {
		e.buf = binary.AppendUvarint(e.buf, uint64(len(c.Key)))
	}
	if !sameValueLen {
		e.appendVLen(len(c.Value), ref)
	}
	e.buf = binary.AppendUvarint(e.buf, uint64(shared))
	e.buf = append(e.buf, c.Key[shared:]...)
	e.putValueOrRef(c.Value, ref)
	if !sameKind {
		e.buf = append(e.buf, byte(c.Kind))
	}
}

func (e *Writer) addFastDiff(c cell.Cell, shared int) {
	suffix := len(c.Key) - shared
	var flags byte
	if suffix < fdSuffixEscape {
		flags = byte(suffix)
	} else {
		flags = fdSuffixEscape
	}
	sameKeyLen := len(c.Key) == len(e.prevKey)
	if sameKeyLen {
		flags |= fdSameKeyLen
	}
	prev := e.buf[e.prevVal : e.prevVal+e.prevVLen]
	sameValue := bytes.Equal(c.Value, prev)
	ref := -1
	if !sameValue {
		ref = e.lookupValue(c)
	}
	sameValueLen := !sameValue && len(c.Value) == len(prev) && ref < 0
	if sameValue {
		flags |= fdSameValue
	}
	if sameValueLen {
		flags |= fdSameValueLen
	}
	if c.Kind == cell.KindPut {
		flags |= fdPut
	}
	e.buf = append(e.buf, flags)
	if suffix >= fdSuffixEscape {
		e.buf = binary.AppendUvarint(e.buf, uint64(suffix-fdSuffixEscape))
	}
	if !sameKeyLen {
		e.buf = binary.AppendUvarint(e.buf, uint64(shared))
	}
	if !sameValue && !sameValueLen {
		e.appendVLen(len(c.Value), ref)
	}
	e.buf = append(e.buf, c.Key[shared:]...)
	if !sameValue {
		e.putValueOrRef(c.Value, ref)
	}
}

// AppendFinish appends the block holding every cell added so far to dst
// and returns the extended slice; dst grows first by Size, a bound on the
// block, and the block is made in place. The Writer is unchanged: more
// cells may be added and AppendFinish called again, or Reset starts a new
// block.
//
// With Compression or IntValues, AppendFinish builds each form the options
// allow (values inline or as a column; cells compressed or not) and keeps
// the smallest; flags byte 2 says which.
func (e *Writer) AppendFinish(dst []byte) []byte {
	dst = slices.Grow(dst, e.Size())
	n := len(dst)
	room := cap(dst) - n
	b := e.finish(dst[n:n])
	if cap(b) != room {
		// Size fell short and append moved the block.
		return append(dst, b...)
	}
	return dst[:n+len(b)]
}

// finish appends the block to b, which is empty.
func (e *Writer) finish(b []byte) []byte {
	b = append(b, frame.Version1, e.opts.Layout, 0)
	b = binary.AppendUvarint(b, uint64(e.n))
	if e.opts.Layout == RowIndex {
		b = binary.AppendUvarint(b, uint64(e.opts.Interval))
	}
	h := len(b)
	var flags byte
	b, flags = e.appendStream(b)
	if e.dedup != nil {
		flags |= frame.FlagValueDedup
	}
	if iv := e.ints; iv != nil && iv.ok && e.n > 0 {
		b, flags = iv.appendColumns(b, h, flags)
	}
	b[2] = flags
	if flags&frame.FlagExtDict != 0 {
		b[0] = frame.Version3
	}
	return frame.AppendTrailer(b)
}

// appendStream appends the cells (compressed when that is smaller) and the
// restart offsets, and returns the compression flag used.
func (e *Writer) appendStream(b []byte) ([]byte, byte) {
	var flags byte
	raw := true
	if e.opts.Compress != 0 && e.n > 0 {
		if e.opts.Compress == frame.FlagLZ4 {
			e.out = e.appendLZ4(e.out[:0])
			flags = frame.FlagLZ4
		} else {
			e.out = e.appendLZ4Dict(e.out[:0])
			flags = frame.FlagLZ4Dict
			if e.opts.Ext != nil {
				flags |= frame.FlagExtDict
			}
		}
		// LZ4Dict sub-blocks after the first start from an empty
		// previous cell: those cells are no plain stream, so they stay
		// LZ4Dict even when that is larger (within Size's bound).
		raw = len(e.out) >= len(e.buf) && len(e.subs) == 1
	}
	if raw {
		b, flags = append(b, e.buf...), 0
	} else {
		b = append(b, e.out...)
	}
	for _, r := range e.restarts {
		b = binary.LittleEndian.AppendUint32(b, r)
	}
	return b, flags
}
