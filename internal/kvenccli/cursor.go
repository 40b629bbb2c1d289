package kvenccli

import (
	"encoding/binary"
	"fmt"

	"github.com/kvenc/kvenc/vlong"
)

// cursor reads bytes, little-endian integers, uvarints and vlongs from b,
// every read bounds-checked. The first failure sticks in err (wrapping
// corrupt, with the offset), and later reads return zero values.
type cursor struct {
	b       []byte
	p       int
	base    string // prefix of the offsets in errors ("sub1+")
	corrupt error  // what failures wrap
	err     error
	seen    func(off int, b []byte) // called with every run read, if set
}

func (c *cursor) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("%w: %soffset %d: %s", c.corrupt, c.base, c.p, fmt.Sprintf(format, args...))
	}
}

// take returns the next n bytes.
func (c *cursor) take(n int) []byte {
	if c.err != nil {
		return nil
	}
	if n < 0 || n > len(c.b)-c.p {
		c.fail("%d bytes wanted, %d left", n, len(c.b)-c.p)
		return nil
	}
	b := c.b[c.p : c.p+n]
	if c.seen != nil && n > 0 {
		c.seen(c.p, b)
	}
	c.p += n
	return b
}

func (c *cursor) u8() int {
	if b := c.take(1); b != nil {
		return int(b[0])
	}
	return 0
}

func (c *cursor) u32() uint32 {
	if b := c.take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (c *cursor) u64() uint64 {
	if b := c.take(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

// uv64 reads an unsigned varint.
func (c *cursor) uv64() uint64 {
	if c.err != nil {
		return 0
	}
	v, n := binary.Uvarint(c.b[c.p:])
	if n <= 0 {
		c.fail("bad varint")
		return 0
	}
	c.take(n)
	return v
}

// uv reads an unsigned varint length (below 2^31, as blockenc's).
func (c *cursor) uv() int {
	at := c.p
	v := c.uv64()
	if v >= 1<<31 {
		c.p = at
		c.fail("length %d", v)
		return 0
	}
	return int(v)
}

// bytes reads a uv length and that many bytes.
func (c *cursor) bytes() []byte {
	return c.take(c.uv())
}

func (c *cursor) vlong() int64 {
	if c.err != nil {
		return 0
	}
	v, n, err := vlong.Decode(c.b[c.p:])
	if err != nil {
		c.fail("bad seq vlong")
		return 0
	}
	c.take(n)
	return v
}
