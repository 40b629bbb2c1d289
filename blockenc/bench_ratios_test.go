package blockenc_test

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/kvenc/kvenc/blockenc"
)

// BenchmarkRatios measures what each option costs and saves as ratios against the block without it, with the variants
// interleaved round by round (medians of rounds), so that load from other
// processes on a shared machine hits every variant alike. Run it with
// -benchtime 1x -count 5 (each run is the whole measurement) and read the
// metrics; ns figures are per operation.
func BenchmarkRatios(b *testing.B) {
	b.Run("data=lineitem", func(b *testing.B) {
		for b.Loop() {
			ratiosLineitem(b)
		}
	})
	b.Run("data=timeseries", func(b *testing.B) {
		for b.Loop() {
			ratiosTimeSeries(b)
		}
	})
	b.Run("data=dedupe", func(b *testing.B) {
		for b.Loop() {
			ratiosDedupe(b)
		}
	})
	b.Run("data=dict", func(b *testing.B) {
		for b.Loop() {
			ratiosDict(b)
		}
	})
}

const ratioRounds = 15

// interleave runs every fn once per round, in rotating order, and returns
// each one's median.
func interleave(fns []func() float64) []float64 {
	res := make([][]float64, len(fns))
	for r := range ratioRounds {
		for i := range fns {
			j := (i + r) % len(fns)
			res[j] = append(res[j], fns[j]())
		}
	}
	med := make([]float64, len(fns))
	for i, xs := range res {
		slices.Sort(xs)
		med[i] = xs[len(xs)/2]
	}
	return med
}

// coldSeeks returns a function timing n InitDict(d)+SeekGE on random keys
// of blocks (ns per seek); d may be nil.
func coldSeeks(b *testing.B, blocks, firsts [][]byte, cells []blockenc.Cell, d *blockenc.Dict, n int) func() float64 {
	targets := make([][]byte, len(cells))
	for i, c := range cells {
		targets[i] = c.Key
	}
	rand.New(rand.NewPCG(7, 7)).Shuffle(len(targets), func(i, j int) { targets[i], targets[j] = targets[j], targets[i] })
	var s blockenc.Seeker
	i := 0
	return func() float64 {
		start := time.Now()
		for range n {
			k := targets[i%len(targets)]
			i++
			bi := max(sort.Search(len(firsts), func(i int) bool { return bytes.Compare(firsts[i], k) > 0 })-1, 0)
			if err := s.InitDict(blocks[bi], d); err != nil || !s.SeekGE(k) {
				b.Fatal("seek failed", err, s.Err())
			}
		}
		return float64(time.Since(start).Nanoseconds()) / float64(n)
	}
}

func ratiosLineitem(b *testing.B) {
	cells := lineitemBench()
	type variant struct {
		name string
		c    blockenc.Compression
		size int
	}
	vs := []variant{
		{"lz4-64k", blockenc.LZ4, featBlockSize},
		{"lz4-16k", blockenc.LZ4, 16 << 10},
		{"lz4-8k", blockenc.LZ4, 8 << 10},
		{"lz4dict-64k", blockenc.LZ4Dict, featBlockSize},
	}
	sizes := make([]int, len(vs))
	var fns []func() float64
	for i, v := range vs {
		opts := blockenc.DefaultOptions()
		opts.Compression = v.c
		blocks, firsts := cutBlocks(b, opts, cells, v.size)
		sizes[i] = totalLen(blocks)
		fns = append(fns, coldSeeks(b, blocks, firsts, cells, nil, 300))
	}
	// LZ4Dict again, decoding sub-blocks with pierrec's dictionary support.
	opts := blockenc.DefaultOptions()
	opts.Compression = blockenc.LZ4Dict
	blocks, firsts := cutBlocks(b, opts, cells, featBlockSize)
	pierrec := coldSeeks(b, blocks, firsts, cells, nil, 300)
	fns = append(fns, func() float64 {
		defer blockenc.SetDictAsLiterals(false)()
		return pierrec()
	})
	med := interleave(fns)
	b.ReportMetric(med[len(vs)], "lz4dict-pierrec-seekcold-ns")
	d := len(vs) - 1
	for i, v := range vs {
		b.ReportMetric(float64(sizes[i])/float64(len(cells)), v.name+"-B/cell")
		b.ReportMetric(med[i], v.name+"-seekcold-ns")
		if i != d {
			b.ReportMetric(float64(sizes[d])/float64(sizes[i]), "lz4dict/"+v.name+"-size")
			b.ReportMetric(med[d]/med[i], "lz4dict/"+v.name+"-seek")
		}
	}
}

func ratiosTimeSeries(b *testing.B) {
	cells := timeSeriesCells()
	inline, _ := cutBlocks(b, blockenc.Options{Encoding: blockenc.FastDiff, Compression: blockenc.LZ4}, cells, featBlockSize)
	col, _ := cutBlocks(b, blockenc.Options{Encoding: blockenc.FastDiff, IntValues: true}, cells, featBlockSize)
	colz, _ := cutBlocks(b, blockenc.Options{Encoding: blockenc.FastDiff, IntValues: true, Compression: blockenc.LZ4}, cells, featBlockSize)
	n := float64(len(cells))
	b.ReportMetric(float64(totalLen(inline))/n, "fastdiff+lz4-B/cell")
	b.ReportMetric(float64(totalLen(col))/n, "fastdiff+ints-B/cell")
	b.ReportMetric(float64(totalLen(colz))/n, "fastdiff+ints+lz4-B/cell")
	b.ReportMetric(float64(totalLen(inline))/float64(totalLen(colz)), "inline/ints+lz4-size")
	// Where the bytes go: the same cells with empty values cost what keys,
	// seqs and framing cost, and with zero seqs too what keys and framing
	// cost; the rest is the values, or values and seqs (the value column
	// blocks put both in columns).
	empty := make([]blockenc.Cell, len(cells))
	keysOnly := make([]blockenc.Cell, len(cells))
	zeroSeq := make([]blockenc.Cell, len(cells))
	batchSeq := make([]blockenc.Cell, len(cells))
	for i, c := range cells {
		empty[i] = blockenc.Cell{Key: c.Key, Seq: c.Seq, Kind: c.Kind}
		keysOnly[i] = blockenc.Cell{Key: c.Key, Kind: c.Kind}
		zeroSeq[i] = blockenc.Cell{Key: c.Key, Value: c.Value, Kind: c.Kind}
		batchSeq[i] = c
		batchSeq[i].Seq = 1<<40 + (c.Seq-1<<40)/200 // one write batch per tick
	}
	bare, _ := cutBlocks(b, blockenc.Options{Encoding: blockenc.FastDiff, Compression: blockenc.LZ4}, empty, featBlockSize)
	keys, _ := cutBlocks(b, blockenc.Options{Encoding: blockenc.FastDiff, Compression: blockenc.LZ4}, keysOnly, featBlockSize)
	b.ReportMetric(float64(totalLen(inline)-totalLen(bare))/n, "values-inline+lz4-B/cell")
	b.ReportMetric(float64(totalLen(keys))/n, "keys-lz4-B/cell")
	b.ReportMetric(float64(totalLen(inline)-totalLen(keys))/n, "values+seqs-inline+lz4-B/cell")
	b.ReportMetric(float64(totalLen(colz)-totalLen(keys))/n, "values+seqs-columns-B/cell")
	// Seqs zeroed, as bulk-loaded or compacted-to-bottom data has them
	// (Pebble zeroes seqnums there).
	inline0, _ := cutBlocks(b, blockenc.Options{Encoding: blockenc.FastDiff, Compression: blockenc.LZ4}, zeroSeq, featBlockSize)
	colz0, _ := cutBlocks(b, blockenc.Options{Encoding: blockenc.FastDiff, IntValues: true, Compression: blockenc.LZ4}, zeroSeq, featBlockSize)
	b.ReportMetric(float64(totalLen(inline0))/n, "seq0-fastdiff+lz4-B/cell")
	b.ReportMetric(float64(totalLen(colz0))/n, "seq0-fastdiff+ints+lz4-B/cell")
	b.ReportMetric(float64(totalLen(inline0))/float64(totalLen(colz0)), "seq0-inline/ints+lz4-size")
	// One seq per tick (a write batch per scrape).
	inlineB, _ := cutBlocks(b, blockenc.Options{Encoding: blockenc.FastDiff, Compression: blockenc.LZ4}, batchSeq, featBlockSize)
	colzB, _ := cutBlocks(b, blockenc.Options{Encoding: blockenc.FastDiff, IntValues: true, Compression: blockenc.LZ4}, batchSeq, featBlockSize)
	b.ReportMetric(float64(totalLen(inlineB))/float64(totalLen(colzB)), "batchseq-inline/ints+lz4-size")
}

// dedupeColumns are the cells of the dedupe measures: lineitem keys
// whose value is l_shipmode (7 distinct values) or l_shipdate (~2500).
func dedupeColumns() []columnSet {
	rows := lineitemRows(rand.New(rand.NewPCG(2026, 8)), 20000)
	return []columnSet{
		{"shipmode", rowCells(rows, func(r lineitemRow) []byte { return r.shipmode })},
		{"shipdate", rowCells(rows, func(r lineitemRow) []byte { return r.shipdate })},
	}
}

// ratiosDedupe: for each column, encode and scan with and without dedupe,
// interleaved; reports dedupe/plain ratios of size, encode and scan time.
func ratiosDedupe(b *testing.B) {
	for _, col := range dedupeColumns() {
		cells := col.cells
		var fns []func() float64
		var sizes [2]int
		for i, dedupe := range []bool{false, true} {
			opts := blockenc.DefaultOptions()
			opts.DedupeValues = dedupe
			blocks, _ := cutBlocks(b, opts, cells, featBlockSize)
			sizes[i] = totalLen(blocks)
			e := blockenc.NewEncoder(opts)
			fns = append(fns, func() float64 { // encode, ns/cell
				start := time.Now()
				encodeAll(b, e, cells)
				return float64(time.Since(start).Nanoseconds()) / float64(len(cells))
			})
			var s blockenc.Seeker
			var out []byte
			fns = append(fns, func() float64 { // scan, ns/cell, copying values
				start := time.Now()
				for _, blk := range blocks {
					if err := s.Init(blk); err != nil {
						b.Fatal(err)
					}
					for ok := s.First(); ok; ok = s.Next() {
						out = append(out[:0], s.Cell().Value...)
					}
				}
				sinkInt += len(out)
				return float64(time.Since(start).Nanoseconds()) / float64(len(cells))
			})
		}
		med := interleave(fns)
		b.ReportMetric(float64(sizes[1])/float64(sizes[0]), col.name+"-size")
		b.ReportMetric(med[2]/med[0], col.name+"-encode")
		b.ReportMetric(med[3]/med[1], col.name+"-scan")
		b.ReportMetric(med[1], col.name+"-scan-plain-ns/cell")
	}
}

// encodeAll encodes cells with e, finishing a block at every
// featBlockSize bytes (the blocks are dropped, their lengths sunk).
func encodeAll(b *testing.B, e *blockenc.Encoder, cells []blockenc.Cell) {
	e.Reset()
	for _, c := range cells {
		if err := e.Add(c); err != nil {
			b.Fatal(err)
		}
		if e.Size() >= featBlockSize {
			blk, _ := e.Finish()
			sinkInt += len(blk)
			e.Reset()
		}
	}
}
