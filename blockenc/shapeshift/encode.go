package shapeshift

import (
	"encoding/binary"
	"hash/crc32"
	"math"
	"sync"

	"github.com/pierrec/lz4/v4"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Fixed chunk header sizes: the form byte plus the form's fixed fields.
const (
	hdrZero      = 1
	hdrConstant  = 1 + 8
	hdrBytePack  = 1 + 8 + 1         // min, width
	hdrBitPack   = 1 + 8 + 1         // min, bits
	hdrDelta     = 1 + 8 + 8 + 1     // first, min delta, bits
	hdrRunLength = 1 + 8 + 2 + 1 + 1 // min, runs-1, value width, length width
	hdrPatched   = 1 + 8 + 1 + 1 + 2 // min, low bits, high bits, exceptions
	hdrLZ4       = 1 + 8 + 1         // min, width
	hdrRaw       = 1
	// first, min delta, low bits, high bits, exceptions
	hdrPatchedDelta = 1 + 8 + 8 + 1 + 1 + 2
)

// encoder holds the scratch buffers of one Encode call; pooled.
type encoder struct {
	target Target
	body   []byte                 // encoded chunks, concatenated
	u      []uint64               // offsets / deltas / low bits to pack
	hi     []uint64               // patched exception high parts
	pos    []int                  // patched exception positions
	ends   []uint32               // chunk end offsets
	packed []byte                 // BytePack body for the LZ4 trial
	lz     []byte                 // LZ4 trial output
	pairs  *[pairTableSize]uint64 // repeat-detection table
	comp   lz4.Compressor
	fs     floatScratch
	hs     huffScratch
	// huffman allows the Huffman form (float columns); usedHuffman says
	// that a chunk took it (the column is then version 4).
	huffman, usedHuffman bool
}

var encoderPool = sync.Pool{New: func() any { return new(encoder) }}

// maxPooledBody keeps encoders that grew for very large columns out of the
// pool, so one big Encode does not pin its buffers forever.
const maxPooledBody = 16 << 20

// Encode appends the column encoding of values to dst and returns the
// extended slice. It panics if len(values) > MaxLen (a caller bug, not an
// input-bytes condition). Encoding is deterministic: the same values and
// options give the same bytes.
func Encode(dst []byte, values []int64, opts Options) []byte {
	if len(values) > MaxLen {
		panic("shapeshift: Encode of more than MaxLen values")
	}
	o := opts.normalized()
	e := encoderPool.Get().(*encoder)
	defer func() {
		if cap(e.body) <= maxPooledBody {
			encoderPool.Put(e)
		}
	}()
	e.target = o.Target
	e.body = e.body[:0]
	e.huffman = false

	size := 1 << uint(o.LogChunkSize)
	nChunks := (len(values) + size - 1) / size
	var comp [numForms]int
	start := len(dst)
	dst = appendHeader(dst, len(values), o.LogChunkSize, 1)
	// Offsets follow the composition, which is known only at the end:
	// encode chunks into e.body first, recording end offsets in place.
	ends := e.ends[:0]
	for c := 0; c < nChunks; c++ {
		lo := c * size
		hi := min(lo+size, len(values))
		f := e.encodeChunk(values[lo:hi])
		comp[f]++
		ends = append(ends, uint32(len(e.body)))
	}
	e.ends = ends
	return appendColumn(dst, start, &comp, ends, e.body)
}

// appendColumn appends the composition, the ends table, the chunk bodies
// and the checksum of everything from dst[start:] on. It sets the version
// byte dst[start] of an integer column to 2 if a chunk needs version 2
// (PatchedDelta), and writes the version's composition entries.
func appendColumn(dst []byte, start int, comp *[numForms]int, ends []uint32, body []byte) []byte {
	forms := intFormsV1[:]
	switch {
	case dst[start] >= 3:
		forms = floatForms[:]
	case comp[PatchedDelta] > 0:
		dst[start], forms = 2, intFormsV2[:]
	}
	for _, f := range forms {
		dst = binary.AppendUvarint(dst, uint64(comp[f]))
	}
	for _, off := range ends {
		dst = binary.LittleEndian.AppendUint32(dst, off)
	}
	dst = append(dst, body...)
	crc := crc32.Checksum(dst[start:], castagnoli)
	return binary.LittleEndian.AppendUint32(dst, crc)
}

func appendHeader(dst []byte, count, logChunk int, version byte) []byte {
	dst = append(dst, version)
	dst = binary.AppendUvarint(dst, uint64(count))
	return append(dst, byte(logChunk))
}

// metrics are what one pass over a chunk learns.
type metrics struct {
	n          int
	min, max   int64
	runs       int // maximal runs of equal adjacent values
	longest    int // longest run
	dmin, dmax int64
}

// measure works on locals: metrics has too many fields for the compiler
// to keep in registers, and updating it in place cost 36 instructions per
// value (callgrind, BenchmarkEncode) against 14 now.
func measure(v []int64) metrics {
	lo, hi := v[0], v[0]
	dlo, dhi := int64(math.MaxInt64), int64(math.MinInt64)
	if len(v) == 1 {
		dlo, dhi = 0, 0
	}
	runs, longest := 1, 1
	prev, start := v[0], 0
	for i := 1; i < len(v); i++ {
		x := v[i]
		lo, hi = min(lo, x), max(hi, x)
		d := x - prev
		dlo, dhi = min(dlo, d), max(dhi, d)
		if x != prev {
			longest = max(longest, i-start)
			runs++
			start = i
		}
		prev = x
	}
	longest = max(longest, len(v)-start)
	return metrics{n: len(v), min: lo, max: hi, runs: runs, longest: longest, dmin: dlo, dmax: dhi}
}

// byteWidth is the number of bytes needed for a b-bit number (1..8).
func byteWidth(b int) int { return max(1, (b+7)/8) }

// Exact encoded sizes, form byte included.
func sizeBytePack(n, w int) int { return hdrBytePack + n*w + 8 - w }
func sizeBitPack(n, b int) int  { return hdrBitPack + packedBytes(n, b) }
func sizeDelta(n, b int) int    { return hdrDelta + packedBytes(n-1, b) }
func sizeRunLength(r, vw, lw int) int {
	return hdrRunLength + r*lw + r*vw + 8 - vw
}
func sizePatched(n, b, e, hb int) int {
	return hdrPatched + packedBytes(n, b) + 2*e + packedBytes(e, hb)
}
func sizeRaw(n int) int { return hdrRaw + 8*n }
func sizePatchedDelta(n, b, e, hb int) int {
	return hdrPatchedDelta + packedBytes(n-1, b) + 2*e + packedBytes(e, hb)
}

// encodeChunk appends the chunk in its chosen form to e.body.
func (e *encoder) encodeChunk(v []int64) Form {
	m := measure(v)
	n := m.n
	if m.min == m.max {
		f := Constant
		if m.min == 0 {
			f = Zero
		}
		e.write(v, m, choice{form: f})
		return f
	}
	t := e.target
	rb := bitLen(uint64(m.max - m.min)) // >= 1
	w := byteWidth(rb)
	best, bestScore := Raw, float64(sizeRaw(n))*factor(t, formCost[Raw])
	consider := func(f Form, size int, cost float64) {
		if s := float64(size) * factor(t, cost); s < bestScore {
			best, bestScore = f, s
		}
	}
	consider(BytePack, sizeBytePack(n, w), formCost[BytePack])
	consider(BitPack, sizeBitPack(n, rb), formCost[BitPack])
	db := bitLen(uint64(m.dmax - m.dmin))
	consider(Delta, sizeDelta(n, db), formCost[Delta])
	lw := 1
	if m.longest > 256 {
		lw = 2
	}
	consider(RunLength, sizeRunLength(m.runs, w, lw), runLengthCost(m.runs, n))

	// Patched: exceptions at every low width from a histogram of widths;
	// PatchedDelta likewise from a histogram of delta widths, worth
	// counting only when deltas need 2 bits or more.
	var hist, dhist [65]int
	hist[bitLen(uint64(v[0]-m.min))]++
	if db >= 2 {
		for i := 1; i < n; i++ {
			hist[bitLen(uint64(v[i]-m.min))]++
			dhist[bitLen(uint64(v[i]-v[i-1]-m.dmin))]++
		}
	} else {
		for _, x := range v[1:] {
			hist[bitLen(uint64(x-m.min))]++
		}
	}
	pb, pe := -1, 0
	above := 0 // values wider than b
	for b := rb - 1; b >= 0; b-- {
		above += hist[b+1]
		if above >= n || above > math.MaxUint16 {
			break
		}
		if f := float64(sizePatched(n, b, above, rb-b)) * factor(t, patchedCost(above, n)); f < bestScore {
			best, bestScore, pb, pe = Patched, f, b, above
		}
	}
	dpb, dpe := -1, 0
	above = 0 // deltas wider than b
	for b := db - 1; b >= 0 && db >= 2; b-- {
		above += dhist[b+1]
		if above > n-2 || above > math.MaxUint16 {
			break
		}
		if f := float64(sizePatchedDelta(n, b, above, db-b)) * factor(t, patchedDeltaCost(above, n)); f < bestScore {
			best, bestScore, dpb, dpe = PatchedDelta, f, b, above
		}
	}

	// Huffman: its size is computed exactly from the codes it would build,
	// worth it only when the best form so far spends 1 bit per value.
	if e.huffman && bestScore >= float64(n)/8 && t != Faster {
		f := factor(t, formCost[Huffman])
		limit := bestScore * (1 - huffMinGain[t]) / f
		if size, ok := e.huffTrial(v, m, limit); ok {
			if s := float64(size) * f; s < bestScore*(1-huffMinGain[t]) {
				best, bestScore = Huffman, s
			}
		}
	}

	// LZ4 over the BytePack body: trial-encoded only when adjacent pairs of
	// values repeat often enough for LZ4 to find matches, and only when the
	// best form so far spends at least 2 bits per value.
	lzSize := 0
	if bestScore >= float64(n)/4 && e.repeatedPairs(v)*lz4MinPairShare[t] >= n {
		e.packed = putBytePack(e.packed[:0], v, m.min, w)
		body := e.packed[:n*w]
		if cap(e.lz) < lz4.CompressBlockBound(len(body)) {
			e.lz = make([]byte, lz4.CompressBlockBound(len(body)))
		}
		k, err := e.comp.CompressBlock(body, e.lz[:cap(e.lz)])
		if err == nil && k > 0 {
			if s := float64(hdrLZ4+k) * factor(t, formCost[LZ4]); s < bestScore {
				best, bestScore, lzSize = LZ4, s, k
			}
		}
	}

	e.write(v, m, choice{form: best, w: w, rb: rb, db: db, lw: lw, pb: pb, pe: pe, dpb: dpb, dpe: dpe, lzSize: lzSize})
	return best
}

// choice is a chunk's form and the parameters its encoding needs.
type choice struct {
	form      Form
	w, rb, db int // byte width, bit width of max-min, bit width of deltas
	lw        int // RunLength length width
	pb, pe    int // Patched low bits, exceptions
	dpb, dpe  int // PatchedDelta low bits, exceptions
	lzSize    int // LZ4: compressed bytes in e.lz
}

// write appends chunk v in the chosen form to e.body.
func (e *encoder) write(v []int64, m metrics, ch choice) {
	n := len(v)
	w, rb, db := ch.w, ch.rb, ch.db
	e.body = append(e.body, byte(ch.form))
	switch ch.form {
	case Constant:
		e.body = binary.LittleEndian.AppendUint64(e.body, uint64(m.min))
	case BytePack:
		e.body = binary.LittleEndian.AppendUint64(e.body, uint64(m.min))
		e.body = append(e.body, byte(w))
		e.body = putBytePack(e.body, v, m.min, w)
	case BitPack:
		e.body = binary.LittleEndian.AppendUint64(e.body, uint64(m.min))
		e.body = append(e.body, byte(rb))
		u := e.scratch(n)
		for i, x := range v {
			u[i] = uint64(x - m.min)
		}
		e.body = appendBits(e.body, u, rb)
	case Delta, PatchedDelta:
		e.body = binary.LittleEndian.AppendUint64(e.body, uint64(v[0]))
		e.body = binary.LittleEndian.AppendUint64(e.body, uint64(m.dmin))
		u := e.scratch(n - 1)
		for i := 1; i < n; i++ {
			u[i-1] = uint64(v[i] - v[i-1] - m.dmin)
		}
		if ch.form == Delta {
			e.body = append(e.body, byte(db))
			e.body = appendBits(e.body, u, db)
			break
		}
		e.body = append(e.body, byte(ch.dpb), byte(db-ch.dpb))
		e.body = binary.LittleEndian.AppendUint16(e.body, uint16(ch.dpe))
		e.body = e.appendPatchedBits(e.body, u, ch.dpb, db-ch.dpb)
	case RunLength:
		e.putRunLength(v, m, w, ch.lw)
	case Patched:
		e.putPatched(v, m.min, ch.pb, rb-ch.pb, ch.pe)
	case LZ4:
		e.body = binary.LittleEndian.AppendUint64(e.body, uint64(m.min))
		e.body = append(e.body, byte(w))
		e.body = append(e.body, e.lz[:ch.lzSize]...)
	case Raw:
		for _, x := range v {
			e.body = binary.LittleEndian.AppendUint64(e.body, uint64(x))
		}
	case Huffman:
		e.writeHuffman(v)
		e.usedHuffman = true
	}
}

func (e *encoder) scratch(n int) []uint64 {
	if cap(e.u) < n {
		e.u = make([]uint64, n)
	}
	return e.u[:n]
}

// putBytePack appends len(v) little-endian w-byte offsets from base and the
// 8-w zero padding bytes.
func putBytePack(dst []byte, v []int64, base int64, w int) []byte {
	at := len(dst)
	dst = append(dst, make([]byte, len(v)*w+8-w)...)
	out := dst[at:]
	// Each 8-byte store overwrites the previous value's unused high bytes;
	// the last one writes the zero padding.
	for i, x := range v {
		binary.LittleEndian.PutUint64(out[i*w:], uint64(x-base))
	}
	return dst
}

// pairTableSize is the largest repeat-detection table (a power of two).
const pairTableSize = 4096

// repeatedPairs counts positions i where the pair (v[i-1], v[i]) was seen
// before in the chunk (with a lossy direct-mapped table).
func (e *encoder) repeatedPairs(v []int64) int {
	size := 64
	for size < len(v) && size < pairTableSize {
		size <<= 1
	}
	if e.pairs == nil {
		e.pairs = new([pairTableSize]uint64)
	}
	tab := e.pairs
	clear(tab[:size])
	shift := 64 - uint(bitLen(uint64(size))-1)
	hits := 0
	for i := 1; i < len(v); i++ {
		k := (uint64(v[i-1])*0x9E3779B97F4A7C15 ^ uint64(v[i])) * 0xD6E8FEB86659FD93
		k |= 1 // never 0, so a cleared slot never matches
		h := k >> shift & (pairTableSize - 1)
		if tab[h] == k {
			hits++
		}
		tab[h] = k
	}
	return hits
}

func (e *encoder) putRunLength(v []int64, m metrics, vw, lw int) {
	b := binary.LittleEndian.AppendUint64(e.body, uint64(m.min))
	b = binary.LittleEndian.AppendUint16(b, uint16(m.runs-1))
	b = append(b, byte(vw), byte(lw))
	// Lengths (minus one), then values.
	start := 0
	for i := 1; i <= len(v); i++ {
		if i < len(v) && v[i] == v[start] {
			continue
		}
		l := i - start - 1
		if lw == 1 {
			b = append(b, byte(l))
		} else {
			b = binary.LittleEndian.AppendUint16(b, uint16(l))
		}
		start = i
	}
	at := len(b)
	b = append(b, make([]byte, m.runs*vw+8-vw)...)
	out := b[at:]
	j := 0
	for i, x := range v {
		if i == 0 || x != v[i-1] {
			binary.LittleEndian.PutUint64(out[j*vw:], uint64(x-m.min))
			j++
		}
	}
	e.body = b
}

func (e *encoder) putPatched(v []int64, base int64, b, hb, exc int) {
	out := binary.LittleEndian.AppendUint64(e.body, uint64(base))
	out = append(out, byte(b), byte(hb))
	out = binary.LittleEndian.AppendUint16(out, uint16(exc))
	u := e.scratch(len(v))
	for i, x := range v {
		u[i] = uint64(x - base)
	}
	e.body = e.appendPatchedBits(out, u, b, hb)
}

// appendPatchedBits appends the low b bits of every u as a packed stream,
// then the positions (u16 each) of the values with bits above b and those
// high parts packed in hb bits (wide enough for the widest). It overwrites u.
func (e *encoder) appendPatchedBits(out []byte, u []uint64, b, hb int) []byte {
	e.hi, e.pos = e.hi[:0], e.pos[:0]
	mask := lowMask(b)
	for i, d := range u {
		if h := d >> uint(b); h != 0 {
			e.hi = append(e.hi, h)
			e.pos = append(e.pos, i)
		}
		u[i] = d & mask
	}
	out = appendBits(out, u, b)
	for _, p := range e.pos {
		out = binary.LittleEndian.AppendUint16(out, uint16(p))
	}
	return appendBits(out, e.hi, hb)
}
