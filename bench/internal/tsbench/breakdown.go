package tsbench

import (
	"slices"

	"github.com/prometheus/prometheus/tsdb/chunkenc"

	"github.com/kvenc/kvenc/bench/internal/floatbench"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/blockenc/shapeshift"
	"github.com/kvenc/kvenc/kv"
)

// Breakdown says where the bytes of kvenc's blocks go, per sample: the
// cells encoded as a compaction writes them (kv's default block options at
// its compaction level, blocks cut at kv's default block size, no segment
// dictionary), then again with every seq 0 and again with every value the
// same as well. Seqs cost Blocks - NoSeq; values NoSeq - KeysOnly; the keys
// and the blocks' own bytes (headers, restart index, checksum) KeysOnly.
//
// PromTimestamps is what the same timestamps cost in Prometheus's XOR
// chunks (120 samples each) per sample: the chunk bytes of the timestamps
// with every value 0, less the 2-byte chunk header and the values' bits (64
// for the first, 1 for each repeat).
//
// FloatValues is what the values of each block take as one kvenc float
// column (shapeshift.EncodeFloat64, default options), per sample, to set
// beside what the blocks keep for them.
type Breakdown struct {
	Blocks, NoSeq, KeysOnly float64 // bytes per sample
	BlockCount              int
	PromTimestamps          float64 // bytes per sample
	FloatValues             float64 // bytes per sample
}

// MeasureBreakdown encodes the series' cells as kvenc's store holds them
// (sorted by key; the seq of a sample is its scrape's number, one Apply
// per scrape) three ways.
func MeasureBreakdown(series []Series) (Breakdown, error) {
	sorted := slices.Clone(series)
	slices.SortFunc(sorted, func(a, b Series) int {
		return slices.Compare([]byte(a.Name), []byte(b.Name))
	})
	n := float64(Samples(series))
	var b Breakdown
	var err error
	var blocks int
	if b.Blocks, b.FloatValues, blocks, err = encodedBytes(sorted, true, true); err != nil {
		return b, err
	}
	if b.NoSeq, _, _, err = encodedBytes(sorted, false, true); err != nil {
		return b, err
	}
	if b.KeysOnly, _, _, err = encodedBytes(sorted, false, false); err != nil {
		return b, err
	}
	b.Blocks, b.NoSeq, b.KeysOnly, b.FloatValues, b.BlockCount = b.Blocks/n, b.NoSeq/n, b.KeysOnly/n, b.FloatValues/n, blocks
	b.PromTimestamps, err = promTimestampBits(series)
	b.PromTimestamps /= 8 * n
	return b, err
}

// promTimestampBits returns the bits the series' timestamps take in XOR
// chunks of 120 samples.
func promTimestampBits(series []Series) (float64, error) {
	bits := 0
	for _, s := range series {
		err := floatbench.XORChunks(s.T, make([]float64, len(s.T)), func(c *chunkenc.XORChunk, n int) {
			bits += 8*len(c.Bytes()) - 16 - 64 - (n - 1)
		})
		if err != nil {
			return 0, err
		}
	}
	return float64(bits), nil
}

// encodedBytes returns the bytes of the blocks of every cell, the bytes of
// their values as one float column per block, and how many blocks there
// are.
func encodedBytes(series []Series, seqs, values bool) (total, floats float64, blocks int, err error) {
	o := kv.DefaultBlockOptions()
	o.CompressionLevel = kv.DefaultCompactionLevel
	enc := blockenc.NewEncoder(o)
	var vals []float64
	var col []byte
	finish := func() error {
		blk, err := enc.Finish()
		if err != nil {
			return err
		}
		col = shapeshift.EncodeFloat64(col[:0], vals, shapeshift.DefaultOptions())
		total, floats = total+float64(len(blk)), floats+float64(len(col))
		blocks++
		enc.Reset()
		vals = vals[:0]
		return nil
	}
	var key, val []byte
	for _, s := range series {
		for i := range s.T {
			key = Key(key[:0], s.Name, s.T[i])
			val = Value(val[:0], 0)
			if values {
				val = Value(val[:0], s.V[i])
			}
			c := blockenc.Cell{Key: key, Value: val, Kind: blockenc.KindPut}
			if seqs {
				c.Seq = uint64(i) + 1
			}
			if err := enc.Add(c); err != nil {
				return 0, 0, 0, err
			}
			vals = append(vals, s.V[i])
			if enc.Size() >= kv.DefaultBlockSize {
				if err := finish(); err != nil {
					return 0, 0, 0, err
				}
			}
		}
	}
	if enc.Len() > 0 {
		err = finish()
	}
	return total, floats, blocks, err
}
