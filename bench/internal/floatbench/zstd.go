package floatbench

import (
	"encoding/binary"
	"fmt"
	"math"
	"sync"

	"github.com/klauspost/compress/zstd"
)

func zstdCodec() Codec {
	return Codec{Name: "zstd", Encode: func(values []float64) (Encoded, error) {
		c := zstdCoders()
		if c.err != nil {
			return nil, c.err
		}
		raw := make([]byte, 0, 8*len(values))
		for _, v := range values {
			raw = binary.LittleEndian.AppendUint64(raw, math.Float64bits(v))
		}
		return &zstdEnc{n: len(values), frame: c.enc.EncodeAll(raw, nil)}, nil
	}}
}

// zstdCoders are shared (EncodeAll and DecodeAll are safe for concurrent
// use), so no measurement includes their set-up.
var zstdCoders = sync.OnceValue(func() (c struct {
	enc *zstd.Encoder
	dec *zstd.Decoder
	err error
}) {
	c.enc, c.err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderConcurrency(1))
	if c.err == nil {
		c.dec, c.err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	}
	return c
})

type zstdEnc struct {
	n     int
	frame []byte
	buf   []byte
}

func (e *zstdEnc) Bits() float64 { return float64(8 * len(e.frame)) }

func (e *zstdEnc) Decode(dst []float64) ([]float64, error) {
	c := zstdCoders()
	raw, err := c.dec.DecodeAll(e.frame, e.buf[:0])
	if err != nil {
		return dst, err
	}
	e.buf = raw
	if len(raw) != 8*e.n {
		return dst, fmt.Errorf("zstd: %d bytes for %d values", len(raw), e.n)
	}
	for p := 0; p < len(raw); p += 8 {
		dst = append(dst, math.Float64frombits(binary.LittleEndian.Uint64(raw[p:])))
	}
	return dst, nil
}
