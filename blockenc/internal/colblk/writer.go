package colblk

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"math"
	"strconv"

	"github.com/kvenc/kvenc/blockenc/internal/cell"
	"github.com/kvenc/kvenc/blockenc/internal/frame"
	"github.com/kvenc/kvenc/blockenc/internal/intcol"
	"github.com/kvenc/kvenc/blockenc/internal/lz4area"
	"github.com/kvenc/kvenc/blockenc/internal/prefixkeys"
	"github.com/kvenc/kvenc/blockenc/shapeshift"
	"github.com/kvenc/kvenc/vlong"
)

// Section modes of a Columnar block: part of the format, never reuse.
const (
	colKeysPrefix = 0 // keys: prefix-compressed cells with restarts
	colKeysFixed  = 1 // keys: one length, the bytes that vary as an integer column
	colKeysPacked = 2 // keys: one length, the varying bits as an integer column (version 2)

	colSeqsInline = 0 // seqs: a vlong after each key cell
	colSeqsColumn = 1 // seqs: a shapeshift column
	colSeqsDelta  = 2 // seqs: a shapeshift column of zigzag deltas (version 2)

	colKindsPut    = 0 // kinds: every cell is a Put
	colKindsBitmap = 1 // kinds: a bitmap, bit set for Put

	colValsInline = 0 // values: ends column and one data area
	colValsInt    = 1 // values: one width, a shapeshift column of integers
	colValsDict   = 2 // values: distinct values (ends + area), index column
	colValsPacked = 3 // values: one length, the varying bits as an integer column (version 2)
	colValsFloat  = 4 // values: 8 or 4 bytes, a shapeshift float column (version 5)
	colValsText   = 5 // values: decimal text, a shapeshift float64 column (version 5)

	// colIntDelta in the width byte of integer values: the column holds
	// zigzag deltas (version 2).
	colIntDelta = 0x80
	// colFloatLE in the width byte of float values: the values are
	// little-endian (else big-endian).
	colFloatLE = 0x80
)

// floatOpts encode the float columns of float and text values.
var floatOpts = shapeshift.Options{Target: shapeshift.Smaller}

// colPolicy is how a Columnar block's integer columns are encoded: the
// Smaller target, whose sizes Size can bound (see Writer.size), in
// chunks of 1024 values or of 256, the smaller kept. Long chunks cost less
// per value (a chunk's header and end are 5-15 bytes): BenchmarkColumnar's
// low-cardinality blocks are 14-17% smaller and scan about 8% faster than
// with 256 alone. Short chunks follow data whose shape changes within a
// block (time series of several series). The chunk size is in each
// column's header: a reader reads either. Undoing deltas is a pass over
// the column in Init (about 0.5 ns a value, a few percent of a scan): they
// must save an eighth.
var colPolicy = intcol.Policy{
	Opts: []shapeshift.Options{
		{Target: shapeshift.Smaller, LogChunkSize: 10},
		{Target: shapeshift.Smaller, LogChunkSize: shapeshift.MinLogChunkSize},
	},
	MinGain: 8,
}

// maxPackedLen bounds the values the Encoder tracks for the packed form:
// past it every value costs the encoder a per-byte min/max pass and more
// than 64 bits would rarely be enough anyway.
const maxPackedLen = 32

// maxDict bounds the distinct values a Writer tracks; beyond it the
// dictionary form is given up for the block.
const maxDict = 1 << 16

// Writer accumulates the columns of a Columnar block.
type Writer struct {
	interval int
	comp     byte     // the compression to try: 0, frame.FlagLZ4 or frame.FlagLZ4Dict
	keys     []byte   // key cells without seqs
	keysSeq  []byte   // key cells with their seq vlong
	rst      []uint32 // restart offsets in keys
	rstSeq   []uint32 // restart offsets in keysSeq
	prevKey  []byte
	fixed    []byte // every key, while all have one length
	fixedOK  bool
	klo, khi []byte // per key byte: the smallest and largest seen
	kpack    intcol.Layout
	seqs     []int64
	kinds    []byte // bitmap, bit set for Put
	puts     int
	data     []byte           // values back to back
	ends     []int64          // end of each value in data
	dict     map[uint64]int64 // hash of a distinct value -> its index (the first of that hash)
	seed     maphash.Seed
	dictOK   bool
	dictData []byte
	dictEnds []int64
	dictIdx  []int64
	vfixed   bool // every value so far has length vlen (1..maxPackedLen)
	vlen     int
	vlo, vhi [maxPackedLen]byte // per value byte: the smallest and largest seen
	pack     intcol.Layout
	v2       bool // Finish chose a form of format version 2
	v5       bool // Finish chose float or text values (format version 5)

	// Finish scratch.
	w                intcol.Writer // the integer columns
	area, cand, best []byte
	areaData         int    // bytes of sub-block data at the end of area (external dictionary)
	seqSec           []byte // the seq column section
	subs             []byte // LZ4Dict sub-blocks
	out              []byte // the block being made; Finish returns a copy
	ints             []int64
	lz               lz4area.Writer
	cuts             []int // LZ4Dict: where the sub-blocks start
	floats           []float64
	floats32         []float32
	fcol             []byte
}

// NewWriter returns a Writer for blocks with restarts every interval cells
// whose value area is compressed as compress says (0, frame.FlagLZ4 or
// frame.FlagLZ4Dict) at the lz4dict level; with frame.FlagLZ4Dict, ext (if
// not nil) is the external dictionary of every sub-block.
func NewWriter(interval int, compress byte, level int, ext *lz4area.Dict) *Writer {
	return &Writer{interval: interval, comp: compress, lz: lz4area.Writer{Level: level, Ext: ext}, dict: map[uint64]int64{}, seed: maphash.MakeSeed(),
		w: intcol.Writer{Policy: colPolicy}}
}

// Reset empties the Writer for a new block, keeping its buffers.
func (c *Writer) Reset() {
	c.keys, c.keysSeq = c.keys[:0], c.keysSeq[:0]
	c.rst, c.rstSeq = c.rst[:0], c.rstSeq[:0]
	c.prevKey = c.prevKey[:0]
	c.fixed, c.fixedOK = c.fixed[:0], true
	c.seqs, c.kinds, c.puts = c.seqs[:0], c.kinds[:0], 0
	c.data, c.ends = c.data[:0], c.ends[:0]
	clear(c.dict)
	c.dictOK = true
	c.vfixed = true
	c.dictData, c.dictEnds, c.dictIdx = c.dictData[:0], c.dictEnds[:0], c.dictIdx[:0]
}

// Add appends cell n (0, 1, ...), which the caller checked: in order
// and within the limits.
func (c *Writer) Add(x cell.Cell, n int) {
	shared := 0
	if n%c.interval == 0 {
		c.rst = append(c.rst, uint32(len(c.keys)))
		c.rstSeq = append(c.rstSeq, uint32(len(c.keysSeq)))
	} else {
		shared = prefixkeys.SharedPrefixLen(c.prevKey, x.Key)
	}
	for _, b := range []*[]byte{&c.keys, &c.keysSeq} {
		*b = binary.AppendUvarint(*b, uint64(shared))
		*b = binary.AppendUvarint(*b, uint64(len(x.Key)-shared))
		*b = append(*b, x.Key[shared:]...)
	}
	c.keysSeq = vlong.Append(c.keysSeq, int64(x.Seq))
	c.prevKey = append(c.prevKey[:0], x.Key...)
	if n == 0 {
		c.klo = append(c.klo[:0], x.Key...)
		c.khi = append(c.khi[:0], x.Key...)
	} else if c.fixedOK && len(x.Key) != len(c.klo) {
		c.fixedOK = false
	}
	if c.fixedOK && n > 0 {
		foldRanges(c.klo, c.khi, x.Key)
	}
	if c.fixedOK {
		c.fixed = append(c.fixed, x.Key...)
	}
	c.seqs = append(c.seqs, int64(x.Seq))
	if n%8 == 0 {
		c.kinds = append(c.kinds, 0)
	}
	if x.Kind == cell.KindPut {
		c.kinds[n/8] |= 1 << (n % 8)
		c.puts++
	}
	c.data = append(c.data, x.Value...)
	c.ends = append(c.ends, int64(len(c.data)))
	if c.vfixed {
		c.addFixed(x.Value, n)
	}
	if c.dictOK {
		c.addDict(x.Value)
	}
}

// addDict adds v to the distinct values, or finds it there, and records
// its index for the cell. The map holds hashes, so that a value is not
// copied into a key: a value whose hash an earlier, different value has
// is kept as another distinct value (at worst one missed duplicate).
func (c *Writer) addDict(v []byte) {
	h := maphash.Bytes(c.seed, v)
	j, ok := c.dict[h]
	if ok {
		start := int64(0)
		if j > 0 {
			start = c.dictEnds[j-1]
		}
		if bytes.Equal(c.dictData[start:c.dictEnds[j]], v) {
			c.dictIdx = append(c.dictIdx, j)
			return
		}
	}
	if len(c.dictEnds) >= maxDict {
		c.dictOK = false
		return
	}
	j = int64(len(c.dictEnds))
	if !ok {
		c.dict[h] = j
	}
	c.dictData = append(c.dictData, v...)
	c.dictEnds = append(c.dictEnds, int64(len(c.dictData)))
	c.dictIdx = append(c.dictIdx, j)
}

// addFixed folds value v of cell n into the per-byte ranges of the
// packed form, or gives the form up.
func (c *Writer) addFixed(v []byte, n int) {
	switch {
	case n == 0 && len(v) >= 1 && len(v) <= maxPackedLen:
		c.vlen = len(v)
		copy(c.vlo[:], v)
		copy(c.vhi[:], v)
	case n == 0 || len(v) != c.vlen:
		c.vfixed = false
	default:
		foldRanges(c.vlo[:], c.vhi[:], v)
	}
}

// foldRanges widens the per-position byte ranges [lo[j], hi[j]] to take
// in v (len(v) <= len(lo), len(hi)).
func foldRanges(lo, hi, v []byte) {
	lo, hi = lo[:len(v)], hi[:len(v)]
	for j, b := range v {
		lo[j] = min(lo[j], b)
		hi[j] = max(hi[j], b)
	}
}

// Size bounds the block Finish writes without compression; n is the cell
// count. It is exact but for the value ends column (bounded) and the
// choices Finish makes only when they are smaller.
func (c *Writer) Size(n int) int {
	sz := 3 + frame.UvarintLen(uint64(n)) + frame.UvarintLen(uint64(c.interval))
	sz += 1 + frame.UvarintLen(uint64(len(c.keysSeq))) + len(c.keysSeq) + prefixkeys.RestartLen*len(c.rstSeq)
	sz++ // seqs mode
	sz++ // kinds mode
	if c.puts != n {
		sz += len(c.kinds)
	}
	cb := intcol.Bound(n, uint64(len(c.data)))
	sz += 1 + frame.UvarintLen(uint64(cb)) + cb + frame.UvarintLen(uint64(len(c.data))) + len(c.data)
	return sz + frame.TrailerLen
}

// appendArea appends a value data area, compressed when the options ask
// for it and that is smaller, and returns the flags that say how: 0,
// frame.FlagLZ4 (one LZ4 block) or frame.FlagLZ4Dict (sub-blocks with the first as
// their dictionary; version 2). LZ4Dict falls back to one LZ4 block when
// the area is no longer than a dictionary. With an external dictionary
// the area is LZ4Dict sub-blocks against it, flags frame.FlagLZ4Dict |
// frame.FlagExtDict (version 4, with checked sub-blocks), or stored.
func (c *Writer) appendArea(dst, area []byte) ([]byte, byte) {
	c.areaData = 0
	if ext := c.lz.Ext; ext != nil && c.comp == frame.FlagLZ4Dict && len(area) > 0 {
		if a := c.appendExtArea(c.area[:0], area, ext.ID); len(a) < len(area)+2*frame.UvarintLen(uint64(len(area))) {
			c.area, c.areaData = a, c.lz.DataLen()
			return append(dst, a...), frame.FlagLZ4Dict | frame.FlagExtDict
		}
	} else if c.comp != 0 && len(area) > 0 {
		if c.comp == frame.FlagLZ4Dict && len(area) > lz4area.DictSize {
			if a := c.appendDictArea(c.area[:0], area); len(a) < len(area)+2*frame.UvarintLen(uint64(len(area))) {
				c.area = a
				return append(dst, a...), frame.FlagLZ4Dict
			}
		}
		c.area = c.lz.Compress(c.area[:0], area)
		if len(c.area) < len(area) {
			dst = binary.AppendUvarint(dst, uint64(len(area)))
			dst = binary.AppendUvarint(dst, uint64(len(c.area)))
			return append(dst, c.area...), frame.FlagLZ4
		}
	}
	dst = binary.AppendUvarint(dst, uint64(len(area)))
	dst = binary.AppendUvarint(dst, uint64(len(area)))
	return append(dst, area...), 0
}

// appendDictArea appends area as an LZ4Dict value area: rawlen uv | nsub
// uv | (rawlen uv | complen uv) * nsub | data. Sub-block 0 is the first
// lz4area.DictSize bytes, compressed alone; every later one the next
// lz4area.SubBlockSize bytes (the last fewer), compressed with sub-block 0 as
// its preset dictionary; one that does not shrink is stored (complen =
// rawlen). Cuts ignore value boundaries: a value may span sub-blocks.
func (c *Writer) appendDictArea(dst, area []byte) []byte {
	nsub := 1 + (len(area)-lz4area.DictSize+lz4area.SubBlockSize-1)/lz4area.SubBlockSize
	dst = binary.AppendUvarint(dst, uint64(len(area)))
	dst = binary.AppendUvarint(dst, uint64(nsub))
	c.cuts = append(c.cuts[:0], 0)
	for lo := lz4area.DictSize; lo < len(area); lo += lz4area.SubBlockSize {
		c.cuts = append(c.cuts, lo)
	}
	return c.lz.AppendSubs(dst, area, c.cuts, nil, false)
}

// appendExtArea appends area as an LZ4Dict value area against the
// external dictionary id: rawlen uv | id u32 | nsub uv | (rawlen uv |
// complen uv | crc u32) * nsub | data, sub-blocks of
// lz4area.ExtSubBlockSize bytes (the last fewer), each compressed against
// the dictionary; one that does not shrink is stored (complen = rawlen).
func (c *Writer) appendExtArea(dst, area []byte, id uint32) []byte {
	size := lz4area.ExtSubBlockSize
	nsub := (len(area) + size - 1) / size
	dst = binary.AppendUvarint(dst, uint64(len(area)))
	dst = binary.LittleEndian.AppendUint32(dst, id)
	dst = binary.AppendUvarint(dst, uint64(nsub))
	c.cuts = c.cuts[:0]
	for lo := 0; lo < len(area); lo += size {
		c.cuts = append(c.cuts, lo)
	}
	return c.lz.AppendSubs(dst, area, c.cuts, nil, true)
}

// appendValues appends the smallest values section and returns the flags
// of its area (see appendArea).
func (c *Writer) appendValues(dst []byte) ([]byte, byte) {
	n := len(c.ends)
	c.best = append(c.best[:0], colValsInline)
	c.best = c.w.Append(c.best, c.ends)
	var lz byte
	c.best, lz = c.appendArea(c.best, c.data)
	data := c.areaData
	bestV2 := false                               // the best form is one of version 2
	if w := c.vlen; c.vfixed && w <= 8 && n > 0 { // one width: integers
		c.ints = c.ints[:0]
		var b [8]byte
		for _, e := range c.ends {
			v := c.data[e-int64(w) : e]
			copy(b[8-w:], v)
			c.ints = append(c.ints, int64(binary.BigEndian.Uint64(b[:])))
		}
		c.cand = append(c.cand[:0], colValsInt, byte(w))
		var delta bool
		if c.cand, delta = c.w.AppendDelta(c.cand, c.ints); delta {
			c.cand[1] |= colIntDelta
		}
		if len(c.cand) < len(c.best) {
			c.best, c.cand, lz, bestV2 = c.cand, c.best, 0, delta
		}
	}
	if c.dictOK && n > 0 && len(c.dictEnds) < n {
		c.cand = append(c.cand[:0], colValsDict)
		c.cand = binary.AppendUvarint(c.cand, uint64(len(c.dictEnds)))
		c.cand = c.w.Append(c.cand, c.dictEnds)
		c.cand = c.w.Append(c.cand, c.dictIdx)
		var dlz byte
		c.cand, dlz = c.appendArea(c.cand, c.dictData)
		if len(c.cand) < len(c.best) {
			c.best, c.cand, lz, bestV2, data = c.cand, c.best, dlz, false, c.areaData
		}
	}
	if c.vfixed && n > 0 && c.pack.Plan(c.vlo[:c.vlen], c.vhi[:c.vlen]) {
		c.ints = c.ints[:0]
		for _, e := range c.ends {
			c.ints = append(c.ints, int64(c.pack.Pack(c.data[e-int64(c.vlen):e])))
		}
		c.cand = append(c.cand[:0], colValsPacked)
		c.cand = binary.AppendUvarint(c.cand, uint64(c.vlen))
		c.cand = append(c.cand, c.data[:c.vlen]...)
		c.cand = c.pack.AppendFields(c.cand)
		c.cand = c.w.Append(c.cand, c.ints)
		if len(c.cand) < len(c.best) {
			c.best, c.cand, lz, bestV2 = c.cand, c.best, 0, true
		}
	}
	if c.vfixed && n > 0 && (c.vlen == 8 || c.vlen == 4) {
		for _, le := range [2]bool{false, true} {
			if c.appendFloats(le) && len(c.cand) < len(c.best) {
				c.best, c.cand, lz, bestV2, c.v5 = c.cand, c.best, 0, false, true
			}
		}
	}
	if n > 0 && c.appendText() && len(c.cand) < len(c.best) {
		c.best, c.cand, lz, bestV2, c.v5 = c.cand, c.best, 0, false, true
	}
	c.v2 = c.v2 || bestV2
	c.areaData = data
	return append(dst, c.best...), lz
}

// floatSample is how many values floatLike looks at.
const floatSample = 32

// floatLike reports whether most of a sample of the vlen-byte values (8
// or 4), read in the byte order le says, are floats of a plausible
// magnitude (1e-18 to 1e18, or zero) rather than integers or bytes seen
// as floats, which have tiny or huge exponents: the float form is tried
// only then.
func (c *Writer) floatLike(le bool) bool {
	n := len(c.ends)
	s := min(n, floatSample)
	ok := 0
	for k := range s {
		b := c.valueBits(c.ends[k*n/s], le)
		exp, bias := int(b>>52&0x7ff), 1023
		if c.vlen == 4 {
			exp, bias = int(b>>23&0xff), 127
		}
		if b<<(65-8*c.vlen) == 0 || (exp >= bias-60 && exp <= bias+60) {
			ok++
		}
	}
	return 4*ok >= 3*s
}

// valueBits returns the vlen-byte value (8 or 4) that ends at e as an
// unsigned integer in the byte order le says.
func (c *Writer) valueBits(e int64, le bool) uint64 {
	v := c.data[e-int64(c.vlen) : e]
	switch {
	case c.vlen == 8 && le:
		return binary.LittleEndian.Uint64(v)
	case c.vlen == 8:
		return binary.BigEndian.Uint64(v)
	case le:
		return uint64(binary.LittleEndian.Uint32(v))
	}
	return uint64(binary.BigEndian.Uint32(v))
}

// appendFloats sets c.cand to a float values section of the values read
// in the byte order le says, and reports whether it did (not when they do
// not look like floats).
func (c *Writer) appendFloats(le bool) bool {
	if !c.floatLike(le) {
		return false
	}
	w := byte(c.vlen)
	if le {
		w |= colFloatLE
	}
	if c.vlen == 8 {
		c.floats = c.floats[:0]
		for _, e := range c.ends {
			c.floats = append(c.floats, math.Float64frombits(c.valueBits(e, le)))
		}
		c.fcol = shapeshift.EncodeFloat64(c.fcol[:0], c.floats, floatOpts)
	} else {
		c.floats32 = c.floats32[:0]
		for _, e := range c.ends {
			c.floats32 = append(c.floats32, math.Float32frombits(uint32(c.valueBits(e, le))))
		}
		c.fcol = shapeshift.EncodeFloat32(c.fcol[:0], c.floats32, floatOpts)
	}
	c.cand = append(c.cand[:0], colValsFloat, w)
	c.cand = binary.AppendUvarint(c.cand, uint64(len(c.fcol)))
	c.cand = append(c.cand, c.fcol...)
	return true
}

// maxTextLen bounds the length of a decimal text value; longer values
// (their doubles need at most 17 significant digits) are rare.
const maxTextLen = 24

// Decimal text styles: how a text value is written from its float64 v.
// Part of the format, never reuse.
const (
	// textGo is strconv.FormatFloat(v, 'f', -1, 64): "49", "64.2".
	textGo = 0
	// textPoint is textGo with ".0" after an integral value, as Python's
	// repr and the CSV writers built on it print floats: "49.0", "64.2".
	textPoint = 1
)

// appendText sets c.cand to a text values section and reports whether
// every value is decimal text of one style (parseDecimalText).
func (c *Writer) appendText() bool {
	c.floats = c.floats[:0]
	start := int64(0)
	goOK, pointOK := true, true
	for _, e := range c.ends {
		v, style, ok := parseDecimalText(c.data[start:e])
		if !ok {
			return false
		}
		// A value with a fraction is both styles.
		goOK = goOK && style != textPoint
		pointOK = pointOK && style != textGo
		if !goOK && !pointOK {
			return false
		}
		c.floats = append(c.floats, v)
		start = e
	}
	style := byte(textGo)
	if !goOK {
		style = textPoint
	}
	c.fcol = shapeshift.EncodeFloat64(c.fcol[:0], c.floats, floatOpts)
	c.cand = append(c.cand[:0], colValsText, style)
	c.cand = binary.AppendUvarint(c.cand, uint64(len(c.fcol)))
	c.cand = append(c.cand, c.fcol...)
	return true
}

// appendDecimalText appends the text of v in the style to dst.
func appendDecimalText(dst []byte, v float64, style byte) []byte {
	at := len(dst)
	dst = strconv.AppendFloat(dst, v, 'f', -1, 64)
	if style == textPoint && bytes.IndexByte(dst[at:], '.') < 0 {
		dst = append(dst, '.', '0')
	}
	return dst
}

// parseDecimalText returns the float64 that b names when b is decimal
// text: what appendDecimalText writes for a finite v in one of the styles,
// at most maxTextLen bytes. style is textGo or textPoint for an integral
// value (which is text in that style only: "49" or "49.0"), and
// textGo|0x80 for a value with a fraction, text in both styles.
func parseDecimalText(b []byte) (v float64, style byte, ok bool) {
	if len(b) == 0 || len(b) > maxTextLen {
		return 0, 0, false
	}
	for _, x := range b {
		if (x < '0' || x > '9') && x != '.' && x != '-' {
			return 0, 0, false
		}
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return 0, 0, false
	}
	var buf [maxTextLen + 8]byte
	t := strconv.AppendFloat(buf[:0], v, 'f', -1, 64)
	switch {
	case bytes.Equal(t, b):
		if bytes.IndexByte(t, '.') >= 0 {
			return v, textGo | 0x80, true
		}
		return v, textGo, true
	case len(b) == len(t)+2 && bytes.HasPrefix(b, t) && b[len(t)] == '.' && b[len(t)+1] == '0' && bytes.IndexByte(t, '.') < 0:
		return v, textPoint, true
	}
	return 0, 0, false
}

// appendFixedKeys appends the smaller of a colKeysFixed and a
// colKeysPacked key section, or returns dst unchanged if the keys allow
// neither (lengths differ; more than 8 bytes vary and their ranges need
// more than 64 bits).
func (c *Writer) appendFixedKeys(dst []byte) []byte {
	n := len(c.seqs)
	if !c.fixedOK || n == 0 {
		return dst
	}
	L := len(c.klo)
	h := len(dst)
	// Fixed: the varying bytes whole.
	p := &c.kpack
	if p.PlanBytes(c.klo, c.khi) {
		dst = append(dst, colKeysFixed)
		dst = binary.AppendUvarint(dst, uint64(L))
		dst = append(dst, c.fixed[:L]...)
		dst = p.AppendPositions(dst)
		dst = c.appendKeyInts(dst)
	}
	if !p.Plan(c.klo, c.khi) {
		return dst
	}
	c.cand = append(c.cand[:0], colKeysPacked)
	c.cand = binary.AppendUvarint(c.cand, uint64(L))
	c.cand = append(c.cand, c.fixed[:L]...)
	c.cand = p.AppendFields(c.cand)
	c.cand = c.appendKeyInts(c.cand)
	if len(dst) == h || len(c.cand) < len(dst)-h {
		dst = append(dst[:h], c.cand...)
		c.v2 = true
	}
	return dst
}

// appendKeyInts appends the column of every key packed by c.kpack.
func (c *Writer) appendKeyInts(dst []byte) []byte {
	L := len(c.klo)
	c.ints = c.ints[:0]
	for i := range len(c.seqs) {
		c.ints = append(c.ints, int64(c.kpack.Pack(c.fixed[i*L:i*L+L])))
	}
	return c.w.Append(dst, c.ints)
}

// finish appends the columns to a header and returns the flags.
func (c *Writer) finish(b []byte) ([]byte, byte) {
	// Keys, with the seqs inline or as a column, or fixed-width keys with
	// a seq column: whichever is smallest.
	keys, rst := c.keysSeq, c.rstSeq
	c.v2, c.v5 = false, false
	// The seq column section: mode, clen, column (plain or deltas).
	c.seqSec = append(c.seqSec[:0], colSeqsColumn)
	var seqDelta bool
	if c.seqSec, seqDelta = c.w.AppendDelta(c.seqSec, c.seqs); seqDelta {
		c.seqSec[0] = colSeqsDelta
	}
	seqCol := len(c.seqSec)
	mode := byte(colSeqsInline)
	if len(c.keys)+seqCol < len(c.keysSeq) {
		keys, rst, mode = c.keys, c.rst, c.seqSec[0]
	}
	prefix := 1 + frame.UvarintLen(uint64(len(keys))) + len(keys) + prefixkeys.RestartLen*len(rst) + 1
	if mode != colSeqsInline {
		prefix += seqCol - 1
	}
	h := len(b)
	if b = c.appendFixedKeys(b); len(b) > h {
		if len(b)-h+seqCol < prefix {
			b = append(b, c.seqSec...)
			c.v2 = c.v2 || seqDelta
			return c.finishValues(b)
		}
		b, c.v2 = b[:h], false
	}
	b = append(b, colKeysPrefix)
	b = binary.AppendUvarint(b, uint64(len(keys)))
	b = append(b, keys...)
	for _, r := range rst {
		b = binary.LittleEndian.AppendUint32(b, r)
	}
	if mode == colSeqsInline {
		b = append(b, mode)
	} else {
		b = append(b, c.seqSec...)
		c.v2 = c.v2 || seqDelta
	}
	return c.finishValues(b)
}

// finishValues appends the kinds and values sections.
func (c *Writer) finishValues(b []byte) ([]byte, byte) {
	if c.puts == len(c.seqs) {
		b = append(b, colKindsPut)
	} else {
		b = append(b, colKindsBitmap)
		b = append(b, c.kinds...)
	}
	b, flags := c.appendValues(b)
	if flags&frame.FlagLZ4Dict != 0 {
		c.v2 = true
	}
	return b, flags
}

// AppendFinish appends the block of the n cells added to dst and returns
// the extended slice: the block is made in a buffer the Writer keeps,
// sized for the values uncompressed, so that dst grows only by the bytes
// of the block (a compressed block is a third of that bound or less).
func (c *Writer) AppendFinish(dst []byte, n int) []byte {
	b := c.out[:0]
	if sz := c.Size(n); cap(b) < sz {
		b = make([]byte, 0, sz)
	}
	b = append(b, frame.Version1, frame.Columnar, 0)
	b = binary.AppendUvarint(b, uint64(n))
	b = binary.AppendUvarint(b, uint64(c.interval))
	b, flags := c.finish(b)
	b[2] = flags
	switch {
	case flags&frame.FlagExtDict != 0:
		b[0] = frame.Version4
		b = frame.AppendHeadTrailer(b, len(b)-c.areaData)
	default:
		switch {
		case c.v5:
			b[0] = frame.Version5
		case c.v2:
			b[0] = frame.Version2
		}
		b = frame.AppendTrailer(b)
	}
	c.out = b
	return append(dst, b...)
}
