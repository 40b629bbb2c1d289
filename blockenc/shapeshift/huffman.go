package shapeshift

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// The Huffman integer form (float columns, version 4): each value's
// residual (its offset from the chunk's minimum, or the zigzag of its
// delta) is one symbol of a canonical Huffman code, either a literal (one
// of the chunk's frequent residuals, listed in the chunk) or a bucket
// (residuals of one bit length, followed by their bits below the leading
// one). The codes go in four streams, each of a quarter of the residuals,
// and the bucket bits in a fifth: decoding the codes is a table lookup and
// a shift per value in four independent chains, and the bits a load, a
// shift and a mask.

const (
	// hdrHuffman: form, mode, base, literals, buckets, the bytes of each
	// code stream.
	hdrHuffman = 1 + 1 + 8 + 1 + 1 + 2*huffStreams
	// huffStreams is the number of code streams: stream s holds the codes
	// of residuals [s*r/4, (s+1)*r/4) of r, so that a decoder can follow
	// four streams at once.
	huffStreams = 4
	// huffMaxCode is the longest code: with it a 56-bit buffer holds 5 codes.
	huffMaxCode = 11
	// huffMaxBucket is the largest bucket: residuals below 2^46 that are
	// not literals.
	huffMaxBucket = 46
	// huffMaxSyms bounds literals plus buckets (255 + 47).
	huffMaxSyms = 255 + huffMaxBucket + 1
	// huffLits is the most literals the encoder lists (the format allows
	// 255): beyond 64 they gained less than 0.1 bit per value on ALP's
	// files.
	huffLits = 64
)

// Residual modes of a Huffman chunk; part of the format, never reuse.
const (
	huffOffsets = 0 // residual j = value j - base (the minimum)
	huffDeltas  = 1 // residual j = zigzag(value j+1 - value j), base = value 0
)

func zigzag(d int64) uint64   { return uint64(d<<1) ^ uint64(d>>63) }
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// bucketOf is the bucket of a residual that is not a literal: its bit length.
func bucketOf(r uint64) int { return bits.Len64(r) }

// bucketExtra is the number of bits stored after a bucket's code.
func bucketExtra(c int) int { return max(c-1, 0) }

// huffPlan is a Huffman chunk's parameters, from huffTrial to writeHuffman.
type huffPlan struct {
	mode  int
	base  int64
	lits  []uint64 // ascending
	nb    int      // buckets 0..nb-1
	lens  [huffMaxSyms]uint8
	size  int // encoded bytes, form byte included
	valid bool
}

// huffCounter counts residuals exactly in an open-addressing table.
type huffCounter struct {
	keys  []uint64
	cnts  []uint32
	shift uint
}

func (h *huffCounter) reset(n int) {
	size := 64
	for size < 2*n {
		size <<= 1
	}
	if cap(h.keys) < size {
		h.keys, h.cnts = make([]uint64, size), make([]uint32, size)
	}
	h.keys, h.cnts = h.keys[:size], h.cnts[:size]
	clear(h.cnts)
	h.shift = uint(64 - bits.TrailingZeros(uint(size)))
}

// slot returns the slot of key k, empty (count 0) if k is not in the table.
func (h *huffCounter) slot(k uint64) int {
	mask := len(h.cnts) - 1
	i := int((k*0x9E3779B97F4A7C15)>>h.shift) & mask
	for h.cnts[i] != 0 && h.keys[i] != k {
		i = (i + 1) & mask
	}
	return i
}

func (h *huffCounter) add(k uint64) {
	i := h.slot(k)
	h.keys[i] = k
	h.cnts[i]++
}

// huffScratch holds the encoder's buffers for Huffman trials.
type huffScratch struct {
	res   []uint64 // residuals
	cnt   huffCounter
	cand  []uint64 // literal candidates
	plan  huffPlan // the best plan so far
	try   huffPlan
	syms  []uint16
	nodes []huffNode
}

type huffNode struct {
	w   int
	sym int // leaf symbol, or -1
	l   int // children of an inner node, as indexes in nodes
	r   int
}

// residuals computes the chunk's residuals in the mode into hs.res.
func (hs *huffScratch) residuals(v []int64, mode int, min int64) []uint64 {
	n := len(v)
	if mode == huffDeltas {
		n--
	}
	if cap(hs.res) < n {
		hs.res = make([]uint64, n)
	}
	r := hs.res[:n]
	if mode == huffOffsets {
		for i, x := range v {
			r[i] = uint64(x - min)
		}
	} else {
		for i := range r {
			r[i] = zigzag(v[i+1] - v[i])
		}
	}
	return r
}

// huffTrial sets e.hs.plan to the smallest Huffman encoding of chunk v
// (offsets or deltas, with or without literals) and returns its size, or
// false if none is possible (a residual too wide for a bucket, or fewer
// than two symbols).
func (e *encoder) huffTrial(v []int64, m metrics) (int, bool) {
	hs := &e.hs
	hs.plan.valid = false
	for mode := huffOffsets; mode <= huffDeltas; mode++ {
		base := m.min
		if mode == huffDeltas {
			base = v[0]
			if m.dmin == m.dmax {
				continue // Delta stores it in no bits
			}
		}
		r := hs.residuals(v, mode, base)
		// Without literals: a histogram of bit lengths.
		var hist [65]int
		for _, x := range r {
			hist[bucketOf(x)]++
		}
		e.huffTry(mode, base, nil, hist[:])
		// With literals: the most frequent residuals seen at least twice.
		lits := hs.literals(r)
		if len(lits) == 0 {
			continue
		}
		clear(hist[:])
		for _, x := range r {
			if s := hs.cnt.slot(x); hs.cnt.cnts[s] > 0 && hs.isLit(s) {
				continue
			}
			hist[bucketOf(x)]++
		}
		e.huffTry(mode, base, lits, hist[:])
	}
	return hs.plan.size, hs.plan.valid
}

// litMark is set in a counter slot's count to mark a literal.
const litMark = 1 << 31

func (hs *huffScratch) isLit(slot int) bool { return hs.cnt.cnts[slot]&litMark != 0 }

// literals counts r and returns the up to huffLits most frequent residuals
// that occur at least twice (ties: the table's order, which depends only
// on the residuals), sorted ascending; it marks them in the counter.
func (hs *huffScratch) literals(r []uint64) []uint64 {
	c := &hs.cnt
	c.reset(len(r))
	for _, x := range r {
		c.add(x)
	}
	// The count threshold t that keeps at most huffLits candidates.
	var byCount [17]int // counts 2..15 exactly, 16+ together
	for _, k := range c.cnts {
		if k >= 2 {
			byCount[min(k, 16)]++
		}
	}
	t, kept := 17, 0
	for t > 2 && kept+byCount[t-1] <= huffLits {
		t--
		kept += byCount[t]
	}
	// Counts >= t are all kept; fill up with count t-1 (if t > 2).
	hs.cand = hs.cand[:0]
	room := huffLits - kept
	for i, k := range c.cnts {
		switch {
		case k >= 2 && min(k, 16) >= uint32(t):
		case t > 2 && min(k, 16) == uint32(t-1) && room > 0:
			room--
		default:
			continue
		}
		if len(hs.cand) == huffLits {
			break
		}
		hs.cand = append(hs.cand, c.keys[i])
		c.cnts[i] |= litMark
	}
	slices.Sort(hs.cand)
	return hs.cand
}

// huffTry builds the code for residuals r with the literals lits and the
// bucket histogram hist (of the residuals that are not literals) and keeps
// it in hs.plan if it is the smallest so far.
func (e *encoder) huffTry(mode int, base int64, lits []uint64, hist []int) {
	hs := &e.hs
	nb := 0
	for c := len(hist) - 1; c >= 0; c-- {
		if hist[c] > 0 {
			nb = c + 1
			break
		}
	}
	if nb > huffMaxBucket+1 {
		return
	}
	p := &hs.try
	nl := len(lits)
	var cnt [huffMaxSyms]int
	if nl > 0 {
		for k := range nl {
			s := hs.cnt.slot(lits[k])
			cnt[k] = int(hs.cnt.cnts[s] &^ litMark)
		}
	}
	extra := 0
	for c := range nb {
		cnt[nl+c] = hist[c]
		extra += hist[c] * bucketExtra(c)
	}
	nsym := nl + nb
	used := 0
	for _, k := range cnt[:nsym] {
		if k > 0 {
			used++
		}
	}
	if used < 2 {
		return
	}
	hs.nodes = huffLengths(p.lens[:nsym], cnt[:nsym], hs.nodes)
	codeBits := 0
	for s, k := range cnt[:nsym] {
		codeBits += k * int(p.lens[s])
	}
	// The code streams are whole bytes each: at most huffStreams bytes
	// more than the code bits (a bound, not the exact size).
	size := hdrHuffman + litBytes(lits) + (nsym+1)/2 + codeBits/8 + huffStreams + (extra+7)/8
	if hs.plan.valid && size >= hs.plan.size {
		return
	}
	p.mode, p.base, p.nb, p.size, p.valid = mode, base, nb, size, true
	p.lits = append(p.lits[:0], lits...)
	hs.plan, hs.try = hs.try, hs.plan
}

// litBytes is the size of the literal list: uvarints of the first literal
// and of each gap minus one.
func litBytes(lits []uint64) int {
	n := 0
	for k, x := range lits {
		if k > 0 {
			x -= lits[k-1] + 1
		}
		n += uvarintLen(x)
	}
	return n
}

func uvarintLen(x uint64) int { return (bits.Len64(x|1) + 6) / 7 }

// huffLengths sets lens[s] to the code length of each symbol of count
// cnt[s] (0 for count 0): Huffman's, with counts halved (rounding up)
// until no code is longer than huffMaxCode. At least two counts are
// nonzero. It returns nodes for reuse.
func huffLengths(lens []uint8, cnt []int, nodes []huffNode) []huffNode {
	var w [huffMaxSyms]int
	copy(w[:], cnt)
	for {
		nodes = nodes[:0]
		for s, k := range w[:len(cnt)] {
			if k > 0 {
				nodes = append(nodes, huffNode{w: k, sym: s, l: -1, r: -1})
			}
		}
		leaves := len(nodes)
		// Leaves by weight (ties by symbol), then two-queue merging.
		slices.SortFunc(nodes, func(a, b huffNode) int {
			if a.w != b.w {
				return a.w - b.w
			}
			return a.sym - b.sym
		})
		qi, ii := 0, leaves // next leaf, next inner node
		pick := func() int {
			if qi < leaves && (ii >= len(nodes) || nodes[qi].w <= nodes[ii].w) {
				qi++
				return qi - 1
			}
			ii++
			return ii - 1
		}
		for k := 1; k < leaves; k++ {
			a := pick()
			b := pick()
			nodes = append(nodes, huffNode{w: nodes[a].w + nodes[b].w, sym: -1, l: a, r: b})
		}
		// Depths, from the root down (inner nodes come after their children).
		var depth [2*huffMaxSyms - 1]uint8
		longest := 0
		for k := len(nodes) - 1; k >= leaves; k-- {
			d := depth[k] + 1
			depth[nodes[k].l], depth[nodes[k].r] = d, d
		}
		clear(lens)
		for k := range leaves {
			lens[nodes[k].sym] = depth[k]
			longest = max(longest, int(depth[k]))
		}
		if longest <= huffMaxCode {
			return nodes
		}
		for s, k := range w[:len(cnt)] {
			if k > 0 {
				w[s] = (k + 1) / 2
			}
		}
	}
}

// huffCodes sets codes[s] to symbol s's canonical code (codes assigned in
// order of length, then symbol), bit-reversed so that its first bit is
// the lowest: the stream is read least significant bit first. It returns
// false if the lengths over-subscribe or do not fill the code space.
func huffCodes(codes []uint16, lens []uint8) bool {
	var count [huffMaxCode + 1]int
	for _, l := range lens {
		count[l]++
	}
	count[0] = 0
	var next [huffMaxCode + 2]int
	code, space := 0, 1<<huffMaxCode
	for l := 1; l <= huffMaxCode; l++ {
		code = (code + count[l-1]) << 1
		next[l] = code
		space -= count[l] << (huffMaxCode - l)
	}
	if space != 0 {
		return false
	}
	for s, l := range lens {
		if l == 0 {
			continue
		}
		c := next[l]
		next[l]++
		codes[s] = uint16(bits.Reverse16(uint16(c)) >> (16 - l))
	}
	return true
}

// writeHuffman appends chunk v's payload as planned in e.hs.plan.
func (e *encoder) writeHuffman(v []int64) {
	hs := &e.hs
	p := &hs.plan
	r := hs.residuals(v, p.mode, p.base)
	nl := len(p.lits)
	nsym := nl + p.nb
	var codes [huffMaxSyms]uint16
	huffCodes(codes[:nsym], p.lens[:nsym])
	// Symbols: literals through the counter when there are any.
	if cap(hs.syms) < len(r) {
		hs.syms = make([]uint16, len(r))
	}
	syms := hs.syms[:len(r)]
	if nl > 0 {
		c := &hs.cnt
		c.reset(nl)
		for k, x := range p.lits {
			s := c.slot(x)
			c.keys[s], c.cnts[s] = x, uint32(k+1)
		}
		for i, x := range r {
			if s := c.slot(x); c.cnts[s] != 0 {
				syms[i] = uint16(c.cnts[s] - 1)
			} else {
				syms[i] = uint16(nl + bucketOf(x))
			}
		}
	} else {
		for i, x := range r {
			syms[i] = uint16(bucketOf(x))
		}
	}
	b := append(e.body, byte(p.mode)) // after the form byte
	b = binary.LittleEndian.AppendUint64(b, uint64(p.base))
	b = append(b, byte(nl), byte(p.nb))
	clenAt := len(b)
	b = append(b, make([]byte, 2*huffStreams)...)
	for k, x := range p.lits {
		if k > 0 {
			x -= p.lits[k-1] + 1
		}
		b = binary.AppendUvarint(b, x)
	}
	for s := 0; s < nsym; s += 2 {
		x := p.lens[s]
		if s+1 < nsym {
			x |= p.lens[s+1] << 4
		}
		b = append(b, x)
	}
	// Code stream, then bucket bits.
	var w bitWriter
	w.b = b
	for k := range huffStreams {
		codeAt := len(w.b)
		for _, s := range syms[k*len(syms)/huffStreams : (k+1)*len(syms)/huffStreams] {
			w.put(uint64(codes[s]), uint(p.lens[s]))
		}
		w.flush()
		binary.LittleEndian.PutUint16(w.b[clenAt+2*k:], uint16(len(w.b)-codeAt))
	}
	for i, s := range syms {
		if c := int(s) - nl; c >= 2 {
			w.put(r[i]&lowMask(c-1), uint(c-1))
		}
	}
	w.flush()
	e.body = w.b
}

// bitWriter appends bits least significant first.
type bitWriter struct {
	b   []byte
	acc uint64
	n   uint
}

// put appends the low k bits of x (k <= 56, higher bits zero).
func (w *bitWriter) put(x uint64, k uint) {
	w.acc |= x << w.n
	w.n += k
	for w.n >= 8 {
		w.b = append(w.b, byte(w.acc))
		w.acc >>= 8
		w.n -= 8
	}
}

// flush appends the bits held, zero-padded to a byte.
func (w *bitWriter) flush() {
	if w.n > 0 {
		w.b = append(w.b, byte(w.acc))
	}
	w.acc, w.n = 0, 0
}
