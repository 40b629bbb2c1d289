package segwrite

import (
	"math"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/internal/segment"
	"github.com/kvenc/kvenc/memstore"
)

// Segment dictionaries: a flush samples the values of its memstore
// (SampleMemstore), a compaction those of a few blocks spread over its
// input segments (SampleSegments), and blockenc.SampleDict makes the
// segment's preset dictionary of at most DictSize bytes from them before
// the first block is written.

const (
	// dictSamples bounds how many values a dictionary is sampled from.
	dictSamples = 2048
	// dictBlocks bounds how many input blocks a compaction reads to
	// sample its dictionary (about 20 us each).
	dictBlocks = 32
	// dictShare: a dictionary is at most 1/dictShare of the segment's
	// value bytes, so that a small segment does not carry a dictionary as
	// large as itself.
	dictShare = 16
	// MinDict: below this a dictionary is not worth its place in the
	// meta, and the segment has none.
	MinDict = 1 << 10
	// dictBlockStep: a compaction samples every dictBlockStep-th cell of
	// the blocks it reads.
	dictBlockStep = 4
)

// dictFrom returns a dictionary sampled from vals for a segment of about
// valueBytes bytes of values, or nil when it would be too small.
func (st *Store) dictFrom(vals [][]byte, valueBytes int64) []byte {
	size := min(int64(st.c.DictSize), valueBytes/dictShare)
	if size < MinDict {
		return nil
	}
	d := blockenc.SampleDict(vals, int(size))
	if len(d) < MinDict {
		return nil
	}
	return d
}

// SampleMemstore returns the dictionary of a flush of ms, sampled from
// the values of every k-th cell of it, or nil.
func (st *Store) SampleMemstore(ms *memstore.Memstore) []byte {
	step := max(1, ms.Len()/dictSamples)
	var vals [][]byte
	var sampled, n int64
	it := ms.NewIterator(math.MaxUint64, true)
	for it.First(); it.Valid(); it.Next() {
		if n%int64(step) == 0 {
			if c := it.Cell(); c.Kind == blockenc.KindPut && len(c.Value) > 0 {
				vals = append(vals, c.Value)
				sampled += int64(len(c.Value))
			}
		}
		n++
	}
	return st.dictFrom(vals, sampled*int64(step))
}

// SampleSegments returns the dictionary of a compaction of in, sampled
// from the values of up to dictBlocks blocks spread over in, each input's
// share by its block count, or nil.
func (st *Store) SampleSegments(in []*segment.Segment) ([]byte, error) {
	var blocks, cells int64
	for _, g := range in {
		blocks += int64(len(g.BlockKeys))
		cells += int64(g.Meta.Cells)
	}
	if blocks == 0 {
		return nil, nil
	}
	const perBlock = dictSamples / dictBlocks
	var vals [][]byte
	var sampled int64
	for _, g := range in {
		nb := len(g.BlockKeys)
		k := int((int64(nb)*dictBlocks + blocks - 1) / blocks)
		for j := 0; j < k && j < nb; j++ {
			i := j * nb / k
			cb, rb, err := st.c.Reader.ReadBlock(g, i, false, true, nil, nil)
			if err != nil {
				return nil, err
			}
			sk, err := cb.Seeker()
			if err != nil {
				rb.Release()
				return nil, err
			}
			n := 0
			for ok := sk.First(); ok && n < perBlock*dictBlockStep; ok = sk.Next() {
				if n%dictBlockStep == 0 {
					if c := sk.Cell(); c.Kind == blockenc.KindPut && len(c.Value) > 0 {
						vals = append(vals, append([]byte(nil), c.Value...))
						sampled += int64(len(c.Value))
					}
				}
				n++
			}
			err = sk.Err()
			cb.DoneWith(sk, true)
			rb.Release()
			if err != nil {
				return nil, err
			}
		}
	}
	if len(vals) == 0 {
		return nil, nil
	}
	return st.dictFrom(vals, sampled*cells/int64(len(vals))), nil
}
