package shapeshift

import (
	"encoding/binary"
	"math"
	"sync"
)

// floatChunk is a parsed and checked float chunk. Its slices alias the
// column.
type floatChunk struct {
	form    Form
	w       int  // bytes per value
	ex, fx  int  // Decimal exponent and factor
	rb      uint // FrontBits right bits
	nd      int  // FrontBits dictionary size
	dict    [maxDict]uint64
	nexc    int    // exceptions
	pos     []byte // nexc u16 positions
	vals    []byte // nexc w-byte values (Decimal) or u16 left parts (FrontBits)
	sub     []byte // Decimal: the integers; FrontBits: the indexes
	right   []byte // FrontBits: the right parts
	raw     []byte // Raw: the values
	at      int    // offsets of the chunk, sub and right in the column
	subAt   int
	rightAt int
}

// parseFloatChunk checks chunk body b (form byte first, n values of w
// bytes, at offset at) and everything that lengths and headers can vouch
// for: the exception positions included, the integer chunks' contents not.
func parseFloatChunk(b []byte, n, w, at int, v4 bool) (floatChunk, error) {
	c := floatChunk{form: Form(b[0]), w: w, at: at}
	p := 0
	switch c.form {
	case Raw:
		if len(b) != hdrRaw+n*w {
			return c, corrupt("Raw float chunk of %d values is %d bytes, offset %d", n, len(b), at)
		}
		c.raw = b[hdrRaw:]
		return c, nil
	case Decimal:
		if len(b) < hdrDecimal {
			return c, corrupt("Decimal chunk truncated, offset %d", at)
		}
		c.ex, c.fx = int(b[1]), int(b[2])
		if c.ex > maxExp || c.fx > maxExp {
			return c, corrupt("Decimal exponent %d factor %d, offset %d", c.ex, c.fx, at+1)
		}
		c.nexc = int(binary.LittleEndian.Uint16(b[3:]))
		p = hdrDecimal
	case FrontBits:
		if len(b) < hdrFrontBits {
			return c, corrupt("FrontBits chunk truncated, offset %d", at)
		}
		l, nd := int(b[1]), int(b[2])
		if l < 1 || l > maxLeftBits || nd < 1 || nd > maxDict {
			return c, corrupt("FrontBits left bits %d dictionary %d, offset %d", l, nd, at+1)
		}
		c.rb, c.nd = uint(8*w-l), nd
		p = hdrFrontBits
		if len(b) < p+2*nd+2 {
			return c, corrupt("FrontBits chunk truncated, offset %d", at)
		}
		for k := range nd {
			d := uint64(binary.LittleEndian.Uint16(b[p+2*k:]))
			if d>>uint(l) != 0 {
				return c, corrupt("FrontBits dictionary entry %d wider than %d bits, offset %d", k, l, at+p+2*k)
			}
			c.dict[k] = d << c.rb
		}
		p += 2 * nd
		c.nexc = int(binary.LittleEndian.Uint16(b[p:]))
		p += 2
	default:
		return c, corrupt("unknown float form %d, offset %d", b[0], at)
	}
	vw := w // bytes per exception value
	if c.form == FrontBits {
		vw = 2
	}
	if c.nexc >= n || len(b)-p < c.nexc*(2+vw) {
		return c, corrupt("%v chunk of %d values with %d exceptions, offset %d", c.form, n, c.nexc, at+p-2)
	}
	c.pos = b[p : p+2*c.nexc]
	prev := -1
	for k := range c.nexc {
		i := int(binary.LittleEndian.Uint16(c.pos[2*k:]))
		if i <= prev || i >= n {
			return c, corrupt("%v exception %d at %d out of order or range, offset %d", c.form, k, i, at+p+2*k)
		}
		prev = i
	}
	p += 2 * c.nexc
	c.vals = b[p : p+vw*c.nexc]
	p += vw * c.nexc
	if c.form == FrontBits {
		for k := range c.nexc {
			if uint64(binary.LittleEndian.Uint16(c.vals[2*k:]))>>(uint(8*w)-c.rb) != 0 {
				return c, corrupt("FrontBits exception %d wider than the left part, offset %d", k, at+p-vw*c.nexc+2*k)
			}
		}
		if len(b)-p < 4 {
			return c, corrupt("FrontBits chunk truncated, offset %d", at+p)
		}
		il := binary.LittleEndian.Uint32(b[p:])
		p += 4
		if il == 0 || uint64(il) >= uint64(len(b)-p) {
			return c, corrupt("FrontBits index chunk of %d bytes, offset %d", il, at+p-4)
		}
		c.sub, c.subAt = b[p:p+int(il)], at+p
		p += int(il)
		c.right, c.rightAt = b[p:], at+p
		if err := checkIntChunk(c.right, n, c.rightAt, v4); err != nil {
			return c, err
		}
	} else {
		if p == len(b) {
			return c, corrupt("Decimal chunk without integers, offset %d", at+p)
		}
		c.sub, c.subAt = b[p:], at+p
	}
	return c, checkIntChunk(c.sub, n, c.subAt, v4)
}

// checkIntChunk is checkChunk for the integer chunks of a float column,
// which may be Huffman only in version 4.
func checkIntChunk(b []byte, n, at int, v4 bool) error {
	if Form(b[0]) == Huffman && !v4 {
		return corrupt("Huffman chunk in a version 3 column, offset %d", at)
	}
	return checkChunk(b, n, at)
}

// exception returns exception k's value (Decimal) or left part (FrontBits).
func (c *floatChunk) exception(k int) uint64 {
	switch {
	case c.form == FrontBits:
		return uint64(binary.LittleEndian.Uint16(c.vals[2*k:]))
	case c.w == 8:
		return binary.LittleEndian.Uint64(c.vals[8*k:])
	default:
		return uint64(binary.LittleEndian.Uint32(c.vals[4*k:]))
	}
}

// position returns exception k's position.
func (c *floatChunk) position(k int) int {
	return int(binary.LittleEndian.Uint16(c.pos[2*k:]))
}

// floatDecoder holds a decoder's buffers.
type floatDecoder struct {
	a, b  []int64
	lz    []byte
	out64 []float64 // OpenFloat64's decoded chunk
	out32 []float32
}

// ints decodes the chunk's integer chunks: the integers (Decimal) or the
// indexes and right parts (FrontBits), and checks the latter.
func (d *floatDecoder) ints(c *floatChunk, n int) (a, b []int64, err error) {
	if cap(d.a) < n {
		buf := make([]int64, 2*n)
		d.a, d.b = buf[:n:n], buf[n:]
	}
	a, b = d.a[:n], d.b[:n]
	if err := decodeChunk(a, c.sub, c.subAt, &d.lz); err != nil {
		return nil, nil, err
	}
	if c.form == Decimal {
		return a, nil, nil
	}
	if err := decodeChunk(b, c.right, c.rightAt, &d.lz); err != nil {
		return nil, nil, err
	}
	nd, rb := uint64(c.nd), c.rb
	for i := range a {
		if uint64(a[i]) >= nd || uint64(b[i])>>rb != 0 {
			return nil, nil, corrupt("FrontBits value %d has index %d of %d or a right part wider than %d bits, offset %d", i, a[i], nd, rb, c.subAt)
		}
	}
	return a, b, nil
}

// decode64 decodes the chunk into out (float64 values).
func (d *floatDecoder) decode64(out []float64, c *floatChunk) error {
	if c.form == Raw {
		for i := range out {
			out[i] = math.Float64frombits(binary.LittleEndian.Uint64(c.raw[8*i:]))
		}
		return nil
	}
	a, b, err := d.ints(c, len(out))
	if err != nil {
		return err
	}
	if c.form == Decimal {
		decimals(out, a, pow10[c.fx], negPow10[c.ex])
		for k := range c.nexc {
			out[c.position(k)] = math.Float64frombits(c.exception(k))
		}
		return nil
	}
	dict := &c.dict
	for i, x := range a {
		out[i] = math.Float64frombits(dict[x&(maxDict-1)] | uint64(b[i]))
	}
	for k := range c.nexc {
		p := c.position(k)
		out[p] = math.Float64frombits(c.exception(k)<<c.rb | uint64(b[p]))
	}
	return nil
}

// decimals sets out[i] = decimal(a[i], pf, ne), 8 at a time through array
// pointers (one bounds check per 8 values).
func decimals(out []float64, a []int64, pf, ne float64) {
	i := 0
	for ; i+8 <= len(a) && i+8 <= len(out); i += 8 {
		x, o := (*[8]int64)(a[i:i+8]), (*[8]float64)(out[i:i+8])
		o[0] = decimal(x[0], pf, ne)
		o[1] = decimal(x[1], pf, ne)
		o[2] = decimal(x[2], pf, ne)
		o[3] = decimal(x[3], pf, ne)
		o[4] = decimal(x[4], pf, ne)
		o[5] = decimal(x[5], pf, ne)
		o[6] = decimal(x[6], pf, ne)
		o[7] = decimal(x[7], pf, ne)
	}
	for ; i < len(a); i++ {
		out[i] = decimal(a[i], pf, ne)
	}
}

// decode32 decodes the chunk into out (float32 values).
func (d *floatDecoder) decode32(out []float32, c *floatChunk) error {
	if c.form == Raw {
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(c.raw[4*i:]))
		}
		return nil
	}
	a, b, err := d.ints(c, len(out))
	if err != nil {
		return err
	}
	if c.form == Decimal {
		pf, ne := pow10[c.fx], negPow10[c.ex]
		for i, x := range a {
			out[i] = float32(decimal(x, pf, ne))
		}
		for k := range c.nexc {
			out[c.position(k)] = math.Float32frombits(uint32(c.exception(k)))
		}
		return nil
	}
	dict := &c.dict
	for i, x := range a {
		out[i] = math.Float32frombits(uint32(dict[x&(maxDict-1)] | uint64(b[i])))
	}
	for k := range c.nexc {
		p := c.position(k)
		out[p] = math.Float32frombits(uint32(c.exception(k)<<c.rb | uint64(b[p])))
	}
	return nil
}

// parseFloatHeader is parseHeader for a float column of w-byte values.
func parseFloatHeader(src []byte, w int) (header, error) {
	h, err := parseHeader(src)
	if err == nil && h.width != w {
		if h.width == 0 {
			err = corrupt("an integer column is not a float%d column, offset 0", 8*w)
		} else {
			err = corrupt("a float%d column is not a float%d column, offset 1", 8*h.width, 8*w)
		}
	}
	return h, err
}

// floatChunk parses chunk i of a float column of w-byte values, counting
// its form in comp; it returns the chunk and its first value's index and
// count.
func (h *header) floatChunk(i, w int, comp *[numForms]int) (floatChunk, int, int, error) {
	b, n, at := h.chunk(i)
	c, err := parseFloatChunk(b, n, w, at, h.version >= 4)
	if err == nil {
		comp[c.form]++
	}
	return c, i << h.log, n, err
}

// checkComp checks the chunk forms counted against the composition.
func (h *header) checkComp(comp *[numForms]int) error {
	if *comp != h.comp {
		return corrupt("chunk forms %v disagree with the composition %v, offset 2", *comp, h.comp)
	}
	return nil
}

// grow returns dst extended by n elements, reusing its spare capacity.
func grow[T any](dst []T, n int) []T {
	if cap(dst)-len(dst) < n {
		g := make([]T, len(dst), len(dst)+n)
		copy(g, dst)
		dst = g
	}
	return dst[:len(dst)+n]
}

// FloatDecoder decodes float columns as DecodeFloat64 and DecodeFloat32
// do, keeping its scratch buffers across calls: once they have grown to
// a column's chunk size, decoding into a large enough dst allocates
// nothing. The zero value is ready to use; a FloatDecoder is not safe for
// concurrent use.
type FloatDecoder struct{ d floatDecoder }

// DecodeFloat64 appends the values of the float64 column in src to dst and
// returns the extended slice, every value with the exact bits it was
// encoded with. It reuses dst's spare capacity and allocates only to grow
// it (and its scratch buffers, pooled). On corrupt input, or a column that
// is not float64, it returns dst unchanged and an error wrapping
// ErrCorrupt.
func DecodeFloat64(dst []float64, src []byte) ([]float64, error) {
	d := floatDecoderPool.Get().(*FloatDecoder)
	defer floatDecoderPool.Put(d)
	return d.DecodeFloat64(dst, src)
}

// DecodeFloat32 is DecodeFloat64 for a float32 column.
func DecodeFloat32(dst []float32, src []byte) ([]float32, error) {
	d := floatDecoderPool.Get().(*FloatDecoder)
	defer floatDecoderPool.Put(d)
	return d.DecodeFloat32(dst, src)
}

var floatDecoderPool = sync.Pool{New: func() any { return new(FloatDecoder) }}

// DecodeFloat64 is the package's DecodeFloat64 with d's buffers.
func (d *FloatDecoder) DecodeFloat64(dst []float64, src []byte) ([]float64, error) {
	h, err := parseFloatHeader(src, 8)
	if err != nil {
		return dst, err
	}
	start := len(dst)
	out := grow(dst, h.count)
	var comp [numForms]int
	for i := range h.nChunks {
		c, lo, n, err := h.floatChunk(i, 8, &comp)
		if err == nil {
			err = d.d.decode64(out[start+lo:start+lo+n], &c)
		}
		if err != nil {
			return dst, err
		}
	}
	if err := h.checkComp(&comp); err != nil {
		return dst, err
	}
	return out, nil
}

// DecodeFloat32 is the package's DecodeFloat32 with d's buffers.
func (d *FloatDecoder) DecodeFloat32(dst []float32, src []byte) ([]float32, error) {
	h, err := parseFloatHeader(src, 4)
	if err != nil {
		return dst, err
	}
	start := len(dst)
	out := grow(dst, h.count)
	var comp [numForms]int
	for i := range h.nChunks {
		c, lo, n, err := h.floatChunk(i, 4, &comp)
		if err == nil {
			err = d.d.decode32(out[start+lo:start+lo+n], &c)
		}
		if err != nil {
			return dst, err
		}
	}
	if err := h.checkComp(&comp); err != nil {
		return dst, err
	}
	return out, nil
}
