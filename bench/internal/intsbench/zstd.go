package intsbench

import (
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"
)

func zstdCodec() Codec {
	return Codec{Name: "zstd", Encode: func(values []int64) (Encoded, error) {
		lo, _ := minMax(values)
		plain := make([]byte, 0, 8*len(values))
		for _, v := range values {
			plain = binary.LittleEndian.AppendUint64(plain, uint64(v-lo))
		}
		enc, _, err := zstdCoders()
		if err != nil {
			return nil, err
		}
		return &zstdCol{n: len(values), base: lo, frame: enc.EncodeAll(plain, nil)}, nil
	}}
}

// zstdCoders are shared by every column (EncodeAll and DecodeAll are safe
// for concurrent use), so no measurement includes their set-up.
func zstdCoders() (*zstd.Encoder, *zstd.Decoder, error) {
	c := zstdOnce()
	return c.enc, c.dec, c.err
}

var zstdOnce = sync.OnceValue(func() (c struct {
	enc *zstd.Encoder
	dec *zstd.Decoder
	err error
}) {
	c.enc, c.err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
	if c.err == nil {
		c.dec, c.err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	}
	return c
})

type zstdCol struct {
	n     int
	base  int64
	frame []byte
	buf   []byte
}

// Size counts the frame and the 8-byte base.
func (c *zstdCol) Size() int { return len(c.frame) + 8 }

func (c *zstdCol) Decode(dst []int64) ([]int64, error) {
	_, dec, err := zstdCoders()
	if err != nil {
		return dst, err
	}
	plain, err := dec.DecodeAll(c.frame, c.buf[:0])
	if err != nil {
		return dst, err
	}
	c.buf = plain
	if len(plain) != 8*c.n {
		return dst, fmt.Errorf("zstd: %d bytes for %d values", len(plain), c.n)
	}
	for p := 0; p < len(plain); p += 8 {
		dst = append(dst, c.base+int64(binary.LittleEndian.Uint64(plain[p:])))
	}
	return dst, nil
}

// SumAt: one zstd frame has no random access.
func (c *zstdCol) SumAt([]int) (int64, bool) { return 0, false }
