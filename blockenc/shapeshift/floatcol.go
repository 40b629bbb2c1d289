package shapeshift

import (
	"math"
	"sort"
)

// EncodeFloat64 appends the float column encoding of values to dst and
// returns the extended slice. Every bit pattern comes back exactly: -0,
// infinities, subnormals and every NaN payload. It panics if len(values)
// > MaxLen (a caller bug). Encoding is deterministic. opts.LogChunkSize 0
// means DefaultFloatLogChunkSize.
func EncodeFloat64(dst []byte, values []float64, opts Options) []byte {
	return encodeFloats(dst, values, nil, 8, opts)
}

// EncodeFloat32 is EncodeFloat64 for float32 values.
func EncodeFloat32(dst []byte, values []float32, opts Options) []byte {
	return encodeFloats(dst, nil, values, 4, opts)
}

// floatCol is what FloatColumn and Float32Column share.
type floatCol struct {
	n       int
	log     uint
	mask    int
	w       int
	chunks  []floatRef
	comp    [numForms]int
	intComp [numForms]int // forms of the integer chunks inside the float chunks
	side    []byte
	excMap  []uint64 // bitmaps of the exception positions, one per chunk that has any
}

// floatRef is what Get needs to know about one float chunk: its integer
// chunks (read like a Column's), its multipliers or dictionary, and its
// exceptions.
type floatRef struct {
	form   Form
	a, b   chunkRef // Decimal: a = integers; FrontBits: a = indexes, b = right parts; Raw: a = values
	pf, ne float64  // Decimal multipliers
	dict   [maxDict]uint64
	rb     uint
	exc    []uint64 // bitmap of exception positions, nil if none
	excAt  int      // exc's offset in floatCol.excMap, -1 if none
	c      floatChunk
}

// FloatColumn is a validated float64 column for random access. Like a
// Column, it aliases the bytes passed to OpenFloat64, which must not
// change while it is used, and Get does not mutate it, so many goroutines
// may read one FloatColumn at once.
type FloatColumn struct{ c floatCol }

// Float32Column is FloatColumn for a float32 column.
type Float32Column struct{ c floatCol }

// OpenFloat64 validates the float64 column in src (as DecodeFloat64 does,
// decoding it once) and returns a FloatColumn over it. Errors wrap
// ErrCorrupt. Integer chunks that Get cannot read in place are kept
// byte-packed, as Open does for a Column; exceptions cost a bitmap of one
// bit per value of their chunk.
func OpenFloat64(src []byte) (*FloatColumn, error) {
	c := new(FloatColumn)
	return c, c.c.open(src, 8)
}

// OpenFloat32 is OpenFloat64 for a float32 column.
func OpenFloat32(src []byte) (*Float32Column, error) {
	c := new(Float32Column)
	return c, c.c.open(src, 4)
}

func (fc *floatCol) open(src []byte, w int) error {
	h, err := parseFloatHeader(src, w)
	if err != nil {
		return err
	}
	*fc = floatCol{n: h.count, log: h.log, mask: 1<<h.log - 1, w: w, comp: h.comp, chunks: make([]floatRef, h.nChunks)}
	fd := floatDecoderPool.Get().(*FloatDecoder)
	defer floatDecoderPool.Put(fd)
	d := &fd.d
	var sb sideBuilder
	var comp [numForms]int
	for i := range h.nChunks {
		c, lo, n, err := h.floatChunk(i, w, &comp)
		if err != nil {
			return err
		}
		if err := fc.openChunk(d, &c, src, lo, n, &sb); err != nil {
			return err
		}
	}
	if err := h.checkComp(&comp); err != nil {
		return err
	}
	fc.side = sb.finish()
	for i := range fc.chunks {
		if r := &fc.chunks[i]; r.excAt >= 0 {
			r.exc = fc.excMap[r.excAt:]
		}
	}
	return nil
}

// openChunk validates chunk c (values lo..lo+n) by decoding it and sets
// up its floatRef.
func (fc *floatCol) openChunk(d *floatDecoder, c *floatChunk, src []byte, lo, n int, sb *sideBuilder) error {
	// Decoding validates everything, the integer chunks' contents too.
	var err error
	if fc.w == 8 {
		d.out64 = grow(d.out64[:0], n)
		err = d.decode64(d.out64, c)
	} else {
		d.out32 = grow(d.out32[:0], n)
		err = d.decode32(d.out32, c)
	}
	if err != nil {
		return err
	}
	r := &fc.chunks[lo>>fc.log]
	r.form, r.c, r.excAt = c.form, *c, -1
	switch c.form {
	case Raw:
		// 8 bytes are loadable at every value: a w-byte value is followed
		// by another one or the checksum.
		r.a = chunkRef{p: src[c.at+hdrRaw:], bits: 8 * uint(fc.w), mask: lowMask(8 * fc.w)}
		return nil
	case Decimal:
		r.pf, r.ne = pow10[c.fx], negPow10[c.ex]
	case FrontBits:
		r.dict, r.rb = c.dict, c.rb
		fc.intComp[c.right[0]]++
		if err := sb.open(&r.b, src, c.right, n, c.rightAt); err != nil {
			return err
		}
	}
	if c.nexc > 0 {
		r.excAt = len(fc.excMap)
		m := grow(fc.excMap, (n+63)/64)
		for k := range c.nexc {
			p := c.position(k)
			m[r.excAt+p/64] |= 1 << (p % 64)
		}
		fc.excMap = m
	}
	fc.intComp[c.sub[0]]++
	return sb.open(&r.a, src, c.sub, n, c.subAt)
}

// bits returns value i's bit pattern (a float32's in the low 32 bits).
func (fc *floatCol) bits(i int) uint64 {
	if uint(i) >= uint(fc.n) {
		panic("shapeshift: Get index out of range")
	}
	r := &fc.chunks[i>>fc.log]
	j := i & fc.mask
	if r.exc != nil && r.exc[j>>6]>>(j&63)&1 != 0 {
		return fc.exception(r, j)
	}
	switch r.form {
	case Decimal:
		d := decimal(r.a.get(j), r.pf, r.ne)
		if fc.w == 4 {
			return uint64(math.Float32bits(float32(d)))
		}
		return math.Float64bits(d)
	case FrontBits:
		return r.dict[r.a.get(j)&(maxDict-1)] | uint64(r.b.get(j))
	}
	return uint64(r.a.get(j))
}

// exception returns the value at position j of chunk r, an exception.
func (fc *floatCol) exception(r *floatRef, j int) uint64 {
	c := &r.c
	k := sort.Search(c.nexc, func(k int) bool { return c.position(k) >= j })
	if c.form == FrontBits {
		return c.exception(k)<<c.rb | uint64(r.b.get(j))
	}
	return c.exception(k)
}

// Len returns the number of values in the column.
func (c *FloatColumn) Len() int { return c.c.n }

// Get returns value i. It panics if i is out of range [0, Len()), like a
// slice index; it cannot fail otherwise.
func (c *FloatColumn) Get(i int) float64 { return math.Float64frombits(c.c.bits(i)) }

// Composition returns the number of chunks stored in each form (Raw,
// Decimal, FrontBits); forms with no chunk are absent.
func (c *FloatColumn) Composition() map[Form]int { return composition(&c.c.comp) }

// IntComposition returns the number of integer chunks stored in each form
// inside the float chunks: a Decimal chunk's integers, a FrontBits chunk's
// indexes and backs; forms with no chunk are absent.
func (c *FloatColumn) IntComposition() map[Form]int { return composition(&c.c.intComp) }

// Len returns the number of values in the column.
func (c *Float32Column) Len() int { return c.c.n }

// Get returns value i. It panics if i is out of range [0, Len()).
func (c *Float32Column) Get(i int) float32 { return math.Float32frombits(uint32(c.c.bits(i))) }

// Composition returns the number of chunks stored in each form.
func (c *Float32Column) Composition() map[Form]int { return composition(&c.c.comp) }

// IntComposition is FloatColumn.IntComposition.
func (c *Float32Column) IntComposition() map[Form]int { return composition(&c.c.intComp) }

func composition(comp *[numForms]int) map[Form]int {
	m := make(map[Form]int)
	for f, n := range comp {
		if n > 0 {
			m[Form(f)] = n
		}
	}
	return m
}

// checkFloatRoundTrip panics unless column src decodes to exactly the
// values (w = 8) or the float32 bit patterns bits32 (w = 4): the invariants
// check of EncodeFloat64 and EncodeFloat32.
func checkFloatRoundTrip(src []byte, values []float64, values32 []float32, w int) {
	if w == 8 {
		got, err := DecodeFloat64(nil, src)
		if err != nil || len(got) != len(values) {
			panic("shapeshift: invariants: float64 column does not decode: " + errString(err))
		}
		for i, v := range values {
			if math.Float64bits(got[i]) != math.Float64bits(v) {
				panic("shapeshift: invariants: float64 value does not round trip")
			}
		}
		return
	}
	got, err := DecodeFloat32(nil, src)
	if err != nil || len(got) != len(values32) {
		panic("shapeshift: invariants: float32 column does not decode: " + errString(err))
	}
	for i, v := range values32 {
		if math.Float32bits(got[i]) != math.Float32bits(v) {
			panic("shapeshift: invariants: float32 value does not round trip")
		}
	}
}

func errString(err error) string {
	if err == nil {
		return "wrong length"
	}
	return err.Error()
}
