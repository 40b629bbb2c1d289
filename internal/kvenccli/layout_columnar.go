package kvenccli

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/pierrec/lz4/v4"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/blockenc/shapeshift"
)

// columnar walks a Columnar block after its header: keys, seqs, kinds,
// values (blockenc's doc and internal/colblk's).
func (w *walker) columnar(version, flags, count, interval int, d *blockenc.Dict) {
	kmode := w.u8()
	switch kmode {
	case 0:
		w.prefixKeys(count, interval)
	case 1:
		L, tmpl := w.template()
		nvar := w.u8()
		w.line("fixed keys of %d bytes, template %s, %d varying bytes", L, quote(tmpl), nvar)
		for range nvar {
			w.uv()
		}
		w.line("their positions")
		w.column("keys' varying bytes")
	case 2:
		L, tmpl := w.template()
		w.line("packed keys of %d bytes, template %s", L, quote(tmpl))
		w.packed("keys")
	default:
		w.fail("unknown keys mode %d", kmode)
	}
	if kmode != 0 {
		w.seqs()
	}
	switch km := w.u8(); km {
	case 0:
		w.line("kinds: every cell a Put")
	case 1:
		w.take((count + 7) / 8)
		w.line("kinds bitmap (1: Put, 0: Delete)")
	default:
		w.fail("unknown kinds mode %d", km)
	}
	vm := w.u8()
	w.vform = vm
	if w.stopAtValues {
		return
	}
	switch vm {
	case 0:
		ends := w.column("inline values: ends")
		w.area(version, flags, ends, d)
	case 1:
		wd := w.u8()
		w.line("integer values of %d bytes%s", wd&0x7f, deltaNote(wd))
		w.column("values")
	case 2:
		nd := w.uv()
		w.line("dictionary of %d distinct values", nd)
		ends := w.column("their ends")
		w.column("index per cell")
		w.area(version, flags, ends, d)
	case 3:
		L, tmpl := w.template()
		w.line("packed values of %d bytes, template %s", L, quote(tmpl))
		w.packed("values")
	case 4:
		fw := w.u8()
		order := "big-endian"
		if fw&0x80 != 0 {
			order = "little-endian"
		}
		w.line("float values of %d bytes, %s", fw&0x7f, order)
		if fw&0x7f != 8 && fw&0x7f != 4 {
			w.fail("float values of %d bytes", fw&0x7f)
			return
		}
		w.floatColumn(int(fw&0x7f), -1)
	case 5:
		style := w.u8()
		w.line("decimal text values, style %d%s", style, styleNote(style))
		if style > 1 {
			w.fail("unknown decimal text style %d", style)
			return
		}
		w.floatColumn(8, int(style))
	default:
		if w.err == nil {
			w.line("value form %d, which this kvenc does not describe", vm)
			w.take(len(w.b) - w.p)
			w.line("the rest of the values")
		}
	}
}

// styleNote names a decimal text style (colblk's doc).
func styleNote(style int) string {
	switch style {
	case 0:
		return ` ("64.2", "-3")`
	case 1:
		return ` ("64.2", "-3.0")`
	}
	return ""
}

// floatColumn prints a "clen uv | shapeshift float column" of width-byte
// floats and its first values, as numbers (style < 0) or as the decimal
// text of the style.
func (w *walker) floatColumn(width, style int) {
	clen := w.uv()
	col := w.take(clen)
	if w.err != nil {
		return
	}
	if len(col) < 2 {
		w.fail("float column of %d bytes", len(col))
		return
	}
	if n, m := binary.Uvarint(col[1:]); m <= 0 || n > uint64(maxCellsPerByte*len(w.b)) {
		w.fail("float column: bad value count")
		return
	}
	var (
		vals []float64
		comp map[shapeshift.Form]int
	)
	if width == 4 {
		c, err := shapeshift.OpenFloat32(col)
		if err != nil {
			w.fail("float column: %v", err)
			return
		}
		for i := range c.Len() {
			vals = append(vals, float64(c.Get(i)))
		}
		comp = c.Composition()
	} else {
		c, err := shapeshift.OpenFloat64(col)
		if err != nil {
			w.fail("float column: %v", err)
			return
		}
		for i := range c.Len() {
			vals = append(vals, c.Get(i))
		}
		comp = c.Composition()
	}
	var forms []string
	for f := range shapeshift.Form(255) {
		if !f.IsValid() {
			break
		}
		if comp[f] > 0 {
			forms = append(forms, fmt.Sprintf("%s x%d", strings.ToLower(f.String()), comp[f]))
		}
	}
	w.line("float column: %d bytes, %d values, chunks %s", clen, len(vals), strings.Join(forms, ", "))
	for i, v := range vals {
		if i >= 8 {
			w.note("... %d values more", len(vals)-i)
			break
		}
		switch {
		case style < 0 && width == 4:
			w.note("value %d: %v", i, float32(v))
		case style < 0:
			w.note("value %d: %v", i, v)
		default:
			t := strconv.FormatFloat(v, 'f', -1, 64)
			if style == 1 && !strings.Contains(t, ".") {
				t += ".0"
			}
			w.note("value %d: %s", i, quote([]byte(t)))
		}
	}
}

// prefixKeys walks prefix-compressed keys: klen uv | kcells | restarts,
// with the seqs mode byte after them saying whether kcells hold seqs.
func (w *walker) prefixKeys(count, interval int) {
	klen := w.uv()
	w.line("prefix keys, %d bytes of kcells", klen)
	if w.err != nil {
		return
	}
	nr := (count + interval - 1) / max(interval, 1)
	kend := w.p + klen
	seqAt := kend + restartLen*nr
	if klen > len(w.b)-w.p || seqAt >= len(w.b) {
		w.fail("key stream of %d bytes and %d restarts overrun the block", klen, nr)
		return
	}
	inline := w.b[seqAt] == 0
	kw := newWalker(w.b[:kend], w.p, "", w.out)
	var prev []byte
	for i := 0; i < count && kw.err == nil; i++ {
		shared, slen := kw.uv(), kw.uv()
		if shared > len(prev) {
			kw.fail("shares %d bytes of a %d-byte key", shared, len(prev))
			break
		}
		key := append(prev[:shared:shared], kw.take(slen)...)
		seq := ""
		if inline {
			seq = fmt.Sprintf(", seq %d", kw.vlong())
		}
		restart := ""
		if i%interval == 0 {
			restart = fmt.Sprintf("restart %d, ", i/interval)
		}
		kw.line("%sshares %d, key %s%s", restart, shared, quote(key), seq)
		prev = key
	}
	if kw.err != nil {
		w.err = kw.err
		return
	}
	if kw.p != kend {
		w.fail("kcells end at %d, not %d", kw.p, kend)
		return
	}
	w.p = kend
	for i := range nr {
		w.u32()
		if i%4 == 3 || i == nr-1 {
			w.line("restart offsets")
		}
	}
	w.seqs()
}

// seqs walks the seqs section.
func (w *walker) seqs() {
	switch m := w.u8(); m {
	case 0:
		w.line("seqs in the kcells")
	case 1:
		w.column("seqs")
	case 2:
		w.column("seqs, zigzag deltas")
	default:
		w.fail("unknown seqs mode %d", m)
	}
}

// template walks L uv | template (L bytes) of fixed and packed forms.
func (w *walker) template() (int, []byte) {
	L := w.uv()
	return L, w.take(L)
}

// packed walks nvar u8 | field * nvar | column.
func (w *walker) packed(what string) {
	nvar := w.u8()
	w.line("%d fields (pos, base, bits):", nvar)
	for range nvar {
		pos, base, bits := w.uv(), w.u8(), w.u8()
		w.line("byte %d from %#02x in %d bits", pos, base, bits)
	}
	w.column("packed " + what)
}

// area walks a value area: stored or LZ4 (rawlen uv | alen uv | bytes),
// LZ4Dict (rawlen uv | nsub uv | index | data) or against a Dict
// (rawlen uv | id u32 | nsub uv | index | data).
func (w *walker) area(version, flags int, ends []int64, d *blockenc.Dict) {
	if w.err != nil {
		return
	}
	raw := w.uv()
	var data []byte
	switch {
	case flags&flagLZ4Dict == 0:
		alen := w.uv()
		src := w.take(alen)
		if flags&flagLZ4 == 0 {
			w.line("area: %d bytes, stored", raw)
			data = src
			break
		}
		w.line("area: %d bytes, LZ4 in %d", raw, alen)
		if w.err == nil && !lz4Fits(raw, alen) {
			w.fail("%d bytes cannot come from %d LZ4 bytes", raw, alen)
		}
		if w.err != nil {
			return
		}
		data = make([]byte, raw)
		{
			if n, err := lz4.UncompressBlock(src, data); err != nil || n != raw {
				w.fail("the area does not decompress to %d bytes", raw)
			}
		}
	default:
		data = w.areaSubBlocks(version, flags, raw, d)
	}
	if w.err != nil || data == nil {
		return
	}
	for i, e := range ends {
		if i >= 8 {
			w.note("... %d values more", len(ends)-i)
			break
		}
		s := int64(0)
		if i > 0 {
			s = ends[i-1]
		}
		if s < 0 || s > e || e > int64(len(data)) {
			w.fail("value %d ends at %d of a %d-byte area", i, e, len(data))
			return
		}
		w.note("value %d: %s", i, quote(data[s:e]))
	}
}

// areaSubBlocks walks an LZ4Dict value area and returns it decompressed
// (nil when the Dict it needs is not given).
func (w *walker) areaSubBlocks(version, flags, raw int, d *blockenc.Dict) []byte {
	ext := flags&flagExtDict != 0
	var dict []byte
	if ext {
		dict = w.dictID(d, fmt.Sprintf("area: %d bytes ", raw))
	} else {
		w.line("area: %d bytes as LZ4Dict sub-blocks", raw)
	}
	var out []byte
	w.subBlocks(false, ext && version >= 4, ext, dict, func(i int, _ bool, dst []byte) {
		if len(out)+len(dst) > raw {
			w.fail("sub-blocks hold more than the %d-byte area", raw)
			return
		}
		out = append(out, dst...)
	})
	if w.err != nil || (ext && dict == nil) {
		return nil
	}
	if len(out) != raw {
		w.fail("sub-blocks hold %d bytes of a %d-byte area", len(out), raw)
		return nil
	}
	return out
}
