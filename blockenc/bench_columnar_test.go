package blockenc_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/kvenc/kvenc/blockenc"
)

// TPC-H lineitem in the column layout: one cell per (column, row), key =
// column name | 8-byte big-endian orderkey | 4-byte big-endian linenumber,
// so each column is one run of cells, cut into blocks. Synthetic, with a
// fixed seed: orders of 1-7 lines, orderkeys in TPC-H's sparse pattern
// (8 of every 32), seqs in load order (one per row, ascending with the
// key, as a bulk load writes them).

// returnFlags are l_returnflag's values; shipModes, shipInstructs and
// commentWords (bench_features_test.go) the others'.
var returnFlags = []string{"R", "A", "N"}

type columnSet struct {
	name  string
	cells []blockenc.Cell
}

// lineitemColumns returns the five columns of rows lineitem rows.
func lineitemColumns(rows int) []columnSet {
	rng := rand.New(rand.NewPCG(2026, 9))
	type row struct {
		order uint64
		line  uint32
	}
	var rs []row
	for o := 0; len(rs) < rows; o++ {
		key := uint64(o/8*32 + o%8 + 1)
		for l := range 1 + rng.IntN(7) {
			rs = append(rs, row{key, uint32(l + 1)})
		}
	}
	rs = rs[:rows]
	day0 := time.Date(1992, 1, 2, 0, 0, 0, 0, time.UTC)
	gen := []struct {
		name string
		val  func() []byte
	}{
		{"l_shipmode", func() []byte { return []byte(shipModes[rng.IntN(len(shipModes))]) }},
		{"l_returnflag", func() []byte { return []byte(returnFlags[rng.IntN(len(returnFlags))]) }},
		{"l_shipinstruct", func() []byte { return []byte(shipInstructs[rng.IntN(len(shipInstructs))]) }},
		{"l_shipdate", func() []byte { return []byte(day0.AddDate(0, 0, rng.IntN(2526)).Format("2006-01-02")) }},
		{"l_comment", func() []byte {
			var b []byte
			for i := range 2 + rng.IntN(5) {
				if i > 0 {
					b = append(b, ' ')
				}
				b = append(b, commentWords[rng.IntN(len(commentWords))]...)
			}
			return b
		}},
	}
	var sets []columnSet
	for _, g := range gen {
		cells := make([]blockenc.Cell, rows)
		for i, r := range rs {
			k := append([]byte(g.name), make([]byte, 12)...)
			binary.BigEndian.PutUint64(k[len(g.name):], r.order)
			binary.BigEndian.PutUint32(k[len(g.name)+8:], r.line)
			cells[i] = blockenc.Cell{Key: k, Value: g.val(), Seq: 1<<40 + uint64(i), Kind: blockenc.KindPut}
		}
		sets = append(sets, columnSet{g.name, cells})
	}
	return sets
}

// colVariants are the encodings compared: Columnar (LZ4 on its value area
// when that is smaller) against the row encodings.
var colVariants = []struct {
	name string
	opts blockenc.Options
}{
	{"columnar", blockenc.Options{Encoding: blockenc.Columnar, Compression: blockenc.LZ4}},
	{"columnar+lz4dict", blockenc.Options{Encoding: blockenc.Columnar, Compression: blockenc.LZ4Dict}},
	{"fastdiff", blockenc.Options{Encoding: blockenc.FastDiff}},
	{"fastdiff+lz4dict", blockenc.Options{Encoding: blockenc.FastDiff, Compression: blockenc.LZ4Dict}},
	{"rowindex", blockenc.Options{Encoding: blockenc.RowIndex}},
}

// sameCuts encodes cells with opts in the same blocks as cuts (the cell
// count of each block).
func sameCuts(tb testing.TB, opts blockenc.Options, cells []blockenc.Cell, cuts []int) [][]byte {
	var blocks [][]byte
	for _, n := range cuts {
		blocks = append(blocks, encodeAny(tb, opts, cells[:n]))
		cells = cells[n:]
	}
	return blocks
}

// columnCuts: the cells that fill 32 KiB RowIndex blocks (uncompressed),
// so every variant stores the same cells in the same blocks.
func columnCuts(tb testing.TB, cells []blockenc.Cell) []int {
	blocks, _ := cutBlocks(tb, blockenc.Options{Encoding: blockenc.RowIndex}, cells, 32<<10)
	var cuts []int
	for _, b := range blocks {
		s, err := blockenc.NewSeeker(b)
		if err != nil {
			tb.Fatal(err)
		}
		n := 0
		for ok := s.First(); ok; ok = s.Next() {
			n++
		}
		cuts = append(cuts, n)
	}
	return cuts
}

type colResult struct{ bpc, seek, cold, scan float64 }

// BenchmarkColumnar compares Columnar with the row encodings on the
// lineitem columns. Each variant's timings are
// interleaved round by round in one process and the medians reported:
//
//	go test -run '^$' -bench Columnar -benchtime 1x -count 5 ./blockenc/
//
// seek is SeekGE of a random key of the column on a Seeker already on its
// block (Init not timed), cold is Init and SeekGE, scan is Init, First
// and Next over every block reading each value (ns per cell).
func BenchmarkColumnar(b *testing.B) {
	for _, set := range lineitemColumns(30000) {
		cuts := columnCuts(b, set.cells)
		firsts := make([][]byte, 0, len(cuts))
		at := 0
		for _, n := range cuts {
			firsts = append(firsts, set.cells[at].Key)
			at += n
		}
		var fns []func() float64
		res := make([]colResult, len(colVariants))
		for vi, v := range colVariants {
			blocks := sameCuts(b, v.opts, set.cells, cuts)
			res[vi].bpc = float64(totalLen(blocks)) / float64(len(set.cells))
			seekers := make([]*blockenc.Seeker, len(blocks))
			for i, blk := range blocks {
				var err error
				if seekers[i], err = blockenc.NewSeeker(blk); err != nil {
					b.Fatal(err)
				}
			}
			rng := rand.New(rand.NewPCG(5, 5))
			const nSeek = 4000
			fns = append(fns, func() float64 { // seek
				start := time.Now()
				for range nSeek {
					i := rng.IntN(len(set.cells))
					bi, k := blockOf(cuts, i), set.cells[i].Key
					if !seekers[bi].SeekGE(k) || !bytes.Equal(seekers[bi].Cell().Key, k) {
						b.Fatal("seek failed")
					}
				}
				return float64(time.Since(start).Nanoseconds()) / nSeek
			})
			fns = append(fns, coldSeeks(b, blocks, firsts, set.cells, nil, 1000))
			var s blockenc.Seeker
			fns = append(fns, func() float64 { // scan
				start := time.Now()
				n, sink := 0, 0
				for _, blk := range blocks {
					if err := s.Init(blk); err != nil {
						b.Fatal(err)
					}
					for ok := s.First(); ok; ok = s.Next() {
						sink += len(s.Cell().Value)
						n++
					}
				}
				if n != len(set.cells) || sink == 0 {
					b.Fatal("scan failed", n)
				}
				return float64(time.Since(start).Nanoseconds()) / float64(n)
			})
		}
		for range b.N {
			med := interleave(fns)
			for vi := range colVariants {
				res[vi].seek, res[vi].cold, res[vi].scan = med[3*vi], med[3*vi+1], med[3*vi+2]
			}
		}
		for vi, v := range colVariants {
			b.Run(fmt.Sprintf("col=%s/enc=%s", set.name, v.name), func(b *testing.B) {
				b.ReportMetric(res[vi].bpc, "B/cell")
				b.ReportMetric(res[vi].seek, "seek-ns")
				b.ReportMetric(res[vi].cold, "seekcold-ns")
				b.ReportMetric(res[vi].scan, "scan-ns/cell")
				b.ReportMetric(0, "ns/op")
			})
		}
		// Columnar against FastDiff+LZ4Dict (size, scan) and the
		// smallest row encoding (size).
		c, fl := res[0], res[3]
		best := min(res[2].bpc, res[3].bpc, res[4].bpc)
		b.Run(fmt.Sprintf("col=%s/ratios", set.name), func(b *testing.B) {
			b.ReportMetric(fl.bpc/c.bpc, "x-smaller-than-fastdiff+lz4dict")
			b.ReportMetric(fl.scan/c.scan, "x-faster-scan")
			b.ReportMetric(c.bpc/best, "x-size-of-best-row")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// blockOf returns the block holding cell i.
func blockOf(cuts []int, i int) int {
	for bi, n := range cuts {
		if i < n {
			return bi
		}
		i -= n
	}
	return len(cuts) - 1
}

// TestColumnarBenchData: the benchmark's columns round-trip in every
// variant, and Columnar picks the value form each column is built for.
func TestColumnarBenchData(t *testing.T) {
	for _, set := range lineitemColumns(3000) {
		cuts := columnCuts(t, set.cells)
		for _, v := range colVariants {
			blocks := sameCuts(t, v.opts, set.cells, cuts)
			var s blockenc.Seeker
			at := 0
			for bi, blk := range blocks {
				if err := s.Init(blk); err != nil {
					t.Fatal(err)
				}
				checkAll(t, &s, set.cells[at:at+cuts[bi]])
				at += cuts[bi]
			}
		}
	}
}

// BenchmarkColumnarInit is Init alone on each lineitem column's Columnar
// blocks (ns per cell), the part of a scan or a cold seek that decodes
// and checks the columns, and (scan) BenchmarkColumnar's scan of them
// alone, for profiles:
//
//	go test -run '^$' -bench ColumnarInit ./blockenc/
func BenchmarkColumnarInit(b *testing.B) {
	for _, set := range lineitemColumns(30000) {
		cuts := columnCuts(b, set.cells)
		blocks := sameCuts(b, colVariants[0].opts, set.cells, cuts)
		b.Run("col="+set.name, func(b *testing.B) {
			var s blockenc.Seeker
			for b.Loop() {
				for _, blk := range blocks {
					if err := s.Init(blk); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(set.cells)), "init-ns/cell")
		})
		b.Run("col="+set.name+"/scan", func(b *testing.B) {
			var s blockenc.Seeker
			sink := 0
			for b.Loop() {
				for _, blk := range blocks {
					if err := s.Init(blk); err != nil {
						b.Fatal(err)
					}
					for ok := s.First(); ok; ok = s.Next() {
						sink += len(s.Cell().Value)
					}
				}
			}
			if sink == 0 {
				b.Fatal("no values")
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(set.cells)), "scan-ns/cell")
		})
	}
}
