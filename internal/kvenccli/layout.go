package kvenccli

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pierrec/lz4/v4"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/blockenc/shapeshift"
)

// The block layout printer walks a block's bytes as blockenc's package doc
// (the format's spec) draws them: one line per field group, its offset,
// its bytes in hex and what they say. It reads only what the doc
// specifies, so it is a second reader of the format, not blockenc's; every
// length it reads is bounds-checked and bad bytes end the walk with an
// error wrapping blockenc.ErrCorrupt, after the lines it could print.

// Flag bits of a block's flags byte (blockenc's doc).
const (
	flagLZ4      = 1 << 0
	flagLZ4Dict  = 1 << 1
	flagDedupe   = 1 << 2
	flagValueCol = 1 << 3
	flagSeqCol   = 1 << 4
	flagExtDict  = 1 << 5
	noteColumn   = 44 // where the notes start
	crcLen       = 4
	restartLen   = 4
	// maxCellsPerByte bounds the cells (and column values) of a block by
	// its length, as blockenc does: no block holds more.
	maxCellsPerByte = 102
)

// hexCutAt is how many bytes of a field a line shows before it cuts them
// with ".." (tests show every byte).
var hexCutAt = 24

// walker reads one byte region (a block, or cells decompressed from it)
// and prints its fields: every run its cursor reads joins the current
// line.
type walker struct {
	cursor
	vform        int  // a Columnar block's values mode, once read
	stopAtValues bool // end the walk at a Columnar block's values mode
	out          io.Writer
	parts        []string // hex of the current line
	start        int      // offset of the current line
}

// newWalker returns a walker over b from offset p; base prefixes its
// offsets.
func newWalker(b []byte, p int, base string, out io.Writer) *walker {
	w := &walker{cursor: cursor{b: b, p: p, base: base, corrupt: blockenc.ErrCorrupt}, vform: -1, out: out}
	w.seen = func(off int, run []byte) {
		if len(w.parts) == 0 {
			w.start = off
		}
		w.parts = append(w.parts, hexCut(run))
	}
	return w
}

func hexCut(b []byte) string {
	if len(b) <= hexCutAt {
		return hex.EncodeToString(b)
	}
	return hex.EncodeToString(b[:hexCutAt/2-2]) + ".." + hex.EncodeToString(b[len(b)-4:])
}

// line prints the current line with its note.
func (w *walker) line(format string, args ...any) {
	if len(w.parts) == 0 && format == "" {
		return
	}
	h := strings.Join(w.parts, " ")
	note := fmt.Sprintf(format, args...)
	off := fmt.Sprintf("%s%04x", w.base, w.start)
	if len(w.parts) == 0 {
		off = fmt.Sprintf("%s%04x", w.base, w.p)
	}
	pad := max(2, noteColumn-len(h))
	s := fmt.Sprintf("%8s  %s%s%s", off, h, strings.Repeat(" ", pad), note)
	fmt.Fprintln(w.out, strings.TrimRight(s, " "))
	w.parts = w.parts[:0]
}

// note prints a line of text without bytes.
func (w *walker) note(format string, args ...any) {
	fmt.Fprintf(w.out, "%8s  %s\n", "", fmt.Sprintf(format, args...))
}

// quote shows a key or value, its first 40 bytes: text when printable,
// else hex.
func quote(b []byte) string { return quoteN(b, 40) }

// quoteN is quote of the first n bytes of b (all of them when n < 0).
func quoteN(b []byte, n int) string {
	cut := ""
	if n >= 0 && len(b) > n {
		b, cut = b[:n], fmt.Sprintf("..(%d bytes)", len(b))
	}
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			return "0x" + hex.EncodeToString(b) + cut
		}
	}
	return strconv.Quote(string(b)) + cut
}

// printLayout prints block field by field; d is the Dict the block may be
// compressed against (nil: none).
func printLayout(out io.Writer, block []byte, d *blockenc.Dict) error {
	w := newWalker(block, 0, "", out)
	if len(block) < 3+1+crcLen {
		w.fail("a block is at least 8 bytes, this one %d", len(block))
		return w.err
	}
	w.b = block[:len(block)-crcLen] // the trailer is printed last
	version := w.u8()
	enc := blockenc.Encoding(w.u8())
	flags := w.u8()
	count := w.uv()
	interval := 0
	if enc == blockenc.RowIndex || enc == blockenc.Columnar {
		interval = w.uv()
	}
	if count > maxCellsPerByte*len(block) {
		w.fail("%d cells in %d bytes", count, len(block))
	}
	if (enc == blockenc.RowIndex || enc == blockenc.Columnar) && interval == 0 {
		w.fail("restart interval 0")
	}
	desc := fmt.Sprintf("version %d, %v, flags %#02x%s, %d cells", version, enc, flags, flagNames(flags), count)
	if interval > 0 {
		desc += fmt.Sprintf(", interval %d", interval)
	}
	w.line("%s", desc)
	switch {
	case w.err != nil:
	case !enc.IsValid():
		w.fail("unknown encoding %d", enc)
	case enc == blockenc.Columnar:
		w.columnar(version, flags, count, interval, d)
	default:
		w.row(enc, flags, count, interval, d)
	}
	if w.err != nil {
		return w.err
	}
	if w.p != len(w.b) {
		w.take(len(w.b) - w.p)
		w.line("%d bytes this walk does not know", len(w.b)-w.start)
	}
	w.b = block
	w.take(crcLen)
	w.line("CRC-32C")
	return nil
}

func flagNames(f int) string {
	var names []string
	for _, n := range []struct {
		bit  int
		name string
	}{{flagLZ4, "lz4"}, {flagLZ4Dict, "lz4dict"}, {flagDedupe, "dedupe"}, {flagValueCol, "value column"}, {flagSeqCol, "seq column"}, {flagExtDict, "external dict"}} {
		if f&n.bit != 0 {
			names = append(names, n.name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return " (" + strings.Join(names, ", ") + ")"
}

// column prints a "clen uv | shapeshift column" and returns its values.
func (w *walker) column(what string) []int64 {
	clen := w.uv()
	col := w.take(clen)
	if w.err != nil {
		return nil
	}
	// A column can describe far more values than it has bytes (a Zero
	// chunk of 2^16 values is one byte): bound them as blockenc bounds a
	// block's cells before decoding.
	if len(col) < 2 {
		w.fail("%s: a %d-byte column", what, len(col))
		return nil
	}
	if n, m := binary.Uvarint(col[1:]); m <= 0 || n > uint64(maxCellsPerByte*len(w.b)) {
		w.fail("%s: bad value count", what)
		return nil
	}
	vals, err := shapeshift.Decode(nil, col)
	if err != nil {
		w.fail("%s: %v", what, err)
		return nil
	}
	w.line("%s: %d-byte column, %s", what, clen, describeColumn(col, vals))
	return vals
}

// describeColumn says what a shapeshift column (already decoded) holds:
// its version, count, chunk size and the forms of its chunks, read from
// its header as shapeshift's doc specifies it.
func describeColumn(col []byte, vals []int64) string {
	version := int(col[0])
	_, n := binary.Uvarint(col[1:])
	k := int(col[1+n])
	p := 2 + n
	forms := []string{"zero", "constant", "bytepack", "bitpack", "delta", "runlength", "patched", "lz4", "raw", "patcheddelta"}
	nf := 9
	if version >= 2 {
		nf = 10
	}
	var used []string
	for f := 0; f < nf; f++ {
		c, m := binary.Uvarint(col[p:])
		if m <= 0 {
			break
		}
		p += m
		if c > 0 {
			used = append(used, fmt.Sprintf("%s x%d", forms[f], c))
		}
	}
	s := fmt.Sprintf("v%d, %d values, 2^%d a chunk, %s", version, len(vals), k, strings.Join(used, " "))
	if len(vals) > 0 {
		show := vals[:min(len(vals), 5)]
		s += fmt.Sprintf(": %v", show)
		if len(vals) > len(show) {
			s = strings.TrimSuffix(s, "]") + " ...]"
		}
	}
	return s
}

// row walks a row block (encodings 0-4).
func (w *walker) row(enc blockenc.Encoding, flags, count, interval int, d *blockenc.Dict) {
	if flags&flagValueCol != 0 {
		mode := w.u8()
		w.column(fmt.Sprintf("values: width %d%s", mode&0x7f, deltaNote(mode)))
	}
	if flags&flagSeqCol != 0 {
		mode := w.u8()
		w.column("seqs" + deltaNote(mode))
	}
	if w.err != nil {
		return
	}
	nrestarts := 0
	if enc == blockenc.RowIndex {
		nrestarts = (count + interval - 1) / max(interval, 1)
	}
	end := len(w.b) - restartLen*nrestarts
	if end < w.p {
		w.fail("%d restarts do not fit", nrestarts)
		return
	}
	cellsW := newWalker(w.b[:end], w.p, "", w.out)
	rc := rowCells{enc: enc, flags: flags, count: count}
	switch {
	case flags&flagLZ4 != 0:
		raw := w.uv()
		src := w.take(end - w.p)
		w.line("cells: LZ4, %d bytes from %d", raw, len(src))
		if w.err == nil && !lz4Fits(raw, len(src)) {
			w.fail("%d bytes cannot come from %d LZ4 bytes", raw, len(src))
		}
		if w.err != nil {
			return
		}
		dst := make([]byte, raw)
		{
			if n, err := lz4.UncompressBlock(src, dst); err != nil || n != raw {
				w.fail("LZ4 cells do not decompress to %d bytes", raw)
				return
			}
		}
		rc.walk(newWalker(dst, 0, "lz4+", w.out), count)
		w.err = rc.err
	case flags&flagLZ4Dict != 0:
		w.rowSubBlocks(&rc, end, flags, d)
	default:
		rc.walk(cellsW, count)
		w.p = cellsW.p
		w.err = rc.err
		if w.err == nil && w.p != end {
			w.fail("cells end at %d, the restarts start at %d", w.p, end)
		}
	}
	if w.err != nil {
		return
	}
	w.p = end
	for i := range nrestarts {
		off := w.u32()
		if i%4 == 3 || i == nrestarts-1 {
			w.line("restart offsets")
		}
		_ = off
	}
}

// lz4Fits reports whether n LZ4 bytes can decompress to raw bytes (a
// match length byte of 255 adds 255 bytes), so that a corrupt length is
// refused before a buffer is sized for it.
func lz4Fits(raw, n int) bool { return raw <= 255*n+16 }

func deltaNote(mode int) string {
	if mode&0x80 != 0 {
		return ", zigzag deltas"
	}
	return ""
}

// rowSubBlocks walks the LZ4Dict cells of a row block: [id u32] and the
// keyed index, then each sub-block's cells, decompressed.
func (w *walker) rowSubBlocks(rc *rowCells, end, flags int, d *blockenc.Dict) {
	ext := flags&flagExtDict != 0
	var dict []byte
	if ext {
		dict = w.dictID(d, "")
	}
	w.subBlocks(true, false, ext, dict, func(i int, last bool, dst []byte) {
		n := -1 // up to the sub-block's end
		if last {
			n = rc.count - rc.done
		}
		rc.walk(newWalker(dst, 0, fmt.Sprintf("sub%d+", i), w.out), n)
		rc.prevKey, rc.prevVal, rc.prevKind = nil, nil, blockenc.KindPut
		if rc.err != nil {
			w.err = rc.err
		}
	})
	if w.err == nil && w.p != end {
		w.fail("sub-blocks end at %d, the restarts start at %d", w.p, end)
	}
}

// rowCells walks the cells of a row block, keeping what the next cell
// refers to.
type rowCells struct {
	enc      blockenc.Encoding
	flags    int
	count    int
	done     int
	prevKey  []byte
	prevVal  []byte
	prevKind blockenc.Kind
	err      error
}

// walk prints n cells of w (n < 0: up to the end of w).
func (rc *rowCells) walk(w *walker, n int) {
	rc.prevKind = blockenc.KindPut
	for i := 0; (n < 0 && w.p < len(w.b)) || i < n; i++ {
		if w.err != nil || rc.done >= rc.count {
			break
		}
		rc.cell(w)
		rc.done++
	}
	if w.err == nil && n >= 0 && rc.done != rc.count && n > 0 {
		w.fail("%d cells of %d", rc.done, rc.count)
	}
	if rc.err == nil {
		rc.err = w.err
	}
}

// value reads a value of length field vlen at w (dedupe: doubled, odd a
// back-reference) and returns it with a note.
func (rc *rowCells) value(w *walker, vlen int) ([]byte, string) {
	if rc.flags&flagDedupe == 0 {
		return w.take(vlen), ""
	}
	if vlen&1 == 0 {
		return w.take(vlen >> 1), ""
	}
	at := w.p
	dist := w.uv()
	n := vlen >> 1
	if w.err != nil || dist < n || dist > at {
		w.fail("bad back-reference")
		return nil, ""
	}
	return w.b[at-dist : at-dist+n], fmt.Sprintf(" (%d bytes from %d back)", n, dist)
}

func (rc *rowCells) key(w *walker, shared, slen int) []byte {
	if shared > len(rc.prevKey) {
		w.fail("shares %d bytes of a %d-byte key", shared, len(rc.prevKey))
		return nil
	}
	suffix := w.take(slen)
	return append(rc.prevKey[:shared:shared], suffix...)
}

func (rc *rowCells) cell(w *walker) {
	var key, val []byte
	var kind blockenc.Kind
	var refNote, head string
	switch rc.enc {
	case blockenc.None:
		klen, vlen := w.uv(), w.uv()
		key = w.take(klen)
		val, refNote = rc.value(w, vlen)
		kind = blockenc.Kind(w.u8())
	case blockenc.Prefix, blockenc.RowIndex:
		shared, slen, vlen := w.uv(), w.uv(), w.uv()
		head = fmt.Sprintf("shares %d, ", shared)
		key = rc.key(w, shared, slen)
		val, refNote = rc.value(w, vlen)
		kind = blockenc.Kind(w.u8())
	case blockenc.Diff:
		f := w.u8()
		klen, vlen := len(rc.prevKey), -1
		if f&1 == 0 {
			klen = w.uv()
		}
		if f&2 == 0 {
			vlen = w.uv()
		}
		shared := w.uv()
		head = fmt.Sprintf("shares %d, ", shared)
		key = rc.key(w, shared, klen-shared)
		if vlen < 0 {
			val = w.take(len(rc.prevVal))
		} else {
			val, refNote = rc.value(w, vlen)
		}
		kind = rc.prevKind
		if f&4 == 0 {
			kind = blockenc.Kind(w.u8())
		}
	case blockenc.FastDiff:
		f := w.u8()
		slen := f & 15
		if slen == 15 {
			slen += w.uv()
		}
		shared := len(rc.prevKey) - slen
		if f&0x10 == 0 {
			shared = w.uv()
		}
		vlen := -1
		if f&0x60 == 0 {
			vlen = w.uv()
		}
		head = fmt.Sprintf("shares %d, ", shared)
		key = rc.key(w, max(shared, 0), slen)
		switch {
		case f&0x40 != 0:
			val, refNote = rc.prevVal, " (same value)"
		case vlen < 0:
			val = w.take(len(rc.prevVal))
		default:
			val, refNote = rc.value(w, vlen)
		}
		kind = blockenc.Kind(f >> 7)
	}
	seq := w.vlong()
	if w.err != nil {
		return
	}
	if !kind.IsValid() {
		w.fail("kind %d", kind)
		return
	}
	valNote := quote(val)
	if rc.flags&flagValueCol != 0 {
		valNote = "(value column)"
	}
	seqNote := strconv.FormatInt(seq, 10)
	if rc.flags&flagSeqCol != 0 {
		seqNote = "(seq column)"
	}
	w.line("%skey %s %v %s = %s%s", head, quote(key), kind, seqNote, valNote, refNote)
	rc.prevKey, rc.prevVal, rc.prevKind = append(rc.prevKey[:0:0], key...), val, kind
}

// blockForm says how a block stores its cells: its encoding, its value
// form and its compression, read from its header (and, Columnar, its
// sections up to the values' mode byte).
func blockForm(block []byte) (form string, err error) {
	if len(block) < 3+1+crcLen {
		return "", fmt.Errorf("%w: a block of %d bytes", blockenc.ErrCorrupt, len(block))
	}
	enc, flags := blockenc.Encoding(block[1]), int(block[2])
	comp := "none"
	switch {
	case flags&flagLZ4 != 0:
		comp = "lz4"
	case flags&flagExtDict != 0:
		comp = "lz4dict, segment dictionary"
	case flags&flagLZ4Dict != 0:
		comp = "lz4dict"
	}
	vform := "inline values"
	switch {
	case enc == blockenc.Columnar:
		w := newWalker(block[:len(block)-crcLen], 3, "", io.Discard)
		w.stopAtValues = true
		count, interval := w.uv(), w.uv()
		w.columnar(int(block[0]), flags, count, interval, nil)
		if w.err != nil {
			return "", w.err
		}
		vform = columnarValueForms[min(w.vform, len(columnarValueForms)-1)]
	case flags&flagValueCol != 0:
		vform = "integer values"
	case flags&flagDedupe != 0:
		vform = "inline values, dedupe"
	}
	return fmt.Sprintf("%v, %s, %s", enc, vform, comp), nil
}

// columnarValueForms names the values modes of Columnar blocks; the last
// stands for any this kvenc does not know.
var columnarValueForms = []string{"inline values", "integer values", "dictionary values", "packed values", "a values form this kvenc does not know"}
