package shapeshift

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"sync"

	"github.com/pierrec/lz4/v4"
)

// header is a parsed and validated column header. Its slices alias src.
type header struct {
	count   int
	log     uint
	nChunks int
	comp    [numForms]int
	offsets []byte // nChunks little-endian uint32 end offsets into data
	data    []byte // chunk bodies
	dataAt  int    // offset of data in src, for error messages
	width   int    // bytes per float value (8 or 4) of a float column, 0 for integers
	version byte
}

// The forms whose chunk counts each version's composition lists, in order.
var (
	intFormsV1 = [...]Form{Zero, Constant, BytePack, BitPack, Delta, RunLength, Patched, LZ4, Raw}
	intFormsV2 = [...]Form{Zero, Constant, BytePack, BitPack, Delta, RunLength, Patched, LZ4, Raw, PatchedDelta}
	floatForms = [...]Form{Raw, Decimal, FrontBits}
)

// parseIntHeader is parseHeader for an integer column (version 1 or 2).
func parseIntHeader(src []byte) (header, error) {
	h, err := parseHeader(src)
	if err == nil && h.width != 0 {
		err = corrupt("a float%d column is not an integer column, offset 0", 8*h.width)
	}
	return h, err
}

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}

// parseHeader checks the checksum, then the header and the offsets table.
// Chunk bodies are not looked at.
func parseHeader(src []byte) (header, error) {
	var h header
	if len(src) < 4+3 {
		return h, corrupt("column of %d bytes is shorter than the minimum", len(src))
	}
	body := src[:len(src)-4]
	want := binary.LittleEndian.Uint32(src[len(body):])
	if got := crc32.Checksum(body, castagnoli); got != want {
		return h, corrupt("checksum %#08x, stored %#08x, offset %d", got, want, len(body))
	}
	forms := intFormsV1[:]
	p := 1
	switch body[0] {
	case 1:
	case 2:
		forms = intFormsV2[:]
	case 3, 4:
		forms = floatForms[:]
		if len(body) < 2 || (body[1] != 8 && body[1] != 4) {
			return h, corrupt("float width %d, want 8 or 4, offset 1", body[1])
		}
		h.width = int(body[1])
		p++
	default:
		return h, corrupt("version %d, want 1 to 4, offset 0", body[0])
	}
	h.version = body[0]
	count, k := binary.Uvarint(body[p:])
	if k <= 0 || count > MaxLen {
		return h, corrupt("bad value count, offset %d", p)
	}
	p += k
	if p >= len(body) {
		return h, corrupt("truncated header, offset %d", p)
	}
	lg := body[p]
	if lg < MinLogChunkSize || lg > MaxLogChunkSize {
		return h, corrupt("log chunk size %d out of range, offset %d", lg, p)
	}
	p++
	h.count, h.log = int(count), uint(lg)
	h.nChunks = (h.count + 1<<h.log - 1) >> h.log
	total := 0
	for _, f := range forms {
		c, k := binary.Uvarint(body[p:])
		if k <= 0 || c > uint64(h.nChunks) {
			return h, corrupt("bad composition count for %v, offset %d", f, p)
		}
		h.comp[f] = int(c)
		total += int(c)
		p += k
	}
	if total != h.nChunks {
		return h, corrupt("composition sums to %d chunks, want %d, offset %d", total, h.nChunks, p)
	}
	if uint(len(body)-p) < uint(4*h.nChunks) {
		return h, corrupt("offsets table truncated, offset %d", p)
	}
	h.offsets = body[p : p+4*h.nChunks]
	h.dataAt = p + 4*h.nChunks
	h.data = body[h.dataAt:]
	prev := uint32(0)
	for c := 0; c < h.nChunks; c++ {
		end := binary.LittleEndian.Uint32(h.offsets[4*c:])
		if end <= prev || uint64(end) > uint64(len(h.data)) {
			return h, corrupt("chunk %d end %d out of order or range, offset %d", c, end, p+4*c)
		}
		prev = end
	}
	if int(prev) != len(h.data) {
		return h, corrupt("%d bytes after the last chunk, offset %d", len(h.data)-int(prev), h.dataAt+int(prev))
	}
	return h, nil
}

// chunk returns chunk c's body (form byte first), its value count and its
// offset in the column.
func (h *header) chunk(c int) ([]byte, int, int) {
	start := uint32(0)
	if c > 0 {
		start = binary.LittleEndian.Uint32(h.offsets[4*c-4:])
	}
	end := binary.LittleEndian.Uint32(h.offsets[4*c:])
	n := 1 << h.log
	if c == h.nChunks-1 {
		n = h.count - c<<h.log
	}
	return h.data[start:end], n, h.dataAt + int(start)
}

// checkChunk validates the length and fixed fields of a chunk body holding n
// values, everything needed to read BytePack, BitPack, Constant, Zero and
// Raw chunks in place and to size every other form. at is the body's offset
// in the column, for errors.
func checkChunk(b []byte, n int, at int) error {
	f := Form(b[0])
	want := 0
	switch f {
	case Zero:
		want = hdrZero
	case Constant:
		want = hdrConstant
	case BytePack, LZ4:
		if len(b) < hdrBytePack {
			break
		}
		w := int(b[9])
		if w < 1 || w > 8 {
			return corrupt("%v width %d, offset %d", f, w, at+9)
		}
		if f == LZ4 {
			if len(b) == hdrLZ4 {
				return corrupt("LZ4 chunk without data, offset %d", at)
			}
			return nil
		}
		want = sizeBytePack(n, w)
		if len(b) == want {
			for i, x := range b[want-(8-w):] {
				if x != 0 {
					return corrupt("nonzero BytePack padding, offset %d", at+want-(8-w)+i)
				}
			}
		}
	case BitPack:
		if len(b) < hdrBitPack {
			break
		}
		bits := int(b[9])
		if bits < 1 || bits > 64 {
			return corrupt("BitPack width %d, offset %d", bits, at+9)
		}
		want = sizeBitPack(n, bits)
	case Delta:
		if len(b) < hdrDelta {
			break
		}
		bits := int(b[17])
		if bits > 64 {
			return corrupt("Delta width %d, offset %d", bits, at+17)
		}
		want = sizeDelta(n, bits)
	case PatchedDelta:
		if len(b) < hdrPatchedDelta {
			break
		}
		lo, hi := int(b[17]), int(b[18])
		e := int(binary.LittleEndian.Uint16(b[19:]))
		if lo > 63 || hi < 1 || lo+hi > 64 || e < 1 || e > n-2 {
			return corrupt("PatchedDelta widths %d/%d exceptions %d, offset %d", lo, hi, e, at+17)
		}
		want = sizePatchedDelta(n, lo, e, hi)
	case RunLength:
		if len(b) < hdrRunLength {
			break
		}
		r := int(binary.LittleEndian.Uint16(b[9:])) + 1
		vw, lw := int(b[11]), int(b[12])
		if vw < 1 || vw > 8 || lw < 1 || lw > 2 || r > n {
			return corrupt("RunLength runs %d widths %d/%d, offset %d", r, vw, lw, at+9)
		}
		want = sizeRunLength(r, vw, lw)
	case Patched:
		if len(b) < hdrPatched {
			break
		}
		lo, hi := int(b[9]), int(b[10])
		e := int(binary.LittleEndian.Uint16(b[11:]))
		if lo > 63 || hi < 1 || lo+hi > 64 || e < 1 || e >= n {
			return corrupt("Patched widths %d/%d exceptions %d, offset %d", lo, hi, e, at+9)
		}
		want = sizePatched(n, lo, e, hi)
	case Raw:
		want = sizeRaw(n)
	case Huffman:
		return checkHuffman(b, at)
	default:
		return corrupt("unknown form %d, offset %d", b[0], at)
	}
	if len(b) != want {
		return corrupt("%v chunk of %d values is %d bytes, want %d, offset %d", f, n, len(b), want, at)
	}
	return nil
}

// lz4Pool holds scratch buffers for LZ4 chunks in Decode.
var lz4Pool = sync.Pool{New: func() any { return new([]byte) }}

// decodeChunk decodes a chunk body into dst (len(dst) values). It checks the
// body first and everything checkChunk cannot (run lengths, exception
// positions, LZ4 data); scratch is grown as needed for LZ4.
func decodeChunk(dst []int64, b []byte, at int, scratch *[]byte) error {
	n := len(dst)
	if err := checkChunk(b, n, at); err != nil {
		return err
	}
	switch Form(b[0]) {
	case Zero:
		clear(dst)
	case Constant:
		fill(dst, int64(binary.LittleEndian.Uint64(b[1:])))
	case BytePack:
		unpackBytes(dst, b[hdrBytePack:], int(b[9]), int64(binary.LittleEndian.Uint64(b[1:])))
	case BitPack:
		unpackBits(dst, b[hdrBitPack:], int(b[9]), int64(binary.LittleEndian.Uint64(b[1:])))
	case Delta:
		decodeDelta(dst, b, b[hdrDelta:], int(b[17]))
	case PatchedDelta:
		return decodePatchedDelta(dst, b, at)
	case RunLength:
		return decodeRunLength(dst, b, at)
	case Patched:
		return decodePatched(dst, b, at)
	case Huffman:
		return decodeHuffman(dst, b, at, scratch)
	case LZ4:
		w := int(b[9])
		need := n*w + 8
		if cap(*scratch) < need {
			*scratch = make([]byte, need)
		}
		buf := (*scratch)[:need]
		k, err := lz4.UncompressBlock(b[hdrLZ4:], buf[:n*w])
		if err != nil || k != n*w {
			return corrupt("LZ4 data does not decompress to %d bytes, offset %d", n*w, at+hdrLZ4)
		}
		clear(buf[n*w:])
		unpackBytes(dst, buf, w, int64(binary.LittleEndian.Uint64(b[1:])))
	case Raw:
		unpackBytes(dst, b[hdrRaw:], 8, 0)
	}
	return nil
}

// fill sets every dst[i] to v, 8 at a time through an array pointer (one
// bounds check per 8 stores): callgrind counts 1.9 instead of 5.0
// instructions per value for a Constant column, and RunLength on the runs
// data drops from 8.9 to 4.9.
func fill(dst []int64, v int64) {
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		d := (*[8]int64)(dst[i : i+8])
		d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7] = v, v, v, v, v, v, v, v
	}
	for ; i < len(dst); i++ {
		dst[i] = v
	}
}

// unpackBytes stores base + the i-th w-byte little-endian field of src in
// dst[i]. src holds len(dst)*w bytes plus at least 8-w more.
//
// Every width has its own loop over groups of 8 values through array
// pointers, so there is one bounds check per group and the shifts and masks
// are constants; the per-value slicing they replace cost 1.5-2.5 ns/value
// for w=2..8 (BenchmarkDecodeForm). w=4 reads each field with one 4-byte
// load: against two fields split out of one 8-byte load, callgrind counts
// 5.6 instead of 15.0 instructions per value (BenchmarkDecodeForm,
// form=BytePack/data=random32).
func unpackBytes(dst []int64, src []byte, w int, base int64) {
	i := 0
	switch w {
	case 1:
		for ; i+8 <= len(dst); i += 8 {
			d := (*[8]int64)(dst[i : i+8])
			x := binary.LittleEndian.Uint64(src[i:])
			d[0] = base + int64(x&0xff)
			d[1] = base + int64(x>>8&0xff)
			d[2] = base + int64(x>>16&0xff)
			d[3] = base + int64(x>>24&0xff)
			d[4] = base + int64(x>>32&0xff)
			d[5] = base + int64(x>>40&0xff)
			d[6] = base + int64(x>>48&0xff)
			d[7] = base + int64(x>>56)
		}
	case 2:
		for ; i+8 <= len(dst); i += 8 {
			d, s := (*[8]int64)(dst[i:i+8]), (*[16]byte)(src[2*i:2*i+16])
			x, y := binary.LittleEndian.Uint64(s[:8]), binary.LittleEndian.Uint64(s[8:])
			d[0] = base + int64(x&0xffff)
			d[1] = base + int64(x>>16&0xffff)
			d[2] = base + int64(x>>32&0xffff)
			d[3] = base + int64(x>>48)
			d[4] = base + int64(y&0xffff)
			d[5] = base + int64(y>>16&0xffff)
			d[6] = base + int64(y>>32&0xffff)
			d[7] = base + int64(y>>48)
		}
	case 3:
		for ; i+8 <= len(dst); i += 8 {
			d, s := (*[8]int64)(dst[i:i+8]), (*[24]byte)(src[3*i:3*i+24])
			x, y, z := binary.LittleEndian.Uint64(s[:8]), binary.LittleEndian.Uint64(s[8:16]), binary.LittleEndian.Uint64(s[16:])
			d[0] = base + int64(x&0xffffff)
			d[1] = base + int64(x>>24&0xffffff)
			d[2] = base + int64((x>>48|y<<16)&0xffffff)
			d[3] = base + int64(y>>8&0xffffff)
			d[4] = base + int64(y>>32&0xffffff)
			d[5] = base + int64((y>>56|z<<8)&0xffffff)
			d[6] = base + int64(z>>16&0xffffff)
			d[7] = base + int64(z>>40)
		}
	case 4:
		for ; i+8 <= len(dst); i += 8 {
			d, s := (*[8]int64)(dst[i:i+8]), (*[32]byte)(src[4*i:4*i+32])
			d[0] = base + int64(binary.LittleEndian.Uint32(s[0:]))
			d[1] = base + int64(binary.LittleEndian.Uint32(s[4:]))
			d[2] = base + int64(binary.LittleEndian.Uint32(s[8:]))
			d[3] = base + int64(binary.LittleEndian.Uint32(s[12:]))
			d[4] = base + int64(binary.LittleEndian.Uint32(s[16:]))
			d[5] = base + int64(binary.LittleEndian.Uint32(s[20:]))
			d[6] = base + int64(binary.LittleEndian.Uint32(s[24:]))
			d[7] = base + int64(binary.LittleEndian.Uint32(s[28:]))
		}
	// w=5..7: one 8-byte load per field, masked; a group's last load reads
	// 8-w bytes past it, which the next group or the padding holds. The
	// constant array sizes drop the bounds checks that a variable w cost
	// (callgrind at w=6, BenchmarkDecodeForm/form=LZ4/data=lowcard: 10.7
	// -> 6.8 instructions per value).
	case 5:
		for ; i+8 <= len(dst); i += 8 {
			d, s := (*[8]int64)(dst[i:i+8]), (*[43]byte)(src[5*i:5*i+43])
			d[0] = base + int64(binary.LittleEndian.Uint64(s[0:])&0xffffffffff)
			d[1] = base + int64(binary.LittleEndian.Uint64(s[5:])&0xffffffffff)
			d[2] = base + int64(binary.LittleEndian.Uint64(s[10:])&0xffffffffff)
			d[3] = base + int64(binary.LittleEndian.Uint64(s[15:])&0xffffffffff)
			d[4] = base + int64(binary.LittleEndian.Uint64(s[20:])&0xffffffffff)
			d[5] = base + int64(binary.LittleEndian.Uint64(s[25:])&0xffffffffff)
			d[6] = base + int64(binary.LittleEndian.Uint64(s[30:])&0xffffffffff)
			d[7] = base + int64(binary.LittleEndian.Uint64(s[35:])&0xffffffffff)
		}
	case 6:
		for ; i+8 <= len(dst); i += 8 {
			d, s := (*[8]int64)(dst[i:i+8]), (*[50]byte)(src[6*i:6*i+50])
			d[0] = base + int64(binary.LittleEndian.Uint64(s[0:])&0xffffffffffff)
			d[1] = base + int64(binary.LittleEndian.Uint64(s[6:])&0xffffffffffff)
			d[2] = base + int64(binary.LittleEndian.Uint64(s[12:])&0xffffffffffff)
			d[3] = base + int64(binary.LittleEndian.Uint64(s[18:])&0xffffffffffff)
			d[4] = base + int64(binary.LittleEndian.Uint64(s[24:])&0xffffffffffff)
			d[5] = base + int64(binary.LittleEndian.Uint64(s[30:])&0xffffffffffff)
			d[6] = base + int64(binary.LittleEndian.Uint64(s[36:])&0xffffffffffff)
			d[7] = base + int64(binary.LittleEndian.Uint64(s[42:])&0xffffffffffff)
		}
	case 7:
		for ; i+8 <= len(dst); i += 8 {
			d, s := (*[8]int64)(dst[i:i+8]), (*[57]byte)(src[7*i:7*i+57])
			d[0] = base + int64(binary.LittleEndian.Uint64(s[0:])&0xffffffffffffff)
			d[1] = base + int64(binary.LittleEndian.Uint64(s[7:])&0xffffffffffffff)
			d[2] = base + int64(binary.LittleEndian.Uint64(s[14:])&0xffffffffffffff)
			d[3] = base + int64(binary.LittleEndian.Uint64(s[21:])&0xffffffffffffff)
			d[4] = base + int64(binary.LittleEndian.Uint64(s[28:])&0xffffffffffffff)
			d[5] = base + int64(binary.LittleEndian.Uint64(s[35:])&0xffffffffffffff)
			d[6] = base + int64(binary.LittleEndian.Uint64(s[42:])&0xffffffffffffff)
			d[7] = base + int64(binary.LittleEndian.Uint64(s[49:])&0xffffffffffffff)
		}
	case 8:
		for ; i+8 <= len(dst); i += 8 {
			d, s := (*[8]int64)(dst[i:i+8]), (*[64]byte)(src[8*i:8*i+64])
			d[0] = base + int64(binary.LittleEndian.Uint64(s[0:]))
			d[1] = base + int64(binary.LittleEndian.Uint64(s[8:]))
			d[2] = base + int64(binary.LittleEndian.Uint64(s[16:]))
			d[3] = base + int64(binary.LittleEndian.Uint64(s[24:]))
			d[4] = base + int64(binary.LittleEndian.Uint64(s[32:]))
			d[5] = base + int64(binary.LittleEndian.Uint64(s[40:]))
			d[6] = base + int64(binary.LittleEndian.Uint64(s[48:]))
			d[7] = base + int64(binary.LittleEndian.Uint64(s[56:]))
		}
	}
	mask := lowMask(8 * w)
	for ; i < len(dst); i++ {
		dst[i] = base + int64(binary.LittleEndian.Uint64(src[i*w:])&mask)
	}
}

// decodeDelta unpacks the deltas and sums them in one pass (deltaFuncs):
// against unpackBits over the chunk followed by a prefix-sum loop, callgrind
// counts 8.0 instead of 13.1 instructions per value (BenchmarkDecodeForm,
// form=Delta/data=timestamps).
// b is the chunk body, src its packed deltas of w bits.
func decodeDelta(dst []int64, b, src []byte, w int) {
	acc := int64(binary.LittleEndian.Uint64(b[1:]))
	dmin := int64(binary.LittleEndian.Uint64(b[9:]))
	dst[0] = acc
	dst = dst[1:]
	if w == 0 {
		for i := range dst {
			acc += dmin
			dst[i] = acc
		}
		return
	}
	f := deltaFuncs[w]
	step := 8 * w
	for len(dst) >= 64 {
		acc = f(dst, src, acc, dmin)
		dst = dst[64:]
		src = src[step:]
	}
	for j := range dst {
		acc += dmin + int64(getBits(src, w, j))
		dst[j] = acc
	}
}

// decodePatchedDelta works in blocks of 64 deltas while they are in L1:
// unpack the low parts, add the exceptions' high parts, sum. Against a
// one-pass Delta decode of the low parts followed by a pass adding the
// exceptions' running sum, it runs about as many instructions (callgrind:
// 15.6 against 15.0 per value) but took 0.82 instead of 1.52 ns/value on
// the orderkeys data and the same 0.8 on counter (side by side in one
// process, -count 10, benchstat).
func decodePatchedDelta(dst []int64, b []byte, at int) error {
	acc := int64(binary.LittleEndian.Uint64(b[1:]))
	dmin := int64(binary.LittleEndian.Uint64(b[9:]))
	lo, hi := int(b[17]), int(b[18])
	e := int(binary.LittleEndian.Uint16(b[19:]))
	low := b[hdrPatchedDelta:]
	dst[0] = acc
	d := dst[1:]
	p := hdrPatchedDelta + packedBytes(len(d), lo)
	pos := b[p : p+2*e]
	highs := b[p+2*e:]
	mask := lowMask(hi)
	x, prev := 0, -1 // next exception, position of the last one
	for start := 0; start < len(d); start += 64 {
		blk := d[start:min(start+64, len(d))]
		switch {
		case lo == 0:
			fill(blk, dmin)
		case len(blk) == 64:
			unpackFuncs[lo](blk, low[start/8*lo:], dmin)
		default:
			for j := range blk {
				blk[j] = dmin + int64(getBits(low, lo, start+j))
			}
		}
		for ; x < e; x++ {
			i := int(binary.LittleEndian.Uint16(pos[2*x:]))
			if i >= start+len(blk) {
				break
			}
			if i <= prev {
				return corrupt("PatchedDelta exception %d at %d out of order, offset %d", x, i, at+p+2*x)
			}
			prev = i
			// High field x with one load where 8 bytes are left (hi <= 56).
			var h uint64
			if q := uint(x) * uint(hi); hi <= 56 && q>>3+8 <= uint(len(highs)) {
				h = binary.LittleEndian.Uint64(highs[q>>3:]) >> (q & 7) & mask
			} else {
				h = getBits(highs, hi, x)
			}
			blk[i-start] += int64(h << uint(lo))
		}
		acc = prefixSum(blk, acc)
	}
	if x < e {
		return corrupt("PatchedDelta exception %d out of range, offset %d", x, at+p+2*x)
	}
	return nil
}

// prefixSum replaces d[j] by acc + d[0] + ... + d[j] and returns the last
// sum. Unrolled by 8 through an array pointer: a plain range loop cost 8
// instructions per value (callgrind), this one 3.
func prefixSum(d []int64, acc int64) int64 {
	j := 0
	for ; j+8 <= len(d); j += 8 {
		a := (*[8]int64)(d[j : j+8])
		a[0] += acc
		a[1] += a[0]
		a[2] += a[1]
		a[3] += a[2]
		a[4] += a[3]
		a[5] += a[4]
		a[6] += a[5]
		a[7] += a[6]
		acc = a[7]
	}
	for ; j < len(d); j++ {
		acc += d[j]
		d[j] = acc
	}
	return acc
}

func decodeRunLength(dst []int64, b []byte, at int) error {
	base := int64(binary.LittleEndian.Uint64(b[1:]))
	r := int(binary.LittleEndian.Uint16(b[9:])) + 1
	vw, lw := int(b[11]), int(b[12])
	lens := b[hdrRunLength : hdrRunLength+r*lw]
	vals := b[hdrRunLength+r*lw:]
	mask := lowMask(8 * vw)
	pos := 0
	for j := 0; j < r; j++ {
		var l int
		if lw == 1 {
			l = int(lens[j]) + 1
		} else {
			l = int(binary.LittleEndian.Uint16(lens[2*j:])) + 1
		}
		if l > len(dst)-pos {
			return corrupt("RunLength run %d overruns the chunk, offset %d", j, at+hdrRunLength+j*lw)
		}
		fill(dst[pos:pos+l], base+int64(binary.LittleEndian.Uint64(vals[j*vw:])&mask))
		pos += l
	}
	if pos != len(dst) {
		return corrupt("RunLength runs cover %d of %d values, offset %d", pos, len(dst), at)
	}
	return nil
}

func decodePatched(dst []int64, b []byte, at int) error {
	base := int64(binary.LittleEndian.Uint64(b[1:]))
	lo, hi := int(b[9]), int(b[10])
	e := int(binary.LittleEndian.Uint16(b[11:]))
	p := hdrPatched
	unpackBits(dst, b[p:], lo, base)
	p += packedBytes(len(dst), lo)
	pos := b[p : p+2*e]
	highs := b[p+2*e:]
	prev := -1
	for j := 0; j < e; j++ {
		i := int(binary.LittleEndian.Uint16(pos[2*j:]))
		if i <= prev || i >= len(dst) {
			return corrupt("Patched exception %d at %d out of order or range, offset %d", j, i, at+p+2*j)
		}
		prev = i
		dst[i] += int64(getBits(highs, hi, j) << uint(lo))
	}
	return nil
}

// Decode appends the values of the column in src to dst and returns the
// extended slice. It reuses dst's spare capacity and allocates only to grow
// it. On corrupt input it returns dst unchanged and an error wrapping
// ErrCorrupt.
func Decode(dst []int64, src []byte) ([]int64, error) {
	h, err := parseIntHeader(src)
	if err != nil {
		return dst, err
	}
	orig, start := dst, len(dst)
	if cap(dst)-start < h.count {
		grown := make([]int64, start, start+h.count)
		copy(grown, dst)
		dst = grown
	}
	out := dst[start : start+h.count]
	var scratch *[]byte
	if h.comp[LZ4] > 0 {
		scratch = lz4Pool.Get().(*[]byte)
		defer lz4Pool.Put(scratch)
	}
	var comp [numForms]int
	for c := 0; c < h.nChunks; c++ {
		b, n, at := h.chunk(c)
		if Form(b[0]).IsValid() {
			comp[b[0]]++
		}
		if Form(b[0]) == Huffman {
			return orig, corrupt("Huffman chunk %d in an integer column, offset %d", c, at)
		}
		if Form(b[0]) == LZ4 && scratch == nil {
			return orig, corrupt("LZ4 chunk %d not in the composition, offset %d", c, at)
		}
		if err := decodeChunk(out[c<<h.log:c<<h.log+n], b, at, scratch); err != nil {
			return orig, err
		}
	}
	if comp != h.comp {
		return orig, corrupt("chunk forms %v disagree with the composition %v, offset 1", comp, h.comp)
	}
	return dst[:start+h.count], nil
}
