package intsbench

import (
	"encoding/binary"
	"errors"
)

// uvarintEvery is how many values one skip offset covers.
const uvarintEvery = 64

func uvarintCodec() Codec {
	return Codec{Name: "uvarint", Encode: func(values []int64) (Encoded, error) {
		c := &uvarintCol{n: len(values)}
		for i, v := range values {
			if i%uvarintEvery == 0 {
				c.offsets = append(c.offsets, uint32(len(c.data)))
			}
			c.data = binary.AppendVarint(c.data, v) // zigzag
		}
		return c, nil
	}}
}

type uvarintCol struct {
	n       int
	data    []byte
	offsets []uint32
}

// Size counts the varints and 4 bytes per skip offset.
func (c *uvarintCol) Size() int { return len(c.data) + 4*len(c.offsets) }

var errVarint = errors.New("uvarint: bad varint")

func (c *uvarintCol) Decode(dst []int64) ([]int64, error) {
	b := c.data
	for range c.n {
		v, k := binary.Varint(b)
		if k <= 0 {
			return dst, errVarint
		}
		dst = append(dst, v)
		b = b[k:]
	}
	return dst, nil
}

func (c *uvarintCol) SumAt(rows []int) (int64, bool) {
	var sum int64
	for _, i := range rows {
		b := c.data[c.offsets[i/uvarintEvery]:]
		for range i % uvarintEvery {
			_, k := binary.Varint(b)
			b = b[k:]
		}
		v, _ := binary.Varint(b)
		sum += v
	}
	return sum, true
}
