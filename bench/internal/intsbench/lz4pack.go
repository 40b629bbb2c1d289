package intsbench

import (
	"encoding/binary"

	"github.com/pierrec/lz4/v4"
)

// lz4BufBytes is the uncompressed size of one buffer (Druid's 64 KiB).
const lz4BufBytes = 64 << 10

func lz4Codec() Codec {
	return Codec{Name: "lz4-bytepack", Encode: encodeLZ4}
}

type lz4Col struct {
	n, w, perBuf int
	base         int64
	bufs         [][]byte // compressed; stored plain when raw[i]
	raw          []bool
	size         int
	// reader state for Get: the last buffer decompressed
	cached int
	cache  []byte
}

func encodeLZ4(values []int64) (Encoded, error) {
	base, w := byteWidth(values)
	c := &lz4Col{n: len(values), w: w, perBuf: lz4BufBytes / w, base: base, cached: -1}
	c.size = 8 + 1 + 4 // base, width, count
	var ht [1 << 16]int
	plain := make([]byte, 0, lz4BufBytes+8)
	for start := 0; start < len(values); start += c.perBuf {
		plain = plain[:0]
		for _, v := range values[start:min(start+c.perBuf, len(values))] {
			plain = binary.LittleEndian.AppendUint64(plain, uint64(v-base))[:len(plain)+w]
		}
		dst := make([]byte, lz4.CompressBlockBound(len(plain)))
		n, err := lz4.CompressBlock(plain, dst, ht[:])
		if err != nil {
			return nil, err
		}
		if n == 0 || n >= len(plain) { // incompressible: store raw
			c.bufs, c.raw = append(c.bufs, append([]byte(nil), plain...)), append(c.raw, true)
			n = len(plain)
		} else {
			c.bufs, c.raw = append(c.bufs, dst[:n]), append(c.raw, false)
		}
		c.size += 4 + n // a length per buffer, then the buffer
	}
	return c, nil
}

func (c *lz4Col) Size() int { return c.size }

// load puts buffer b's plain bytes at the start of dst, which must be
// lz4BufBytes+8 long (the 8 spare bytes let every value be one 8-byte load).
func (c *lz4Col) load(b int, dst []byte) error {
	if c.raw[b] {
		copy(dst, c.bufs[b])
		return nil
	}
	_, err := lz4.UncompressBlock(c.bufs[b], dst[:lz4BufBytes])
	return err
}

func (c *lz4Col) mask() uint64 {
	if c.w == 8 {
		return ^uint64(0)
	}
	return 1<<(8*c.w) - 1
}

func (c *lz4Col) Decode(dst []int64) ([]int64, error) {
	buf := make([]byte, lz4BufBytes+8)
	mask := c.mask()
	for b := range c.bufs {
		if err := c.load(b, buf); err != nil {
			return dst, err
		}
		n := min(c.perBuf, c.n-b*c.perBuf)
		for p := 0; p < n*c.w; p += c.w {
			dst = append(dst, c.base+int64(binary.LittleEndian.Uint64(buf[p:])&mask))
		}
	}
	return dst, nil
}

// SumAt reads like Druid's reader: the buffer holding a row is decompressed
// once into a reused buffer and stays cached until a row in another buffer
// is read.
func (c *lz4Col) SumAt(rows []int) (int64, bool) {
	if c.cache == nil {
		c.cache = make([]byte, lz4BufBytes+8)
	}
	mask := c.mask()
	var sum int64
	for _, i := range rows {
		b := i / c.perBuf
		if b != c.cached {
			if err := c.load(b, c.cache); err != nil {
				return 0, false
			}
			c.cached = b
		}
		sum += c.base + int64(binary.LittleEndian.Uint64(c.cache[(i-b*c.perBuf)*c.w:])&mask)
	}
	return sum, true
}
