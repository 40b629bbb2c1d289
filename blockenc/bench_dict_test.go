package blockenc_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/blockenc"
)

// BenchmarkDict: lineitem rows (lineitemBench) in Columnar blocks of 16
// and 32 KiB with LZ4Dict, the dictionary in each block (dict=inblock:
// 8 KiB, then 8 KiB sub-blocks) or a 64 KiB Dict sampled from other rows
// (dict=shared: 1 KiB sub-blocks), at levels 0 and 4. op=encode cuts every
// cell into blocks (SetBytes: the keys and values); op=seekcold is Init and
// SeekGE of a random key on a block not read yet (subs/seek: the
// sub-blocks it decompressed). B/block is the mean block length.
func BenchmarkDict(b *testing.B) {
	cells := lineitemBench()
	raw := 0
	for _, c := range cells {
		raw += len(c.Key) + len(c.Value)
	}
	d := lineitemDict(b)
	targets := make([][]byte, len(cells))
	for i, c := range cells {
		targets[i] = c.Key
	}
	rand.New(rand.NewPCG(7, 7)).Shuffle(len(targets), func(i, j int) { targets[i], targets[j] = targets[j], targets[i] })
	for _, v := range dictVariants(d) {
		blocks, firsts := cutBlocks(b, v.opts, cells, v.size)
		perBlock := float64(totalLen(blocks)) / float64(len(blocks))
		b.Run(v.name+"/op=encode", func(b *testing.B) {
			b.SetBytes(int64(raw)) // keys and values
			b.ReportAllocs()
			for b.Loop() {
				cutBlocks(b, v.opts, cells, v.size)
			}
			b.ReportMetric(perBlock, "B/block")
		})
		b.Run(v.name+"/op=seekcold", func(b *testing.B) {
			var s blockenc.Seeker
			b.ReportAllocs()
			i, subs := 0, 0
			for b.Loop() {
				k := targets[i%len(targets)]
				bi := max(sort.Search(len(firsts), func(i int) bool { return bytes.Compare(firsts[i], k) > 0 })-1, 0)
				if err := s.InitDict(blocks[bi], d); err != nil || !s.SeekGE(k) {
					b.Fatal("not found", err, s.Err())
				}
				sinkInt += len(s.Cell().Value)
				loaded, _ := blockenc.ColumnarSubsLoaded(&s)
				subs += loaded
				i++
			}
			b.ReportMetric(float64(subs)/float64(i), "subs/seek")
			b.ReportMetric(perBlock, "B/block")
		})
	}
}

// dictVariant is one set of options BenchmarkDict and ratiosDict compare.
type dictVariant struct {
	name string
	opts blockenc.Options
	size int // block size
}

// dictVariants: Columnar LZ4Dict blocks of 16 and 32 KiB at levels 0 and
// 4, each with the in-block dictionary and then with d.
func dictVariants(d *blockenc.Dict) []dictVariant {
	var vs []dictVariant
	for _, size := range []int{16 << 10, 32 << 10} {
		for _, level := range []int{0, 4} {
			opts := blockenc.Options{Encoding: blockenc.Columnar, Compression: blockenc.LZ4Dict, CompressionLevel: level}
			name := fmt.Sprintf("block=%dk/level=%d/dict=", size>>10, level)
			vs = append(vs, dictVariant{name + "inblock", opts, size})
			opts.Dict = d
			vs = append(vs, dictVariant{name + "shared", opts, size})
		}
	}
	return vs
}

// lineitemDict is a 64 KiB Dict sampled from 3000 lineitem rows other than
// lineitemBench's.
func lineitemDict(tb testing.TB) *blockenc.Dict {
	var sample [][]byte
	for _, r := range lineitemRows(rand.New(rand.NewPCG(3, 3)), 3000) {
		sample = append(sample, r.value)
	}
	d, err := blockenc.NewDict(blockenc.SampleDict(sample, blockenc.MaxDictSize))
	require.NoError(tb, err)
	return d
}

// ratiosDict: lineitem Columnar blocks of 16 and 32 KiB at levels 0 and
// 4, the in-block dictionary against a shared Dict, interleaved
// (BenchmarkRatios): encoding (ns per block, cutting every cell into
// blocks), cold SeekGE (ns per seek), bytes per block, and the shared
// Dict's ratios to the in-block dictionary.
func ratiosDict(b *testing.B) {
	cells := lineitemBench()
	d := lineitemDict(b)
	var fns []func() float64
	var names []string
	var sizes []float64
	for _, v := range dictVariants(d) {
		blocks, firsts := cutBlocks(b, v.opts, cells, v.size)
		names = append(names, v.name)
		sizes = append(sizes, float64(totalLen(blocks))/float64(len(blocks)))
		fns = append(fns, func() float64 {
			start := time.Now()
			cutBlocks(b, v.opts, cells, v.size)
			return float64(time.Since(start).Nanoseconds()) / float64(len(blocks))
		}, coldSeeks(b, blocks, firsts, cells, d, 300))
	}
	med := interleave(fns)
	for i, name := range names {
		enc, seek := med[2*i], med[2*i+1]
		b.ReportMetric(enc, name+"-encode-ns/block")
		b.ReportMetric(seek, name+"-seekcold-ns")
		b.ReportMetric(sizes[i], name+"-B/block")
		if i%2 == 1 {
			b.ReportMetric(enc/med[2*i-2], name+"/inblock-encode")
			b.ReportMetric(seek/med[2*i-1], name+"/inblock-seek")
			b.ReportMetric(sizes[i]/sizes[i-1], name+"/inblock-size")
		}
	}
}
