package colblk

import (
	"bytes"
	"encoding/binary"
	"math"
	"sort"

	"github.com/kvenc/kvenc/blockenc/internal/cell"
	"github.com/kvenc/kvenc/blockenc/internal/frame"
	"github.com/kvenc/kvenc/blockenc/internal/intcol"
	"github.com/kvenc/kvenc/blockenc/internal/lz4area"
	"github.com/kvenc/kvenc/blockenc/internal/prefixkeys"
	"github.com/kvenc/kvenc/blockenc/shapeshift"
)

// Reader reads a Columnar block: First, SeekGE, Next, Last, SeekLT, Prev
// (prev.go) and the current cell in its prefixkeys.Reader. Init decodes the columns into buffers kept
// across Init; the key stream of prefix keys is read as RowIndex's is.
type Reader struct {
	prefixkeys.Reader
	block []byte  // the block (LZ4Dict sub-blocks are read from it)
	vbuf  [8]byte // integer values: the current value, big-endian

	kmode   byte          // colKeysPrefix or colKeysFixed (also for colKeysPacked)
	kform   byte          // the keys mode in the block
	kpack   intcol.Layout // fixed and packed keys: the varying bytes (fixed: 8-bit fields from 0)
	keyInts []int64       // fixed keys: the varying bytes of each key, big-endian
	kbuf    []byte        // fixed keys: the current key (template with its bytes)
	valCall bool          // Next calls value: kinds bitmap, integer or packed values
	probe   []byte        // fixed keys: a key under comparison in SeekGE
	seqMode byte
	seqs    []int64 // seq column
	kinds   []byte  // bitmap, bit set for Put; nil: all Put
	vmode   byte
	width   int     // integer values: bytes per value
	ends    []int64 // inline: 0 then the end of every value; dict: of every distinct value
	idx     []int64 // dict: the distinct value of every cell
	ints    []int64 // integer and packed values
	pack    intcol.Layout
	vtmpl   []byte    // packed values: the current value (template with its bytes)
	fmode   byte      // float values: the width byte (8 or 4, | colFloatLE)
	floats  []float64 // float (8 bytes) and text values
	floats4 []float32 // float values of 4 bytes
	fdec    shapeshift.FloatDecoder
	text    []byte         // text values: the current value
	style   byte           // text values: textGo or textPoint
	data    []byte         // the value area (in the block, or decompressed in area)
	cellLo  int            // the values of cells [cellLo, cellHi) are in data:
	cellHi  int            // all of them but with an LZ4Dict area (loadCell)
	fast    int            // Next's own path takes the cells below it (nextSlow)
	area    lz4area.Reader // LZ4, LZ4Dict value area: the uncompressed values and the sub-block index
	ext     *lz4area.Dict  // the external dictionary Init was given, or nil
	head    int            // version 4: where the sub-block data starts (the trailer covers the bytes before it)
}

// Init points s at a Columnar block (byte 1 is 5), keeping its buffers,
// and positions it before the first cell; ext (may be nil) is the
// external dictionary for a block compressed against one, which is
// ignored for other blocks. On error (wrapping frame.ErrCorrupt; a
// missing or different dictionary frame.ErrWrongDict) every move returns
// false.
func (s *Reader) Init(block []byte, ext *lz4area.Dict) error {
	s.reset(ext)
	err := s.parse(block)
	if err == nil && s.head > 0 { // version 4: the trailer covers the head
		err = frame.CheckHead(block, s.head)
	}
	if err != nil {
		s.Fail = err
		return err
	}
	s.rewind()
	return nil
}

// reset empties s for a block that may be compressed against ext,
// keeping its buffers.
func (s *Reader) reset(ext *lz4area.Dict) {
	s.area.Reset()
	s.ext = ext
	s.Reader = prefixkeys.Reader{KeyBuf: s.KeyBuf[:0], Lens: 2, ValueAt: true, Back: s.Back.Emptied()}
	s.block, s.fast, s.head = nil, 0, 0
}

// FixChecksums sets the trailer and the sub-block checksums of a version 4
// block to match its bytes, so that tests can build blocks whose contents
// are hostile but whose checksums hold (as a row or version 3 block gets
// by recomputing its trailer). It reports whether the block parsed.
func FixChecksums(block []byte, ext *lz4area.Dict) bool {
	var r Reader
	r.reset(ext)
	if len(block) < frame.TrailerLen || block[0] != frame.Version4 || r.parse(block) != nil {
		return false
	}
	for _, sb := range r.area.Subs {
		binary.LittleEndian.PutUint32(block[sb.CRCAt:], frame.Checksum(block[sb.Comp:sb.Comp+sb.CompLen]))
	}
	binary.LittleEndian.PutUint32(block[len(block)-frame.TrailerLen:], frame.Checksum(block[:r.head]))
	return true
}

// loadSub decompresses sub-block j of the value area if it is not there
// yet; on bad bytes it stops s.
func (s *Reader) loadSub(j int) bool {
	if err := s.area.Load(s.block, j); err != nil {
		s.Fail, s.Valid = err, false
		return false
	}
	return true
}

// LoadAll decompresses the LZ4Dict sub-blocks of the value area that are
// not yet, checking each one's checksum, so that the moves after it
// decompress nothing. It stops at the first sub-block that does not check
// or decode and leaves it, and those after it, to the move that needs
// it, which fails on it as it would without LoadAll.
func (s *Reader) LoadAll() {
	if s.Fail != nil {
		return
	}
	for j := range s.area.Subs {
		if s.area.Load(s.block, j) != nil {
			return
		}
	}
}

// rewind positions s before the first cell.
func (s *Reader) rewind() {
	s.Rewind()
	s.fast = 0 // the window may start after cell 0: nextSlow checks
}

func (s *Reader) parse(block []byte) error {
	const minBlock = 3 + 1 + 1 + frame.TrailerLen
	body, err := frame.Check(block, minBlock)
	if err != nil {
		return err
	}
	flags := body[2]
	switch {
	case body[0] == frame.Version5:
		if flags != 0 {
			return frame.Corrupt(2, "flags %#02x for a version 5 columnar block (want 0)", flags)
		}
	case body[0] >= frame.Version3:
		if flags != frame.FlagLZ4Dict|frame.FlagExtDict {
			return frame.Corrupt(2, "flags %#02x for a version %d columnar block (want %#02x)", flags, body[0], frame.FlagLZ4Dict|frame.FlagExtDict)
		}
	case flags != 0 && flags != frame.FlagLZ4 && (flags != frame.FlagLZ4Dict || body[0] < frame.Version2):
		return frame.Corrupt(2, "unsupported flags %#02x for a version %d columnar block", flags, body[0])
	}
	p := 3
	count, p := frame.ReadLen(body, p)
	// Every cell is in a key column and a seq column (or in kcells of
	// 2 bytes or more), each chunk of 1024 values taking 5 bytes or more
	// (a Zero chunk and its end): at most 1024/10 cells a byte. This
	// bounds what Init decodes; the densest blocks the Encoder writes hold
	// 24-29 cells a byte (TestColumnarDense).
	if p < 0 || count > 102*len(body) {
		return frame.Corrupt(3, "bad cell count")
	}
	iv, q := frame.ReadLen(body, p)
	if q < 0 || iv == 0 || iv > prefixkeys.MaxInterval {
		return frame.Corrupt(p, "bad restart interval")
	}
	s.Count, s.Interval = count, iv
	c := s
	if q >= len(body) {
		return frame.Corrupt(q, "missing keys")
	}
	c.kmode = body[q]
	c.kform = c.kmode
	q++
	if c.kmode == colKeysPacked && body[0] < frame.Version2 {
		return frame.Corrupt(q-1, "packed keys in a version 1 block")
	}
	if c.kmode == colKeysFixed || c.kmode == colKeysPacked {
		c.kmode = colKeysFixed // one reader for both
		return s.parseFixed(block, body, q, body[q-1])
	}
	if c.kmode != colKeysPrefix {
		return frame.Corrupt(q-1, "unknown keys mode %d", c.kmode)
	}
	s.NRestarts = (count + iv - 1) / iv
	s.RIHi, s.Lens = s.NRestarts, 2
	klen, q2 := frame.ReadLen(body, q)
	if q2 < 0 || klen > len(body)-q2 || prefixkeys.RestartLen*s.NRestarts > len(body)-q2-klen {
		return frame.Corrupt(q, "bad key stream length")
	}
	s.HdrLen, s.Tail = q2, block[q2:]
	s.Cells = body[q2 : q2+klen : q2+klen]
	if count > klen/2 || (count == 0 && klen != 0) {
		return frame.Corrupt(q, "%d cells in %d bytes of keys", count, klen)
	}
	p = q2 + klen
	s.Restarts = body[p : p+prefixkeys.RestartLen*s.NRestarts]
	if err := prefixkeys.CheckRestarts(s.Restarts, klen, p); err != nil {
		return err
	}
	p += prefixkeys.RestartLen * s.NRestarts
	return s.parseRest(block, body, p)
}

// parseFixed reads a colKeysFixed or colKeysPacked (mode) key
// section at body[p:] (after its mode byte): klen uv | template | nvar u8
// | pos uv * nvar | column, or klen uv | template | packed fields | column.
func (s *Reader) parseFixed(block, body []byte, p int, mode byte) error {
	c := s
	L, q := frame.ReadLen(body, p)
	if q < 0 || L > cell.MaxKeyLen || L+1 > len(body)-q || s.Count == 0 {
		return frame.Corrupt(p, "bad fixed key length")
	}
	c.kbuf = append(c.kbuf[:0], body[q:q+L]...)
	c.probe = append(c.probe[:0], c.kbuf...)
	q += L
	k := &c.kpack
	var err error
	if mode == colKeysPacked {
		q, err = k.ParseFields(body, q, L)
	} else {
		q, err = k.ParsePositions(body, q, L)
	}
	if err != nil {
		return err
	}
	if c.keyInts, q, err = intcol.Read(c.keyInts[:0], body, q, s.Count, "key"); err != nil {
		return err
	}
	if i := intcol.FirstOver(c.keyInts, k.Mask()); i >= 0 {
		return frame.Corrupt(q, "key %d: %d wider than %d bits", i, c.keyInts[i], k.Bits)
	}
	s.HdrLen = q
	if q >= len(body) || (body[q] != colSeqsColumn && body[q] != colSeqsDelta) {
		return frame.Corrupt(q, "fixed keys without a seq column")
	}
	return s.parseRest(block, body, q)
}

// parseRest reads the seqs, kinds and values sections at body[p:].
func (s *Reader) parseRest(block, body []byte, p int) error {
	c := s
	count, flags := s.Count, body[2]
	// Seqs.
	if p >= len(body) {
		return frame.Corrupt(p, "missing seqs")
	}
	c.seqMode = body[p]
	p++
	switch c.seqMode {
	case colSeqsInline:
	case colSeqsColumn, colSeqsDelta:
		if c.seqMode == colSeqsDelta && body[0] < frame.Version2 {
			return frame.Corrupt(p-1, "seq deltas in a version 1 block")
		}
		var err error
		if c.seqs, p, err = intcol.Read(c.seqs[:0], body, p, count, "seq"); err != nil {
			return err
		}
		if c.seqMode == colSeqsDelta {
			intcol.UndoZigzagDeltas(c.seqs)
		}
		if i := intcol.FirstOver(c.seqs, 1<<63-1); i >= 0 {
			return frame.Corrupt(p, "seq %d negative", i)
		}
	default:
		return frame.Corrupt(p-1, "unknown seqs mode %d", c.seqMode)
	}
	// Kinds.
	if p >= len(body) {
		return frame.Corrupt(p, "missing kinds")
	}
	c.kinds = nil
	switch body[p] {
	case colKindsPut:
		p++
	case colKindsBitmap:
		n := (count + 7) / 8
		if n > len(body)-p-1 {
			return frame.Corrupt(p, "kind bitmap overruns the block")
		}
		c.kinds = body[p+1 : p+1+n]
		if count%8 != 0 && c.kinds[n-1]>>(count%8) != 0 {
			return frame.Corrupt(p+n, "kind bits after the last cell")
		}
		p += 1 + n
	default:
		return frame.Corrupt(p, "unknown kinds mode %d", body[p])
	}
	// Values.
	if p >= len(body) {
		return frame.Corrupt(p, "missing values")
	}
	c.vmode = body[p]
	c.cellLo, c.cellHi = 0, count // parseDictArea changes it
	c.valCall = c.kinds != nil || c.vmode == colValsInt || c.vmode == colValsPacked || c.vmode == colValsFloat || c.vmode == colValsText
	if (body[0] == frame.Version5) != (c.vmode == colValsFloat || c.vmode == colValsText) {
		return frame.Corrupt(p, "values mode %d in a version %d block (float and text values are version 5, and only they)", c.vmode, body[0])
	}
	p++
	var err error
	switch c.vmode {
	case colValsInline:
		if c.ends, p, err = intcol.Read(append(c.ends[:0], 0), body, p, count, "value ends"); err != nil {
			return err
		}
		p, err = s.parseArea(body, p, flags, c.ends)
	case colValsInt:
		if p >= len(body) || body[p]&^colIntDelta == 0 || body[p]&^colIntDelta > 8 {
			return frame.Corrupt(p, "bad value width")
		}
		delta := body[p]&colIntDelta != 0
		if delta && body[0] < frame.Version2 {
			return frame.Corrupt(p, "value deltas in a version 1 block")
		}
		c.width = int(body[p] &^ colIntDelta)
		if c.ints, p, err = intcol.Read(c.ints[:0], body, p+1, count, "values"); err != nil {
			return err
		}
		if delta {
			intcol.UndoZigzagDeltas(c.ints)
		}
		if i := intcol.FirstOver(c.ints, intcol.ByteMask(c.width)); i >= 0 {
			return frame.Corrupt(p, "value %d wider than %d bytes", i, c.width)
		}
		if flags != 0 {
			return frame.Corrupt(2, "LZ4 flag without a value area")
		}
	case colValsDict:
		nd, q := frame.ReadLen(body, p)
		if q < 0 || nd > count {
			return frame.Corrupt(p, "bad dictionary size")
		}
		if c.ends, q, err = intcol.Read(append(c.ends[:0], 0), body, q, nd, "dictionary ends"); err != nil {
			return err
		}
		if c.idx, q, err = intcol.Read(c.idx[:0], body, q, count, "dictionary index"); err != nil {
			return err
		}
		if i := intcol.FirstAtLeast(c.idx, uint64(nd)); i >= 0 {
			return frame.Corrupt(q, "cell %d: dictionary index %d of %d", i, c.idx[i], nd)
		}
		p, err = s.parseArea(body, q, flags, c.ends)
	case colValsPacked:
		if body[0] < frame.Version2 {
			return frame.Corrupt(p-1, "packed values in a version 1 block")
		}
		if flags != 0 {
			return frame.Corrupt(2, "LZ4 flag without a value area")
		}
		p, err = s.parsePacked(body, p)
	case colValsFloat:
		if p >= len(body) || (body[p]&^colFloatLE != 8 && body[p]&^colFloatLE != 4) {
			return frame.Corrupt(p, "bad float value width")
		}
		c.fmode = body[p]
		p, err = s.parseFloats(body, p+1, int(c.fmode&^colFloatLE))
	case colValsText:
		if p >= len(body) || body[p] > textPoint {
			return frame.Corrupt(p, "bad text style")
		}
		c.fmode, c.style = 0, body[p]
		if p, err = s.parseFloats(body, p+1, 8); err != nil {
			return err
		}
		for i, v := range c.floats {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return frame.Corrupt(p, "text value %d is %v", i, v)
			}
		}
		if cap(c.text) < 2*maxTextLen {
			// Value's buffer: the Encoder's values fit, so a move does not
			// allocate (longer ones grow it once).
			c.text = make([]byte, 0, 2*maxTextLen)
		}
	default:
		return frame.Corrupt(p-1, "unknown values mode %d", c.vmode)
	}
	if err != nil {
		return err
	}
	if p != len(body) {
		return frame.Corrupt(p, "%d bytes after the values", len(body)-p)
	}
	if body[0] == frame.Version4 {
		// parseDictArea found where the data starts (the block is 0x22,
		// so its values are in a checked area or refused above); Init
		// checks the trailer over the bytes before it.
		if c.head == 0 {
			return frame.Corrupt(0, "version 4 block without a checked value area")
		}
	}
	s.block, s.Tail = block, block[min(s.HdrLen, len(block)):]
	return nil
}

// parsePacked reads a packed values section at body[p:] (after its
// mode byte) and returns the offset after it.
func (s *Reader) parsePacked(body []byte, p int) (int, error) {
	c := s
	L, q := frame.ReadLen(body, p)
	if q < 0 || L < 1 || L > maxPackedLen || L > len(body)-q {
		return 0, frame.Corrupt(p, "bad packed value length")
	}
	c.vtmpl = append(c.vtmpl[:0], body[q:q+L]...)
	q, err := c.pack.ParseFields(body, q+L, L)
	if err != nil {
		return 0, err
	}
	if c.ints, q, err = intcol.Read(c.ints[:0], body, q, s.Count, "packed values"); err != nil {
		return 0, err
	}
	if i := intcol.FirstOver(c.ints, c.pack.Mask()); i >= 0 {
		return 0, frame.Corrupt(q, "packed value %d wider than %d bits", i, c.pack.Bits)
	}
	return q, nil
}

// parseFloats reads clen uv | a shapeshift float column of count values of
// w bytes at body[p:] and returns the offset after it.
func (s *Reader) parseFloats(body []byte, p, w int) (int, error) {
	c := s
	clen, q := frame.ReadLen(body, p)
	if q < 0 || clen > len(body)-q {
		return 0, frame.Corrupt(p, "bad float column length")
	}
	col := body[q : q+clen]
	var err error
	n := 0
	if w == 8 {
		c.floats, err = c.fdec.DecodeFloat64(c.floats[:0], col)
		n = len(c.floats)
	} else {
		c.floats4, err = c.fdec.DecodeFloat32(c.floats4[:0], col)
		n = len(c.floats4)
	}
	if err != nil {
		return 0, frame.Corrupt(q, "float column: %v", err)
	}
	if n != s.Count {
		return 0, frame.Corrupt(q, "float column of %d values, want %d", n, s.Count)
	}
	return q + clen, nil
}

// parseArea reads a value area (rawlen uv | alen uv | alen bytes, an LZ4
// block when the LZ4 flag is set) whose values end at ends (ends[0] = 0,
// non-decreasing, the last at rawlen).
func (s *Reader) parseArea(body []byte, p int, flags byte, ends []int64) (int, error) {
	c := s
	if flags&frame.FlagLZ4Dict != 0 {
		return s.parseDictArea(body, p, ends, flags&frame.FlagExtDict != 0)
	}
	raw, q := frame.ReadLen(body, p)
	alen, q := frame.ReadLen(body, q)
	if q < 0 || alen > len(body)-q {
		return 0, frame.Corrupt(p, "bad value area length")
	}
	src := body[q : q+alen]
	if flags&frame.FlagLZ4 != 0 {
		dst, err := c.area.Decode(src, raw, q)
		if err != nil {
			return 0, err
		}
		c.data = dst
	} else {
		if raw != alen {
			return 0, frame.Corrupt(p, "stored area of %d bytes says %d", alen, raw)
		}
		c.data = src
	}
	if err := checkEnds(ends, raw, p); err != nil {
		return 0, err
	}
	return q + alen, nil
}

// checkEnds checks the ends of the values of an area of raw bytes at
// offset p.
func checkEnds(ends []int64, raw, p int) error {
	if i := intcol.BadStep(ends, cell.MaxValueLen); i >= 0 {
		return frame.Corrupt(p, "value %d: bad end %d", i-1, ends[i])
	}
	if ends[len(ends)-1] != int64(raw) {
		return frame.Corrupt(p, "values end at %d of a %d-byte area", ends[len(ends)-1], raw)
	}
	return nil
}

// parseDictArea reads an LZ4Dict value area at body[p:] (rawlen uv |
// [id u32, with ext] | nsub uv | (rawlen uv | complen uv) * nsub | data)
// and returns the offset after it. Nothing is decompressed: loadCell does
// that when a value needs a sub-block.
func (s *Reader) parseDictArea(body []byte, p int, ends []int64, ext bool) (int, error) {
	c := s
	raw, q := frame.ReadLen(body, p)
	if ext && q >= 0 {
		var err error
		if q, err = c.area.ReadID(body, q, s.ext); err != nil {
			return 0, err
		}
	}
	nsub, q := frame.ReadLen(body, q)
	if q < 0 || raw == 0 || nsub > raw {
		return 0, frame.Corrupt(p, "LZ4Dict value area: bad length or sub-block count")
	}
	// Version 4: a checked index, and the trailer covers the block up to
	// the data, which ends the block.
	v4 := ext && body[0] == frame.Version4
	q, r, err := c.area.ParseSubs(body, q, len(body), nsub, false, v4, "LZ4Dict value area")
	if err != nil {
		return 0, err
	}
	if r != raw {
		return 0, frame.Corrupt(q, "LZ4Dict value area: sub-blocks of %d bytes (area %d)", r, raw)
	}
	if err := checkEnds(ends, raw, p); err != nil {
		return 0, err
	}
	if v4 {
		if end := c.area.DataEnd(); end != len(body) {
			return 0, frame.Corrupt(end, "%d bytes after the sub-blocks", len(body)-end)
		}
		c.head = q
	}
	c.data = c.area.Grow(raw)
	c.cellLo, c.cellHi = 0, 0
	return c.area.DataEnd(), nil
}

// loadCell decompresses the LZ4Dict sub-blocks that hold the value
// of cell i (and the dictionary, sub-block 0) and sets [cellLo, cellHi)
// to the cells whose values lie in the run of decompressed sub-blocks
// around it, so that the moves after it check one range. Dictionary
// values are referenced in any order: all of them are decompressed.
func (s *Reader) loadCell(i int) bool {
	c := s
	c.fast = 0 // the window moves: nextSlow raises it again, not after an error
	if c.vmode == colValsDict {
		for j := range c.area.Subs {
			if !s.loadSub(j) {
				return false
			}
		}
		c.cellLo, c.cellHi = 0, s.Count
		return true
	}
	lo, hi := c.ends[i], c.ends[i+1]
	if lo == hi { // empty: nothing to load
		c.cellLo, c.cellHi = i, i+1
		return true
	}
	if c.area.NeedsFirst() && !s.loadSub(0) {
		return false
	}
	at := 0 // the sub-block holding byte lo
	for j := range c.area.Subs {
		sb := &c.area.Subs[j]
		start, end := int64(sb.Raw), int64(sb.Raw+sb.RawLen)
		if start <= lo && lo < end {
			at = j
		}
		if start < hi && end > lo && !s.loadSub(j) {
			return false
		}
	}
	a, b := at, at
	for a > 0 && c.area.Subs[a-1].Loaded {
		a--
	}
	for b+1 < len(c.area.Subs) && c.area.Subs[b+1].Loaded {
		b++
	}
	blo, bhi := int64(c.area.Subs[a].Raw), int64(c.area.Subs[b].Raw+c.area.Subs[b].RawLen)
	ends := c.ends
	c.cellLo = sort.Search(i, func(k int) bool { return ends[k] >= blo })
	c.cellHi = i + 1 + sort.Search(s.Count-i-1, func(k int) bool { return ends[i+2+k] > bhi })
	return true
}

// Next is Next for a Columnar block.
func (s *Reader) Next() bool {
	c := s
	i := s.Idx
	if i >= c.fast {
		return s.nextSlow()
	}
	// Fixed keys (always with a seq column), no error, the value in a
	// decompressed part of the area: step and land without the
	// calls, a third of a scan's time per cell before, and one bound to
	// test.
	s.Idx = i + 1
	s.KV.Key = c.kpack.Fill(c.kbuf, uint64(c.keyInts[i]))
	s.KV.Seq = uint64(c.seqs[i])
	s.Valid = true
	if c.valCall {
		s.value(i)
		return true
	}
	s.KV.Kind = cell.KindPut
	s.bytes(i)
	return true
}

// nextSlow is Next past c.fast: at the end, on an error, for prefix
// keys, or to decompress the sub-blocks of the next value; it raises
// c.fast when Next's own path can take the cells that follow.
func (s *Reader) nextSlow() bool {
	if s.Idx >= s.Count || s.Fail != nil {
		s.Valid = false
		return false
	}
	c := s
	if c.kmode != colKeysFixed {
		return s.step() && s.land()
	}
	i := s.Idx
	if uint(i-c.cellLo) >= uint(c.cellHi-c.cellLo) && !s.loadCell(i) {
		s.Valid = false
		return false
	}
	c.fast = min(s.Count, c.cellHi) // cells i on, as long as Next moves forward
	return s.Next()
}

// First is First for a Columnar block.
func (s *Reader) First() bool {
	if s.Fail != nil {
		return false
	}
	s.rewind()
	return s.Next()
}

// step decodes the key cell at s.Off: shared uv | slen uv | suffix |
// [seq vlong].
func (s *Reader) step() bool {
	if s.kmode == colKeysFixed {
		s.KV.Key = s.kpack.Fill(s.kbuf, uint64(s.keyInts[s.Idx]))
		s.Idx++
		return true
	}
	b := s.Cells
	p := s.Off
	var shared, slen int
	if p+2 <= len(b) && (b[p]|b[p+1]) < 0x80 {
		shared, slen, p = int(b[p]), int(b[p+1]), p+2
	} else {
		shared, p = frame.ReadLen(b, p)
		slen, p = frame.ReadLen(b, p)
	}
	if p < 0 || slen > len(b)-p {
		return s.Corrupt("bad key")
	}
	if s.Idx == s.NextRestart && !s.CheckRestart(shared, s.Off) {
		return s.Corrupt("restart offset is not a whole-key cell")
	}
	if !s.SetKey(shared, b[p:p+slen]) {
		return false
	}
	p += slen
	if s.seqMode == colSeqsInline {
		return s.SkipSeq(p)
	}
	s.Off = p
	s.Idx++
	if s.Idx == s.Count && s.Off != len(s.Cells) {
		return s.Corrupt("bytes after the last cell")
	}
	return true
}

// land makes the cell just stepped over current: its seq, kind and
// value.
func (s *Reader) land() bool {
	c := s
	i := s.Idx - 1
	if c.seqMode == colSeqsInline {
		if !s.LandSeq() {
			return false
		}
	} else {
		s.KV.Seq = uint64(c.seqs[i])
		s.Valid = true
	}
	if uint(i-c.cellLo) >= uint(c.cellHi-c.cellLo) && !s.loadCell(i) {
		return false
	}
	s.value(i)
	return true
}

// value sets the kind and value of cell i.
func (s *Reader) value(i int) {
	c := s
	s.KV.Kind = cell.KindPut
	if c.kinds != nil {
		s.KV.Kind = cell.Kind(c.kinds[i>>3] >> (i & 7) & 1)
	}
	if c.vmode == colValsInt {
		binary.BigEndian.PutUint64(s.vbuf[:], uint64(c.ints[i]))
		s.KV.Value = s.vbuf[8-c.width:]
		return
	}
	if c.vmode == colValsPacked {
		s.KV.Value = c.pack.Fill(c.vtmpl, uint64(c.ints[i]))
		return
	}
	if c.vmode >= colValsFloat {
		s.floatValue(i)
		return
	}
	s.bytes(i)
}

// floatValue sets the value of cell i from the float or text values.
func (s *Reader) floatValue(i int) {
	c := s
	switch c.fmode {
	case 8:
		binary.BigEndian.PutUint64(s.vbuf[:], math.Float64bits(c.floats[i]))
	case 8 | colFloatLE:
		binary.LittleEndian.PutUint64(s.vbuf[:], math.Float64bits(c.floats[i]))
	case 4:
		binary.BigEndian.PutUint32(s.vbuf[:], math.Float32bits(c.floats4[i]))
	case 4 | colFloatLE:
		binary.LittleEndian.PutUint32(s.vbuf[:], math.Float32bits(c.floats4[i]))
	default: // text
		c.text = appendDecimalText(c.text[:0], c.floats[i], c.style)
		s.KV.Value = c.text
		return
	}
	s.KV.Value = s.vbuf[:c.fmode&^colFloatLE]
}

// bytes sets the value of cell i from the value area (inline or
// dictionary values); small enough to inline.
func (s *Reader) bytes(i int) {
	c := s
	j := int64(i) // inline values: cell i's; dict: its distinct value's
	if c.vmode == colValsDict {
		j = c.idx[i]
	}
	lo, hi := c.ends[j], c.ends[j+1]
	s.KV.Value = c.data[lo:hi:hi]
}

// SeekGE is blockenc.Seeker.SeekGE for a Columnar block: the RowIndex search over
// restart keys, then a scan of at most one interval.
func (s *Reader) SeekGE(key []byte) bool {
	if s.Fail != nil {
		return false
	}
	if s.kmode == colKeysFixed {
		return s.seekFixed(key)
	}
	i, ok := s.SeekStart(key)
	if !ok {
		return false
	}
	if i >= 0 {
		s.ToRestart(i)
	}
	return s.scan(key)
}

// scan steps forward until the key is >= key, as scan does.
func (s *Reader) scan(key []byte) bool {
	m := -1
	for s.Idx < s.Count {
		if !s.step() {
			return false
		}
		if m >= 0 && s.Shared > m {
			continue
		}
		var done bool
		if m, done = s.Reached(m, key); done {
			return s.land()
		}
	}
	s.Valid = false
	return false
}

// fixedKey writes the varying bytes of key i into buf (the template) and
// returns it.
func (c *Reader) fixedKey(buf []byte, i int) []byte {
	return c.kpack.Fill(buf, uint64(c.keyInts[i]))
}

// seekFixed is SeekGE over fixed-width keys: a binary search over all
// of them, or when key is after the current cell a galloping search from
// it.
func (s *Reader) seekFixed(key []byte) bool {
	c := s
	lo, hi := 0, s.Count
	if s.Valid && bytes.Compare(s.KV.Key, key) < 0 {
		// Ascending: gallop from the current cell (merging iterators
		// seek a few cells on), then binary-search the last step.
		lo = s.Idx
		for step := 1; lo < hi; step <<= 1 {
			m := min(lo+step-1, hi-1)
			if bytes.Compare(c.fixedKey(c.probe, m), key) >= 0 {
				hi = m
				break
			}
			lo = m + 1
		}
	}
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if bytes.Compare(c.fixedKey(c.probe, m), key) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo >= s.Count {
		s.Idx, s.Valid = s.Count, false
		return false
	}
	s.Idx = lo
	return s.step() && s.land()
}

// Forms returns the key, seq and value modes of the block (for tests).
func (s *Reader) Forms() (keys, seqs, values byte) { return s.kform, s.seqMode, s.vmode }

// SubsLoaded returns how many LZ4Dict sub-blocks of the value area s has
// decompressed since Init, and how many the area has (for tests).
func (s *Reader) SubsLoaded() (loaded, total int) {
	for _, sb := range s.area.Subs {
		if sb.Loaded {
			loaded++
		}
	}
	return loaded, len(s.area.Subs)
}
