package shapeshift

import (
	"encoding/binary"
)

// checkHuffman checks a Huffman chunk's fixed fields; decodeHuffman checks
// the rest.
func checkHuffman(b []byte, at int) error {
	if len(b) < hdrHuffman {
		return corrupt("Huffman chunk truncated, offset %d", at)
	}
	mode, nl, nb := b[1], int(b[10]), int(b[11])
	if mode > huffDeltas || nb > huffMaxBucket+1 || nl+nb < 2 {
		return corrupt("Huffman mode %d literals %d buckets %d, offset %d", mode, nl, nb, at+1)
	}
	return nil
}

// huffSymTab is the size of the decoder's symbol tables, a power of two
// above huffMaxSyms so that a symbol index needs no bounds check.
const huffSymTab = 512

// huffSyms is what the decoder knows of each symbol: the residual (a
// literal, or a bucket's leading bit), the number of bits that follow it
// and their mask.
type huffSyms struct {
	base [huffSymTab]uint64
	mask [huffSymTab]uint64
	w    [huffSymTab]uint8
}

// huffTable is a decoding table: entry k (the next L stream bits) holds
// the symbol whose code they start with, << 4, | the code's length.
type huffTable [1 << huffMaxCode]uint16

// huffPad is the zero padding after each stream in the decoder's copy of
// them: a load of 8 bytes at any byte of a stream stays in the copy.
const huffPad = 8

// decodeHuffman decodes Huffman chunk b (checked by checkHuffman) into dst.
// scratch (grown as needed; nil allocates) takes a copy of the streams,
// each followed by huffPad zero bytes.
func decodeHuffman(dst []int64, b []byte, at int, scratch *[]byte) error {
	mode, base := int(b[1]), int64(binary.LittleEndian.Uint64(b[2:]))
	nl, nb := int(b[10]), int(b[11])
	nsym := nl + nb
	// Symbols: literal values, then buckets 0..nb-1.
	var syms huffSyms
	symBase := &syms.base
	p := hdrHuffman
	for k := range nl {
		x, m := binary.Uvarint(b[p:])
		if m <= 0 {
			return corrupt("Huffman literal %d, offset %d", k, at+p)
		}
		if k > 0 {
			prev := symBase[k-1]
			if x >= ^prev {
				return corrupt("Huffman literal %d beyond 2^64, offset %d", k, at+p)
			}
			x += prev + 1
		}
		symBase[k] = x
		p += m
	}
	for c := range nb {
		if c > 0 {
			symBase[nl+c] = 1 << (c - 1)
		}
		syms.w[nl+c] = uint8(bucketExtra(c))
		syms.mask[nl+c] = lowMask(bucketExtra(c))
	}
	if len(b)-p < (nsym+1)/2 {
		return corrupt("Huffman code lengths truncated, offset %d", at+p)
	}
	var lens [huffMaxSyms]uint8
	longest := uint8(0)
	for s := range nsym {
		l := b[p+s/2] >> (4 * (s & 1)) & 15
		if l > huffMaxCode {
			return corrupt("Huffman code length %d of symbol %d, offset %d", l, s, at+p+s/2)
		}
		lens[s] = l
		longest = max(longest, l)
	}
	var codes [huffMaxSyms]uint16
	if !huffCodes(codes[:nsym], lens[:nsym]) {
		return corrupt("Huffman code lengths do not make a complete code, offset %d", at+p)
	}
	p += (nsym + 1) / 2
	var ls [huffStreams + 1]int // stream lengths; the last one is the bucket bits
	rest := len(b) - p
	for k := range huffStreams {
		ls[k] = int(binary.LittleEndian.Uint16(b[12+2*k:]))
		if rest < ls[k] {
			return corrupt("Huffman code stream %d of %d bytes overruns the chunk, offset %d", k, ls[k], at+12+2*k)
		}
		rest -= ls[k]
	}
	ls[huffStreams] = rest
	if scratch == nil {
		scratch = new([]byte)
	}
	need := len(b) - p + (huffStreams+1)*huffPad
	if cap(*scratch) < need {
		*scratch = make([]byte, need)
	}
	var streams [huffStreams + 1]padded
	buf := (*scratch)[:need]
	for k, l := range ls {
		copy(buf, b[p:p+l])
		clear(buf[l : l+huffPad])
		streams[k] = padded{buf[: l+huffPad : l+huffPad], l}
		buf = buf[l+huffPad:]
		p += l
	}
	var tab huffTable
	step := 1 << longest
	for s := range nsym {
		l := int(lens[s])
		if l == 0 {
			continue
		}
		e := uint16(s)<<4 | uint16(l)
		for k := int(codes[s]); k < step; k += 1 << l {
			tab[k] = e
		}
	}
	out := dst
	if mode == huffDeltas {
		dst[0] = base
		out = dst[1:]
	}
	if k, ok := huffSymbols(out, (*[huffStreams]padded)(streams[:huffStreams]), &tab, uint(longest)); !ok {
		return corrupt("Huffman code stream %d does not hold its codes exactly, offset %d", k, at+12+2*k)
	}
	extra := streams[huffStreams]
	if !huffResiduals(out, extra, &syms) {
		return corrupt("Huffman bucket bits do not fill their %d bytes exactly, offset %d", extra.n, at+len(b)-extra.n)
	}
	if mode == huffOffsets {
		for i, r := range out {
			out[i] = base + r
		}
		return nil
	}
	acc := base
	for i, r := range out {
		acc += unzigzag(uint64(r))
		out[i] = acc
	}
	return nil
}

// padded is a stream of n bytes followed by huffPad zero bytes.
type padded struct {
	b []byte // n bytes and the padding
	n int
}

// ends reports whether the stream ends at bit position p: its codes or
// bits take its last byte and no byte beyond.
func (s padded) ends(p uint) bool { return p <= 8*uint(s.n) && (p+7)/8 == uint(s.n) }

// huffSymbols decodes the symbols of out from the code streams, quarter k
// of out from stream k. ok is false, with the stream, if a stream does not
// end with the last byte its codes use.
func huffSymbols(out []int64, streams *[huffStreams]padded, tab *huffTable, longest uint) (k int, ok bool) {
	n := len(out)
	var pos [huffStreams]uint
	var ok0, ok1 bool
	pos[0], pos[1], ok0 = huffPair(out[:n/4], out[n/4:n/2], streams[0].b, streams[1].b, tab, longest)
	pos[2], pos[3], ok1 = huffPair(out[n/2:3*n/4], out[3*n/4:], streams[2].b, streams[3].b, tab, longest)
	for k := range huffStreams {
		if !ok0 || !ok1 || !streams[k].ends(pos[k]) {
			return k, false
		}
	}
	return 0, true
}

// huffPair decodes the symbols of oa from stream sa and those of ob from
// sb (padded) and returns the bit positions where the streams end; ok is
// false if a stream is read past its padding.
//
// The fast loop takes five codes of each stream per round: one unaligned
// load gives at least 57 bits, enough for five codes of up to 11 bits,
// and each code is a mask, a table load and a shift. The five codes of
// stream a, then those of stream b: the processor runs the two chains of
// lookups at once, and the compiler keeps one stream's state in registers
// at a time (four streams' state interleaved code by code spilled, and the
// spills doubled the instructions).
func huffPair(oa, ob []int64, sa, sb []byte, tab *huffTable, longest uint) (pa, pb uint, ok bool) {
	mask := uint64(1)<<longest - 1&(1<<huffMaxCode-1)
	m := min(len(oa), len(ob))
	i := 0
	for ; i+5 <= m && pa>>3+8 <= uint(len(sa)) && pb>>3+8 <= uint(len(sb)); i += 5 {
		xa := binary.LittleEndian.Uint64(sa[pa>>3:]) >> (pa & 7)
		xb := binary.LittleEndian.Uint64(sb[pb>>3:]) >> (pb & 7)
		da, db := (*[5]int64)(oa[i:i+5]), (*[5]int64)(ob[i:i+5])
		var e, l uint
		e = uint(tab[xa&(1<<huffMaxCode-1)&mask])
		l = e & 15
		xa >>= l
		pa += l
		da[0] = int64(e >> 4)
		e = uint(tab[xa&(1<<huffMaxCode-1)&mask])
		l = e & 15
		xa >>= l
		pa += l
		da[1] = int64(e >> 4)
		e = uint(tab[xa&(1<<huffMaxCode-1)&mask])
		l = e & 15
		xa >>= l
		pa += l
		da[2] = int64(e >> 4)
		e = uint(tab[xa&(1<<huffMaxCode-1)&mask])
		l = e & 15
		xa >>= l
		pa += l
		da[3] = int64(e >> 4)
		e = uint(tab[xa&(1<<huffMaxCode-1)&mask])
		l = e & 15
		xa >>= l
		pa += l
		da[4] = int64(e >> 4)
		e = uint(tab[xb&(1<<huffMaxCode-1)&mask])
		l = e & 15
		xb >>= l
		pb += l
		db[0] = int64(e >> 4)
		e = uint(tab[xb&(1<<huffMaxCode-1)&mask])
		l = e & 15
		xb >>= l
		pb += l
		db[1] = int64(e >> 4)
		e = uint(tab[xb&(1<<huffMaxCode-1)&mask])
		l = e & 15
		xb >>= l
		pb += l
		db[2] = int64(e >> 4)
		e = uint(tab[xb&(1<<huffMaxCode-1)&mask])
		l = e & 15
		xb >>= l
		pb += l
		db[3] = int64(e >> 4)
		e = uint(tab[xb&(1<<huffMaxCode-1)&mask])
		l = e & 15
		xb >>= l
		pb += l
		db[4] = int64(e >> 4)
	}
	if pa, ok = huffRest(oa[i:], sa, pa, tab, mask); !ok {
		return 0, 0, false
	}
	pb, ok = huffRest(ob[i:], sb, pb, tab, mask)
	return pa, pb, ok
}

// huffRest decodes the symbols of o one at a time from stream src at bit
// position p and returns the position after them.
func huffRest(o []int64, src []byte, p uint, tab *huffTable, mask uint64) (uint, bool) {
	for j := range o {
		if p>>3+8 > uint(len(src)) {
			return 0, false
		}
		e := tab[binary.LittleEndian.Uint64(src[p>>3:])>>(p&7)&mask&(1<<huffMaxCode-1)]
		p += uint(e & 15)
		o[j] = int64(e >> 4)
	}
	return p, true
}

// huffResiduals replaces each symbol in out by its residual: the literal,
// or the bucket's leading bit and its bits from src. ok is false if the
// bits do not end with src's last byte.
//
// Four values a round through an array pointer: a loop of one value
// reslicing out, or indexing it with the register that variable shifts
// need, ran 28 instructions a value (callgrind). The symbol's bit count
// comes with a ready mask: computing 1<<w - 1 cost another shift and the
// compiler's guard for shifts of 64 or more.
func huffResiduals(out []int64, src padded, t *huffSyms) bool {
	var q, i, k uint
	b := src.b
	j := 0
	for ; j+4 <= len(out); j += 4 {
		o := (*[4]int64)(out[j : j+4])
		i = q >> 3
		if i+8 > uint(len(b)) {
			return false
		}
		k = uint(o[0]) & (huffSymTab - 1)
		o[0] = int64(t.base[k] + binary.LittleEndian.Uint64(b[i:i+8])>>(q&7)&t.mask[k])
		q += uint(t.w[k])
		i = q >> 3
		if i+8 > uint(len(b)) {
			return false
		}
		k = uint(o[1]) & (huffSymTab - 1)
		o[1] = int64(t.base[k] + binary.LittleEndian.Uint64(b[i:i+8])>>(q&7)&t.mask[k])
		q += uint(t.w[k])
		i = q >> 3
		if i+8 > uint(len(b)) {
			return false
		}
		k = uint(o[2]) & (huffSymTab - 1)
		o[2] = int64(t.base[k] + binary.LittleEndian.Uint64(b[i:i+8])>>(q&7)&t.mask[k])
		q += uint(t.w[k])
		i = q >> 3
		if i+8 > uint(len(b)) {
			return false
		}
		k = uint(o[3]) & (huffSymTab - 1)
		o[3] = int64(t.base[k] + binary.LittleEndian.Uint64(b[i:i+8])>>(q&7)&t.mask[k])
		q += uint(t.w[k])
	}
	for ; j < len(out); j++ {
		i = q >> 3
		if i+8 > uint(len(b)) {
			return false
		}
		k = uint(out[j]) & (huffSymTab - 1)
		out[j] = int64(t.base[k] + binary.LittleEndian.Uint64(b[i:i+8])>>(q&7)&t.mask[k])
		q += uint(t.w[k])
	}
	return src.ends(q)
}
