// Package pebbleblk builds and reads Pebble v2 data blocks the way Pebble's
// sstable writer and reader do: cells written to a rowblk block (restart
// interval 16, every cell a Set), the finished block compressed whole by
// one of Pebble's own compression profiles (block.SnappyCompression,
// block.ZstdCompression: zstd level 3, through cgo when it is enabled) and
// given its trailer (compression indicator, CRC-32C), and read back by
// checking the checksum, decompressing into a buffer and pointing a
// rowblk.Iter at it.
//
// Pebble stores a block uncompressed when compressing saves less than the
// profile's MinReductionPercent (12%); Compress does the same. Block sizes
// include the 5-byte trailer, as kvenc's blocks include their CRC-32C, and
// reading checks it, as kvenc's Seeker.Init checks theirs.
package pebbleblk

import (
	"bytes"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/sstable/block"
	"github.com/cockroachdb/pebble/v2/sstable/block/blockkind"
	"github.com/cockroachdb/pebble/v2/sstable/rowblk"

	"github.com/kvenc/kvenc/bench/internal/dataset"
)

// RestartInterval is the rowblk restart interval (Pebble's default).
const RestartInterval = 16

// Build writes cells, sorted by key, to one uncompressed rowblk block.
func Build(cells []dataset.KV) ([]byte, error) {
	w := &rowblk.Writer{RestartInterval: RestartInterval}
	for _, kv := range cells {
		if err := w.Add(pebble.MakeInternalKey(kv.Key, pebble.SeqNum(kv.Seq), pebble.InternalKeyKindSet), kv.Value); err != nil {
			return nil, err
		}
	}
	return w.Finish(), nil
}

// Block is one physical block as Pebble stores it: the (possibly
// compressed) block, then its 5-byte trailer, the compression indicator and
// a CRC-32C (Pebble's default checksum) of the block and indicator.
type Block struct {
	Phys []byte
}

// Size is the block's stored size, trailer included.
func (b Block) Size() int { return len(b.Phys) }

// CI is how the block is compressed.
func (b Block) CI() block.CompressionIndicator {
	return block.CompressionIndicator(b.Phys[len(b.Phys)-block.TrailerLen])
}

// Data is the block without its trailer (compressed or not).
func (b Block) Data() []byte { return b.Phys[:len(b.Phys)-block.TrailerLen] }

// Compressor compresses and checksums whole blocks with one Pebble
// profile, as Pebble's sstable writer does.
type Compressor struct {
	c   block.Compressor
	sum block.Checksummer
	buf []byte
}

// NewCompressor returns a Compressor for profile p (block.NoCompression,
// block.SnappyCompression, block.ZstdCompression, ...). Close it when done.
func NewCompressor(p *block.CompressionProfile) *Compressor {
	c := &Compressor{c: block.MakeCompressor(p)}
	c.sum.Init(block.ChecksumTypeCRC32c)
	return c
}

// Compress returns raw as Pebble would store it (raw is not retained).
func (c *Compressor) Compress(raw []byte) Block {
	ci, out := c.c.Compress(c.buf[:0], raw, blockkind.SSTableData)
	c.buf = out
	t := block.MakeTrailer(byte(ci), c.sum.Checksum(out, byte(ci)))
	phys := make([]byte, 0, len(out)+len(t))
	return Block{Phys: append(append(phys, out...), t[:]...)}
}

// Close releases the compressor.
func (c *Compressor) Close() { c.c.Close() }

// Reader reads blocks as Pebble's block reader does on a block cache miss
// (block.Reader.Read, the file's bytes already in memory): check the
// checksum, decompress when compressed into a buffer it keeps, then Init a
// rowblk.Iter on the block. The iterator's results stay valid until the
// next Init.
type Reader struct {
	It  rowblk.Iter
	buf []byte
}

// Init checks b, decompresses it and points r.It at it.
func (r *Reader) Init(b Block) error {
	data := b.Data()
	if err := block.ValidateChecksum(block.ChecksumTypeCRC32c, b.Phys, block.Handle{Length: uint64(len(data))}); err != nil {
		return err
	}
	if ci := b.CI(); ci != block.NoCompressionIndicator {
		d := block.GetDecompressor(ci)
		n, err := d.DecompressedLen(data)
		if err != nil {
			d.Close()
			return err
		}
		if cap(r.buf) < n {
			r.buf = make([]byte, n)
		}
		r.buf = r.buf[:n]
		err = d.DecompressInto(r.buf, data)
		d.Close()
		if err != nil {
			return err
		}
		data = r.buf
	}
	return InitIter(&r.It, data)
}

// InitIter points it at the uncompressed block raw.
func InitIter(it *rowblk.Iter, raw []byte) error {
	cmp := pebble.DefaultComparer
	return it.Init(cmp.Compare, cmp.ComparePointSuffixes, cmp.Split, raw, block.NoTransforms)
}

// Check reads b back through a Reader and compares every cell, in order,
// with cells (key, value and seq).
func Check(b Block, cells []dataset.KV) error {
	var r Reader
	if err := r.Init(b); err != nil {
		return err
	}
	n := 0
	for kv := r.It.First(); kv != nil; kv = r.It.Next() {
		if n >= len(cells) || !bytes.Equal(kv.K.UserKey, cells[n].Key) || !bytes.Equal(kv.InPlaceValue(), cells[n].Value) ||
			uint64(kv.K.SeqNum()) != cells[n].Seq {
			return fmt.Errorf("pebbleblk: %s block: cell %d does not read back", b.CI(), n)
		}
		n++
	}
	if err := r.It.Error(); err != nil {
		return err
	}
	if n != len(cells) {
		return fmt.Errorf("pebbleblk: %s block: read %d of %d cells", b.CI(), n, len(cells))
	}
	return nil
}
