package pebbleblk

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/cockroachdb/pebble/v2/sstable/block"

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
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []*block.CompressionProfile{block.NoCompression, block.SnappyCompression, block.ZstdCompression} {
		c := NewCompressor(p)
		b := c.Compress(raw)
		c.Close()
		if err := Check(b, kvs); err != nil {
			t.Errorf("%s: %v", p.Name, err)
		}
		compressed := p != block.NoCompression
		if compressed != (b.CI() != block.NoCompressionIndicator) || (compressed && b.Size() >= len(raw)) ||
			(!compressed && b.Size() != len(raw)+block.TrailerLen) {
			t.Errorf("%s: indicator %s, %d bytes from %d", p.Name, b.CI(), b.Size(), len(raw))
		}
		// A flipped bit anywhere fails the checksum.
		for _, at := range []int{0, b.Size() / 2, b.Size() - 1} {
			bad := Block{Phys: bytes.Clone(b.Phys)}
			bad.Phys[at] ^= 0x10
			var r Reader
			if err := r.Init(bad); err == nil {
				t.Errorf("%s: a flipped bit at %d read without error", p.Name, at)
			}
		}
		if err := Check(b, kvs[:len(kvs)-1]); err == nil {
			t.Errorf("%s: Check missed an extra cell", p.Name)
		}
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
	if err != nil {
		t.Fatal(err)
	}
	c := NewCompressor(block.SnappyCompression)
	defer c.Close()
	if b := c.Compress(raw); b.CI() != block.NoCompressionIndicator || !bytes.Equal(b.Data(), raw) {
		t.Errorf("random values: indicator %s, %d of %d bytes", b.CI(), len(b.Data()), len(raw))
	}
}
