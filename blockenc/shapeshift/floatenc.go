package shapeshift

import (
	"encoding/binary"
	"math"
	"slices"
)

// Float chunk headers: the form byte plus the form's fixed fields.
const (
	hdrDecimal   = 1 + 1 + 1 + 2 // e, f, exceptions
	hdrFrontBits = 1 + 1 + 1     // left bits, dictionary size (then the dictionary)
	maxLeftBits  = 16            // FrontBits: left parts are at most 16 bits
	maxDict      = 8             // FrontBits: at most 8 dictionary entries
)

// floatScratch holds an encoder's buffers for float chunks.
type floatScratch struct {
	vals   []float64 // float32 values widened
	bits   []uint64  // bit patterns of a chunk
	ints   []int64   // a chunk's integers (decimals, dictionary indexes)
	right  []int64   // FrontBits right parts
	excPos []int     // exception positions
	excVal []uint64  // exception values (Decimal) or left parts (FrontBits)
	sample []uint64  // sorted sample of bit patterns (FrontBits)
	runs   []int     // FrontBits: run lengths of the sample's left parts
}

// encodeFloats encodes values (w = 8) or values32 (w = 4) as a version 3
// column.
func encodeFloats(dst []byte, values []float64, values32 []float32, w int, opts Options) []byte {
	n := len(values)
	if w == 4 {
		n = len(values32)
	}
	if n > MaxLen {
		panic("shapeshift: Encode of more than MaxLen values")
	}
	o := opts.normalizedFloat()
	e := encoderPool.Get().(*encoder)
	defer func() {
		if cap(e.body) <= maxPooledBody {
			encoderPool.Put(e)
		}
	}()
	e.target = o.Target
	e.body = e.body[:0]
	e.huffman, e.usedHuffman = true, false
	fs := &e.fs
	size := 1 << uint(o.LogChunkSize)
	nChunks := (n + size - 1) / size
	if cap(fs.bits) < min(n, size) {
		fs.bits = make([]uint64, min(n, size))
		fs.vals = make([]float64, min(n, size))
	}
	var comp [numForms]int
	start := len(dst)
	dst = append(dst, 3, byte(w))
	dst = binary.AppendUvarint(dst, uint64(n))
	dst = append(dst, byte(o.LogChunkSize))
	ends := e.ends[:0]
	for c := 0; c < nChunks; c++ {
		lo, hi := c*size, min((c+1)*size, n)
		bits := fs.bits[:hi-lo]
		var vals []float64
		if w == 8 {
			vals = values[lo:hi]
			for i, v := range vals {
				bits[i] = math.Float64bits(v)
			}
		} else {
			vals = fs.vals[:hi-lo]
			for i, v := range values32[lo:hi] {
				bits[i] = uint64(math.Float32bits(v))
				vals[i] = float64(v)
			}
		}
		f := e.encodeFloatChunk(vals, bits, w)
		comp[f]++
		ends = append(ends, uint32(len(e.body)))
	}
	e.ends = ends
	if e.usedHuffman {
		dst[start] = 4
	}
	dst = appendColumn(dst, start, &comp, ends, e.body)
	if invariants {
		checkFloatRoundTrip(dst[start:], values, values32, w)
	}
	return dst
}

// encodeFloatChunk appends the smallest of the Decimal, FrontBits and Raw
// encodings of a chunk to e.body.
func (e *encoder) encodeFloatChunk(vals []float64, bits []uint64, w int) Form {
	n := len(vals)
	start := len(e.body)
	best, bestSize := Raw, hdrRaw+n*w
	// Whether the column so far, and the kept candidate, have a Huffman chunk.
	column, kept := e.usedHuffman, false
	defer func() { e.usedHuffman = column || kept }()
	e.usedHuffman = false
	if ex, fx, ok := e.pickDecimal(vals, bits, w); ok && e.writeDecimal(vals, bits, w, ex, fx) {
		if size := len(e.body) - start; size < bestSize {
			best, bestSize, kept = Decimal, size, e.usedHuffman
		} else {
			e.body = e.body[:start]
		}
	}
	// FrontBits stores at least 8w-16 bits per value: try it only when it
	// can win.
	if bestSize > n*(8*w-maxLeftBits)/8 {
		at := len(e.body)
		e.usedHuffman = false
		e.writeFrontBits(bits, w)
		if size := len(e.body) - at; size < bestSize {
			e.body = append(e.body[:start], e.body[at:]...)
			best, bestSize, kept = FrontBits, size, e.usedHuffman
		} else {
			e.body = e.body[:at]
		}
	}
	if best == Raw {
		kept = false
		e.body = append(e.body[:start], byte(Raw))
		for _, b := range bits {
			if w == 8 {
				e.body = binary.LittleEndian.AppendUint64(e.body, b)
			} else {
				e.body = binary.LittleEndian.AppendUint32(e.body, uint32(b))
			}
		}
	}
	return best
}

// floatSamples is the number of values a chunk samples to pick its
// exponent and factor (ALP samples 32 values per 1024-value vector); a
// chunk of n values samples max(floatSamples, n/32) of them.
const floatSamples = 32

// maxSamples bounds the sample of a chunk.
const maxSamples = 256

// samplePositions calls fn with equidistant positions of a chunk of n
// values: max(floatSamples, n/32) of them, at most maxSamples and n.
func samplePositions(n int, fn func(i int)) {
	s := min(n, maxSamples, max(floatSamples, n/32))
	for k := 0; k < s; k++ {
		fn(k * n / s)
	}
}

// pickDecimal chooses the exponent and factor of a Decimal chunk from a
// sample. Each sampled value has a number of decimal digits k (after the
// point, 0..18: the fewest that name it exactly); each k found is a
// candidate, with the sampled values that need more as exceptions. For a
// candidate k, every pair (e, f = e-k) gives the same integers but rounds
// differently on the way back: the exponents are tried in exponentOrder
// until one brings every sampled value back, and the one with the fewest
// that do not is kept. The candidate
// with the smallest estimated size wins: the bits of its integers' range
// plus, for every sampled value that does not come back, a position and a
// raw value. Trailing zeros that all the integers share go into f. ok is
// false when most sampled values are not decimals.
func (e *encoder) pickDecimal(vals []float64, bits []uint64, w int) (ex, fx int, ok bool) {
	var cnt [noDecimal + 1]int
	var sv [maxSamples]float64
	var sb [maxSamples]uint64
	var sk [maxSamples]int8
	s := 0
	samplePositions(len(vals), func(i int) {
		v := vals[i]
		k := decimalDigits(v)
		sv[s], sb[s], sk[s] = v, bits[i], int8(k)
		cnt[k]++
		s++
	})
	// With most of the sample exceptions (80 bits each for float64),
	// Decimal cannot beat FrontBits.
	if 2*cnt[noDecimal] > s {
		return 0, 0, false
	}
	bestCost := math.MaxInt
	for k := 0; k < noDecimal; k++ {
		if cnt[k] == 0 {
			continue
		}
		bestE, bestExc := k, s+1
		for _, e := range exponentOrder {
			if int(e) < k || bestExc == 0 {
				continue
			}
			exc := 0
			pf, ne := pow10[int(e)-k], negPow10[e]
			for q := 0; q < s && exc < bestExc; q++ {
				if int(sk[q]) > k {
					exc++
					continue
				}
				x, in := toDecimal(sv[q], pow10[k], 1)
				if !in || !sameBits(decimal(x, pf, ne), sb[q], w) {
					exc++
				}
			}
			if exc < bestExc {
				bestE, bestExc = int(e), exc
			}
		}
		if bestExc == s {
			continue
		}
		// The integers' range and shared trailing zeros.
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		zeros := maxExp - (bestE - k)
		for q := 0; q < s; q++ {
			if int(sk[q]) > k {
				continue
			}
			x, _ := toDecimal(sv[q], pow10[k], 1)
			lo, hi = min(lo, x), max(hi, x)
			if zeros > 0 && x != 0 {
				zeros = decimalZeros(x, zeros)
			}
		}
		div := int64(pow10[zeros])
		cost := s*bitLen(uint64(hi/div-lo/div)) + bestExc*(16+8*w)
		if cost < bestCost {
			bestCost, ex, fx, ok = cost, bestE, bestE-k+zeros, true
		}
	}
	return ex, fx, ok
}

// exponentOrder is the order in which pickDecimal tries exponents: most
// decimals of up to 14 significant digits come back exactly with e = 14
// (x * 10^(14-k) * 10^-14), far fewer with e = k (x * 10^-k).
var exponentOrder = [maxExp + 1]int8{14, 13, 15, 12, 16, 11, 17, 10, 18, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}

// decimalDigits returns the fewest decimal digits after the point that
// name v exactly (the nearest double to round(v*10^k)/10^k is v), or
// noDecimal.
func decimalDigits(v float64) int {
	for k := 0; k <= maxExp; k++ {
		x, ok := toDecimal(v, pow10[k], 1)
		if !ok {
			break
		}
		if float64(x)/pow10[k] == v && (x != 0 || !math.Signbit(v)) {
			return k
		}
	}
	return noDecimal
}

// writeDecimal appends a Decimal chunk with exponent ex and factor fx.
// Values that do not come back are exceptions; their integers repeat the
// previous integer (the next one before the first), which costs the
// integer forms least. It writes nothing and returns false if no value
// comes back.
func (e *encoder) writeDecimal(vals []float64, bits []uint64, w, ex, fx int) bool {
	fs := &e.fs
	n := len(vals)
	if cap(fs.ints) < n {
		fs.ints = make([]int64, n)
	}
	ints := fs.ints[:n]
	fs.excPos, fs.excVal = fs.excPos[:0], fs.excVal[:0]
	pe, nf, pf, ne := pow10[ex], negPow10[fx], pow10[fx], negPow10[ex]
	var last int64
	first := -1
	for i, v := range vals {
		if x, in := toDecimal(v, pe, nf); in && sameBits(decimal(x, pf, ne), bits[i], w) {
			ints[i], last = x, x
			if first < 0 {
				first = i
			}
			continue
		}
		ints[i] = last
		fs.excPos = append(fs.excPos, i)
		fs.excVal = append(fs.excVal, bits[i])
	}
	if first < 0 {
		return false
	}
	fill(ints[:first], ints[first])
	e.body = append(e.body, byte(Decimal), byte(ex), byte(fx))
	e.body = binary.LittleEndian.AppendUint16(e.body, uint16(len(fs.excPos)))
	e.body = appendPositions(e.body, fs.excPos)
	for _, b := range fs.excVal {
		if w == 8 {
			e.body = binary.LittleEndian.AppendUint64(e.body, b)
		} else {
			e.body = binary.LittleEndian.AppendUint32(e.body, uint32(b))
		}
	}
	e.encodeChunk(ints)
	return true
}

func appendPositions(dst []byte, pos []int) []byte {
	for _, p := range pos {
		dst = binary.LittleEndian.AppendUint16(dst, uint16(p))
	}
	return dst
}

// writeFrontBits appends a FrontBits chunk (ALP_rd): each bit pattern is
// split into its top l bits and the 8w-l bits below. The left parts go
// through a dictionary of their (up to 8) most frequent values in a sample;
// the others are exceptions. The cut l minimises the sample's estimated
// size.
func (e *encoder) writeFrontBits(bits []uint64, w int) {
	fs := &e.fs
	n := len(bits)
	fs.sample = fs.sample[:0]
	samplePositions(n, func(i int) { fs.sample = append(fs.sample, bits[i]) })
	slices.Sort(fs.sample)
	tb := 8 * w
	bestL, bestCost := 0, math.MaxInt
	for l := 1; l <= maxLeftBits; l++ {
		rb := uint(tb - l)
		fs.runs = sampleRuns(fs.runs[:0], fs.sample, rb)
		kept, d := topRuns(fs.runs)
		exc := len(fs.sample) - kept
		cost := len(fs.sample)*(int(rb)+bitLen(uint64(d-1))) + exc*32
		if cost < bestCost {
			bestL, bestCost = l, cost
		}
	}
	rb := uint(tb - bestL)
	dictArr, nd := frontDict(fs.sample, rb)
	dict := dictArr[:nd]

	if cap(fs.ints) < n {
		fs.ints = make([]int64, n)
	}
	if cap(fs.right) < n {
		fs.right = make([]int64, n)
	}
	idx, right := fs.ints[:n], fs.right[:n]
	fs.excPos, fs.excVal = fs.excPos[:0], fs.excVal[:0]
	mask := lowMask(int(rb))
	prev := int64(0)
	for i, b := range bits {
		right[i] = int64(b & mask)
		left := b >> rb
		k := slices.Index(dict, left)
		if k < 0 {
			fs.excPos = append(fs.excPos, i)
			fs.excVal = append(fs.excVal, left)
			idx[i] = prev
			continue
		}
		idx[i], prev = int64(k), int64(k)
	}
	e.body = append(e.body, byte(FrontBits), byte(bestL), byte(len(dict)))
	for _, d := range dict {
		e.body = binary.LittleEndian.AppendUint16(e.body, uint16(d))
	}
	e.body = binary.LittleEndian.AppendUint16(e.body, uint16(len(fs.excPos)))
	e.body = appendPositions(e.body, fs.excPos)
	for _, l := range fs.excVal {
		e.body = binary.LittleEndian.AppendUint16(e.body, uint16(l))
	}
	at := len(e.body)
	e.body = append(e.body, 0, 0, 0, 0) // index chunk length
	e.encodeChunk(idx)
	binary.LittleEndian.PutUint32(e.body[at:], uint32(len(e.body)-at-4))
	e.encodeChunk(right)
}

// sampleRuns appends the lengths of the runs of equal left parts (bits
// above rb) of the sorted sample.
func sampleRuns(runs []int, sample []uint64, rb uint) []int {
	for i := 0; i < len(sample); {
		j := i + 1
		for j < len(sample) && sample[j]>>rb == sample[i]>>rb {
			j++
		}
		runs = append(runs, j-i)
		i = j
	}
	return runs
}

// topRuns returns how many sampled values the maxDict longest runs hold and
// how many runs that is.
func topRuns(runs []int) (kept, d int) {
	var top [maxDict]int // descending
	for _, r := range runs {
		if r <= top[maxDict-1] {
			continue
		}
		k := maxDict - 1
		for k > 0 && top[k-1] < r {
			top[k] = top[k-1]
			k--
		}
		top[k] = r
	}
	for _, t := range top {
		kept += t
		if t > 0 {
			d++
		}
	}
	return kept, d
}

// frontDict returns the up to maxDict most frequent left parts (bits above
// rb) of the sorted sample, most frequent first, ties to the smaller part.
func frontDict(sample []uint64, rb uint) (dict [maxDict]uint64, d int) {
	type run struct {
		left uint64
		n    int
	}
	var top [maxDict]run
	for i := 0; i < len(sample); {
		j := i + 1
		for j < len(sample) && sample[j]>>rb == sample[i]>>rb {
			j++
		}
		r := run{sample[i] >> rb, j - i}
		i = j
		if d == maxDict && r.n <= top[d-1].n {
			continue
		}
		if d < maxDict {
			d++
		}
		k := d - 1
		for k > 0 && top[k-1].n < r.n {
			top[k] = top[k-1]
			k--
		}
		top[k] = r
	}
	for k := range d {
		dict[k] = top[k].left
	}
	return dict, d
}
