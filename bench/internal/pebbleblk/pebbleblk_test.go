package pebbleblk

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/cockroachdb/pebble/v2/sstable/block"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/bench/internal/dataset"
)

func cells(n int) []dataset.KV {
	out := make([]dataset.KV, n)
	for i := range out {
		out[i] = dataset.KV{
			Key:   binary.BigEndian.AppendUint64([]byte("row/"), uint64(i*3)),
			Value: fmt.Appendf(nil, "value %d of a compressible row", i%17),
			Seq:   1<<40 + uint64(i),
		}
	}
	return out
}

func TestRoundTrip(t *testing.T) {
	kvs := cells(2000)
	raw, err := Build(kvs)
	require.NoError(t, err)
	for _, p := range []*block.CompressionProfile{block.NoCompression, block.SnappyCompression, block.ZstdCompression} {
		c := NewCompressor(p)
		b := c.Compress(raw)
		c.Close()
		assert.NoError(t, Check(b, kvs), p.Name)
		if p != block.NoCompression {
			assert.NotEqual(t, block.NoCompressionIndicator, b.CI(), p.Name)
			assert.Less(t, b.Size(), len(raw), "%s: compressed bytes", p.Name)
		} else {
			assert.Equal(t, block.NoCompressionIndicator, b.CI(), p.Name)
			assert.Equal(t, len(raw)+block.TrailerLen, b.Size(), "%s: bytes", p.Name)
		}
		// A flipped bit anywhere fails the checksum.
		for _, at := range []int{0, b.Size() / 2, b.Size() - 1} {
			bad := Block{Phys: bytes.Clone(b.Phys)}
			bad.Phys[at] ^= 0x10
			var r Reader
			assert.Error(t, r.Init(bad), "%s: a flipped bit at %d read without error", p.Name, at)
		}
		assert.Error(t, Check(b, kvs[:len(kvs)-1]), "%s: Check missed an extra cell", p.Name)
	}
}

func TestIncompressibleStaysRaw(t *testing.T) {
	kvs := make([]dataset.KV, 500)
	x := uint64(88172645463325252)
	for i := range kvs {
		v := make([]byte, 0, 64)
		for len(v) < 64 {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			v = binary.LittleEndian.AppendUint64(v, x)
		}
		kvs[i] = dataset.KV{Key: binary.BigEndian.AppendUint64(nil, uint64(i)), Value: v, Seq: 1}
	}
	raw, err := Build(kvs)
	require.NoError(t, err)
	c := NewCompressor(block.SnappyCompression)
	defer c.Close()
	b := c.Compress(raw)
	assert.Equal(t, block.NoCompressionIndicator, b.CI(), "random values: indicator")
	assert.Equal(t, raw, b.Data(), "random values: data")
}
