// Package pebbleblk builds and reads Pebble v2 data blocks the way Pebble's
// sstable writer and reader do: cells written to a rowblk block (restart
// interval 16, every cell a Set), the finished block compressed whole by
// one of Pebble's own compression profiles (block.SnappyCompression,
// block.ZstdCompression: zstd level 3, through cgo when it is enabled), and
// read back by decompressing into a buffer and pointing a rowblk.Iter at
// it.
//
// Pebble stores a block uncompressed when compressing saves less than the
// profile's MinReductionPercent (12%); Compress does the same. Block sizes
// include Pebble's 5-byte block trailer (compression indicator and
// checksum), as kvenc's blocks include their CRC-32C.
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

// Block is one physical block: its bytes as stored and how they are
// compressed.
type Block struct {
	CI   block.CompressionIndicator
	Data []byte
}

// Size is the block's stored size, trailer included.
func (b Block) Size() int { return len(b.Data) + block.TrailerLen }

// Compressor compresses whole blocks with one Pebble profile.
type Compressor struct {
	c   block.Compressor
	buf []byte
}

// NewCompressor returns a Compressor for profile p (block.NoCompression,
// block.SnappyCompression, block.ZstdCompression, ...). Close it when done.
func NewCompressor(p *block.CompressionProfile) *Compressor {
	return &Compressor{c: block.MakeCompressor(p)}
}

// Compress returns raw compressed as Pebble would store it (a copy; raw is
// not retained).
func (c *Compressor) Compress(raw []byte) Block {
	ci, out := c.c.Compress(c.buf[:0], raw, blockkind.SSTableData)
	c.buf = out
	return Block{CI: ci, Data: bytes.Clone(out)}
}

// Close releases the compressor.
func (c *Compressor) Close() { c.c.Close() }

// Reader reads blocks as Pebble's sstable reader does: decompress (when
// compressed) into a buffer it keeps, then Init a rowblk.Iter on it. The
// iterator's results stay valid until the next Init.
type Reader struct {
	It  rowblk.Iter
	buf []byte
}

// Init decompresses b and points r.It at it.
func (r *Reader) Init(b Block) error {
	data := b.Data
	if b.CI != block.NoCompressionIndicator {
		d := block.GetDecompressor(b.CI)
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
			return fmt.Errorf("pebbleblk: %s block: cell %d does not read back", b.CI, n)
		}
		n++
	}
	if err := r.It.Error(); err != nil {
		return err
	}
	if n != len(cells) {
		return fmt.Errorf("pebbleblk: %s block: read %d of %d cells", b.CI, n, len(cells))
	}
	return nil
}
