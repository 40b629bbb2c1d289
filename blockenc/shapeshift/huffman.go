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

// Literal candidates are counted exactly in an array below huffSmall, the
// small deltas and offsets of smooth chunks, and in a direct-mapped table
// of huffBig entries above, where a value evicts only a value seen once:
// an exact open-addressing hash table for all took half of the encoder's
// time on ALP's files. The counts of the large literals chosen are then
// made exact with one more pass.
const (
	huffSmall = 4096
	huffBig   = 512
)

// bigCount is an entry of the table of large residuals.
type bigCount struct {
	key uint64
	n   uint32 // 0: empty
	lit bool
}

func bigSlot(x uint64) uint { return uint(x*0x9E3779B97F4A7C15>>55) & (huffBig - 1) }

// huffScratch holds the encoder's buffers for Huffman trials.
type huffScratch struct {
	res    []uint64 // residuals
	cand   []uint64 // literal candidates
	plan   huffPlan // the best plan so far
	try    huffPlan
	syms   []uint16
	nodes  []huffNode
	cnt    *[huffSmall]uint16 // counts of the small residuals (saturating)
	big    *[huffBig]bigCount // counts of large residuals
	litIdx *[huffSmall]uint8  // writeHuffman: literal index + 1 of a small residual
	limit  float64            // the size a plan must come under
	nres   int                // residuals of the mode tried
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
// than two symbols). The size is exact but for the code streams' padding
// (at most huffStreams bytes more).
//
// Variants that cannot come under limit bytes (every code takes a bit at
// least) are not built.
func (e *encoder) huffTrial(v []int64, m metrics, limit float64) (int, bool) {
	hs := &e.hs
	hs.plan.valid = false
	hs.limit = limit
	if hs.cnt == nil {
		hs.cnt, hs.big = new([huffSmall]uint16), new([huffBig]bigCount)
	}
	cnt, big := hs.cnt, hs.big
	for mode := huffOffsets; mode <= huffDeltas; mode++ {
		base := m.min
		if mode == huffDeltas {
			base = v[0]
			if m.dmin == m.dmax {
				continue // Delta stores it in no bits
			}
		}
		r := hs.residuals(v, mode, base)
		hs.nres = len(r)
		// The histogram of bit lengths first: without literals, every
		// residual costs its bucket bits and a bit of code at least. A
		// mode whose bound exceeds huffLitReach times the limit is not
		// worth counting literals for.
		hist := bucketHist(r)
		e.huffTry(mode, base, nil, hist[:])
		if lb := hdrHuffman + (len(r)+bucketBits(hist[:]))/8; float64(lb) >= huffLitReach*limit {
			continue
		}
		// The counts of the small residuals, with those seen twice as
		// literal candidates.
		clear(cnt[:])
		clear(big[:])
		hs.cand = hs.cand[:0]
		for _, x := range r {
			if x < huffSmall {
				c := cnt[x]
				if c == 1 {
					hs.cand = append(hs.cand, x)
				}
				if c < 0xffff {
					cnt[x] = c + 1
				}
				continue
			}
			b := &big[bigSlot(x)]
			switch {
			case b.key == x && b.n > 0:
				b.n++
				if b.n == 2 {
					hs.cand = append(hs.cand, x)
				}
			case b.n <= 1:
				b.key, b.n = x, 1
			}
		}
		lits := hs.literals()
		if len(lits) == 0 {
			continue
		}
		if lits[len(lits)-1] >= huffSmall {
			hs.exactBig(r, lits)
		}
		for _, x := range lits {
			hist[bucketOf(x)] -= hs.count(x)
		}
		e.huffTry(mode, base, lits, hist[:])
	}
	return hs.plan.size, hs.plan.valid
}

// count returns the count of a literal candidate.
func (hs *huffScratch) count(x uint64) int {
	if x < huffSmall {
		return int(hs.cnt[x])
	}
	return int(hs.big[bigSlot(x)].n)
}

// exactBig recounts the large literals exactly (the table can have
// missed occurrences before one became a candidate). A candidate's entry
// stays: only entries seen once are evicted.
func (hs *huffScratch) exactBig(r, lits []uint64) {
	big := hs.big
	for _, x := range lits {
		if x >= huffSmall {
			b := &big[bigSlot(x)]
			b.n, b.lit = 0, true
		}
	}
	for _, x := range r {
		if x >= huffSmall {
			if b := &big[bigSlot(x)]; b.lit && b.key == x {
				b.n++
			}
		}
	}
}

// literals returns the up to huffLits most frequent candidates (ties: the
// order in which they reached two, which depends only on the residuals),
// sorted ascending.
func (hs *huffScratch) literals() []uint64 {
	cand := hs.cand
	if len(cand) > huffLits {
		// The count threshold t that keeps at most huffLits candidates:
		// counts >= t all, then count t-1 in order (counts of 16 or more
		// are taken as 16).
		var byCount [17]int
		for _, x := range cand {
			byCount[min(hs.count(x), 16)]++
		}
		t, kept := 17, 0
		for t > 2 && kept+byCount[t-1] <= huffLits {
			t--
			kept += byCount[t]
		}
		room := huffLits - kept
		out := cand[:0]
		for _, x := range cand {
			switch c := min(hs.count(x), 16); {
			case c >= t:
			case c == t-1 && room > 0:
				room--
			default:
				continue
			}
			out = append(out, x)
		}
		cand = out
	}
	slices.Sort(cand)
	return cand
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
	for k, x := range lits {
		cnt[k] = hs.count(x)
	}
	extra := bucketBits(hist[:nb])
	for c := range nb {
		cnt[nl+c] = hist[c]
	}
	nsym := nl + nb
	if lb := hdrHuffman + (hs.nres+extra)/8; float64(lb) >= hs.limit || hs.plan.valid && lb >= hs.plan.size {
		return
	}
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

// bucketHist returns the histogram of the residuals' bit lengths, counted
// in four histograms so that runs of one length do not wait on the same
// counter's last increment (one histogram took 5 times as long).
func bucketHist(r []uint64) [65]int {
	var h [4][65]int32
	i := 0
	for ; i+4 <= len(r); i += 4 {
		x := (*[4]uint64)(r[i : i+4])
		h[0][bits.Len64(x[0])]++
		h[1][bits.Len64(x[1])]++
		h[2][bits.Len64(x[2])]++
		h[3][bits.Len64(x[3])]++
	}
	for ; i < len(r); i++ {
		h[0][bits.Len64(r[i])]++
	}
	var hist [65]int
	for c := range hist {
		hist[c] = int(h[0][c]) + int(h[1][c]) + int(h[2][c]) + int(h[3][c])
	}
	return hist
}

// bucketBits is the number of bucket bits of the residuals in hist.
func bucketBits(hist []int) int {
	n := 0
	for c, k := range hist {
		n += k * bucketExtra(c)
	}
	return n
}

// huffLitReach: literals are counted for a mode only when its size without
// them could be within this factor of the limit. On ALP's files 1.5 keeps
// every gain that literals bring (1.2 loses ssd_hdd_benchmarks_f's, whose
// 28 distinct values take 3.9 bits a value as literals, 14 without).
var huffLitReach = 1.5

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
		// Leaves by weight (ties by symbol): sorted as weight<<9 | symbol
		// keys, which slices.Sort does 4x faster than a SortFunc of nodes.
		var keys [huffMaxSyms]uint64
		nk := 0
		for s, k := range w[:len(cnt)] {
			if k > 0 {
				keys[nk] = uint64(k)<<9 | uint64(s)
				nk++
			}
		}
		slices.Sort(keys[:nk])
		nodes = nodes[:0]
		for _, k := range keys[:nk] {
			nodes = append(nodes, huffNode{w: int(k >> 9), sym: int(k & 511), l: -1, r: -1})
		}
		leaves := len(nodes)
		// Two-queue merging.
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
		if hs.litIdx == nil {
			hs.litIdx = new([huffSmall]uint8)
		}
		idx := hs.litIdx
		for k, x := range p.lits {
			if x < huffSmall {
				idx[x] = uint8(k + 1)
			}
		}
		// Large literals are found by binary search.
		large := p.lits[:0:0]
		if k, _ := slices.BinarySearch(p.lits, huffSmall); k < nl {
			large = p.lits[k:]
		}
		first := nl - len(large)
		for i, x := range r {
			switch {
			case x < huffSmall && idx[x] != 0:
				syms[i] = uint16(idx[x] - 1)
			case x >= huffSmall && len(large) > 0:
				if k, ok := slices.BinarySearch(large, x); ok {
					syms[i] = uint16(first + k)
					break
				}
				fallthrough
			default:
				syms[i] = uint16(nl + bucketOf(x))
			}
		}
		for _, x := range p.lits {
			if x < huffSmall {
				idx[x] = 0
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

// put appends the low k bits of x (k <= 56, higher bits zero), whole
// 32-bit words at a time.
func (w *bitWriter) put(x uint64, k uint) {
	if k > 32 {
		w.put(x&(1<<32-1), 32)
		x, k = x>>32, k-32
	}
	w.acc |= x << w.n
	w.n += k
	if w.n >= 32 {
		w.b = binary.LittleEndian.AppendUint32(w.b, uint32(w.acc))
		w.acc >>= 32
		w.n -= 32
	}
}

// flush appends the bits held, zero-padded to a byte.
func (w *bitWriter) flush() {
	for w.n > 0 {
		w.b = append(w.b, byte(w.acc))
		w.acc >>= 8
		w.n -= min(w.n, 8)
	}
	w.acc = 0
}
