package intsbench

import (
	"github.com/cockroachdb/pebble/v2/sstable/colblk"
)

// colblkChunk is the number of values per Pebble uint column.
const colblkChunk = 1 << 14

func colblkCodec() Codec {
	return Codec{Name: "pebble-colblk", Encode: func(values []int64) (Encoded, error) {
		c := &colblkCol{n: len(values)}
		var b colblk.UintBuilder
		b.Init()
		for start := 0; start < len(values); start += colblkChunk {
			chunk := values[start:min(start+colblkChunk, len(values))]
			b.Reset()
			for i, v := range chunk {
				b.Set(i, toUint(v))
			}
			buf := make([]byte, b.Size(len(chunk), 0)+1) // +1: colblk's trailing padding byte
			b.Finish(0, len(chunk), 0, buf)
			c.size += len(buf) - 1
			u, _ := colblk.DecodeUnsafeUints(buf, 0, len(chunk))
			c.cols = append(c.cols, u)
			c.bufs = append(c.bufs, buf)
		}
		return c, nil
	}}
}

// toUint maps int64 to uint64 keeping the order (flips the sign bit), so
// negative values get the same frame of reference as positive ones.
func toUint(v int64) uint64 { return uint64(v) ^ 1<<63 }

func fromUint(u uint64) int64 { return int64(u ^ 1<<63) }

type colblkCol struct {
	n    int
	size int
	cols []colblk.UnsafeUints
	bufs [][]byte // keeps the bytes cols point into alive
}

func (c *colblkCol) Size() int { return c.size }

func (c *colblkCol) Decode(dst []int64) ([]int64, error) {
	for ci, u := range c.cols {
		n := min(colblkChunk, c.n-ci*colblkChunk)
		for i := range n {
			dst = append(dst, fromUint(u.At(i)))
		}
	}
	return dst, nil
}

func (c *colblkCol) SumAt(rows []int) (int64, bool) {
	var sum int64
	for _, i := range rows {
		sum += fromUint(c.cols[i/colblkChunk].At(i % colblkChunk))
	}
	return sum, true
}
