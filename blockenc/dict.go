package blockenc

import (
	"fmt"
	"hash/crc32"

	"github.com/kvenc/kvenc/blockenc/internal/frame"
	"github.com/kvenc/kvenc/blockenc/internal/lz4area"
	"github.com/kvenc/kvenc/blockenc/internal/lz4dict"
)

// MaxDictSize is the largest Dict: an LZ4 match reaches at most 65535
// bytes back.
const MaxDictSize = lz4dict.MaxDictLen

// Dict is a preset dictionary shared by many blocks, as RocksDB shares
// one per SST file (CompressionOptions.max_dict_bytes): with
// Options.Dict, the LZ4Dict cells of a block (Columnar: its value area)
// are cut into sub-blocks of about 1 KiB, all compressed against the
// Dict's bytes, and
// the block keeps only the Dict's ID, so a cold read decompresses one
// small sub-block and no dictionary. The reader must be given the same
// Dict (Seeker.InitDict). The user keeps the bytes (Bytes) with the
// blocks, for example once per file of blocks.
//
// A Dict is immutable and safe for concurrent use by many Encoders and
// Seekers; NewDict prepares what compression and decompression need once.
// Seekers decompress in a buffer that starts with a copy of the Dict's
// bytes, one kept per processor in a sync.Pool.
type Dict struct {
	d *lz4area.Dict
}

// NewDict returns a Dict of a copy of b, 1..MaxDictSize bytes (SampleDict
// makes one from sample values). An empty b is ErrInvalidOptions, a
// longer one ErrTooLarge.
func NewDict(b []byte) (*Dict, error) {
	switch {
	case len(b) == 0:
		return nil, fmt.Errorf("%w: dictionary of 0 bytes (want 1..%d)", ErrInvalidOptions, MaxDictSize)
	case len(b) > MaxDictSize:
		return nil, fmt.Errorf("%w: dictionary of %d bytes (max %d)", ErrTooLarge, len(b), MaxDictSize)
	}
	return &Dict{d: lz4area.NewDict(lz4dict.NewDict(b), crc32.Checksum(b, crcTable))}, nil
}

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// Bytes returns the dictionary's bytes (do not modify them): what to
// store to make the Dict again with NewDict.
func (d *Dict) Bytes() []byte { return d.d.LZ.Bytes() }

// ID returns the CRC-32C (Castagnoli) of the dictionary's bytes. Every
// block compressed against d records it, and a Seeker given another Dict
// refuses the block (ErrWrongDict).
func (d *Dict) ID() uint32 { return d.d.ID }

// ErrWrongDict: a block compressed against a Dict was read without one
// (Init instead of InitDict) or with a Dict of another ID. It wraps
// ErrCorrupt.
var ErrWrongDict = frame.ErrWrongDict

// SampleDict returns a dictionary of at most size bytes (at most
// MaxDictSize) made from sample values: pieces of up to 512 bytes taken
// at evenly spaced offsets of the values laid end to end, in their
// order, so that every part of the sample is represented (all of it when
// it fits). Give it values from the data the blocks will hold, many
// times size in total; it returns nil for no values or size < 1.
func SampleDict(values [][]byte, size int) []byte {
	size = min(size, MaxDictSize)
	total := 0
	for _, v := range values {
		total += len(v)
	}
	if size < 1 || total == 0 {
		return nil
	}
	out := make([]byte, 0, min(size, total))
	if total <= size {
		for _, v := range values {
			out = append(out, v...)
		}
		return out
	}
	const piece = 512
	n := (size + piece - 1) / piece // pieces
	// Piece k starts at offset k*total/n of the values end to end and
	// takes (k+1)*size/n - k*size/n bytes, crossing into the next values
	// if need be.
	vi, vstart := 0, 0 // values[vi] starts at offset vstart
	for k := range n {
		at := int(int64(k) * int64(total) / int64(n))
		for vstart+len(values[vi]) <= at {
			vstart += len(values[vi])
			vi++
		}
		want := (k+1)*size/n - k*size/n
		for j, off := vi, at-vstart; want > 0 && j < len(values); j, off = j+1, 0 {
			take := min(want, len(values[j])-off)
			out = append(out, values[j][off:off+take]...)
			want -= take
		}
	}
	return out
}
