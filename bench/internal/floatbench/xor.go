package floatbench

import (
	"github.com/prometheus/prometheus/tsdb/chunkenc"
)

// XORChunkSamples is how many samples Prometheus puts in one chunk.
const XORChunkSamples = 120

// XORTimestampBits is what the timestamps 0, 1, 2, ... cost in an XOR
// chunk of n samples: the first as a varint (1 byte), the second as a
// delta uvarint (1 byte), every later one as a delta of delta of 0 (1 bit).
func XORTimestampBits(n int) int {
	switch {
	case n <= 0:
		return 0
	case n == 1:
		return 8
	}
	return 16 + n - 2
}

// XORChunks appends the samples (t[i], v[i]) to XOR chunks, a new chunk
// every XORChunkSamples samples, and calls chunk after each chunk is full
// and after the last one, with the number of samples it holds.
func XORChunks(t []int64, v []float64, chunk func(c *chunkenc.XORChunk, n int)) error {
	for lo := 0; lo < len(t); lo += XORChunkSamples {
		hi := min(lo+XORChunkSamples, len(t))
		c := chunkenc.NewXORChunk()
		app, err := c.Appender()
		if err != nil {
			return err
		}
		for i := lo; i < hi; i++ {
			app.Append(0, t[i], v[i])
		}
		chunk(c, hi-lo)
	}
	return nil
}

func xorCodec() Codec {
	return Codec{Name: "xor", Encode: func(values []float64) (Encoded, error) {
		e := &xorEnc{n: len(values)}
		t := make([]int64, len(values))
		for i := range t {
			t[i] = int64(i % XORChunkSamples) // 0, 1, 2, ... in every chunk
		}
		err := XORChunks(t, values, func(c *chunkenc.XORChunk, n int) {
			e.chunks = append(e.chunks, c)
			e.bits += 8*len(c.Bytes()) - XORTimestampBits(n)
		})
		return e, err
	}}
}

type xorEnc struct {
	n      int
	chunks []*chunkenc.XORChunk
	bits   int
	it     chunkenc.Iterator
}

func (e *xorEnc) Bits() float64 { return float64(e.bits) }

// Decode runs the chunk iterator over every chunk, reusing it.
func (e *xorEnc) Decode(dst []float64) ([]float64, error) {
	for _, c := range e.chunks {
		e.it = c.Iterator(e.it)
		for e.it.Next() == chunkenc.ValFloat {
			_, v := e.it.At()
			dst = append(dst, v)
		}
		if err := e.it.Err(); err != nil {
			return dst, err
		}
	}
	return dst, nil
}
