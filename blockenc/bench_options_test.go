package blockenc_test

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/blockenc"
)

// Feature benchmarks: LZ4 and LZ4Dict on lineitem rows, value columns on
// time series, dedupe on one lineitem column at a time (Kudu's measure).
// Blocks are cut at 64 KiB of Size (uncompressed, as HBase cuts them).
// Seqs increase with the row, as in a bulk load (6-byte vlongs).

const featBlockSize = 64 << 10

var (
	shipModes     = []string{"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"}
	shipInstructs = []string{"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"}
	// commentWords: TPC-H's text grammar draws from a few hundred words;
	// these are a sample of them.
	commentWords = []string{"furiously", "quickly", "carefully", "blithely", "slyly", "fluffily",
		"final", "regular", "special", "pending", "express", "bold", "ironic", "even", "silent",
		"deposits", "accounts", "packages", "requests", "ideas", "theodolites", "pinto", "beans",
		"instructions", "dependencies", "excuses", "platelets", "asymptotes", "courts", "dolphins",
		"sleep", "wake", "are", "haggle", "nag", "use", "boost", "affix", "detect", "integrate",
		"cajole", "among", "across", "above", "against", "along", "the", "about", "after", "according to"}
)

// lineitemRow is one synthetic lineitem row, TPC-H distributions.
type lineitemRow struct {
	key                       []byte // orderkey u64 BE | linenumber u32 BE
	shipdate, shipmode, value []byte
}

// lineitemRows generates n rows: orders of 1-7 lines with increasing
// orderkeys, and per line partkey, suppkey, quantity 1-50, extended price,
// discount 0-10, tax 0-8, returnflag, linestatus, three dates as text,
// shipinstruct, shipmode and a comment of random words. The value layout:
//
//	partkey u32 | suppkey u32 | quantity u8 | extendedprice u64 (cents)
//	| discount u8 | tax u8 | returnflag u8 | linestatus u8
//	| shipdate [10] | commitdate [10] | receiptdate [10]
//	| len u8 shipinstruct | len u8 shipmode | len u8 comment
func lineitemRows(rng *rand.Rand, n int) []lineitemRow {
	start := time.Date(1992, 1, 1, 0, 0, 0, 0, time.UTC)
	cutoff := time.Date(1995, 6, 17, 0, 0, 0, 0, time.UTC)
	day := func(t time.Time) []byte { return []byte(t.Format("2006-01-02")) }
	var rows []lineitemRow
	for ok := uint64(1 + rng.IntN(1e6)); len(rows) < n; ok += 1 + uint64(rng.IntN(8)) {
		order := start.AddDate(0, 0, rng.IntN(2405))
		for l := range 1 + rng.IntN(7) {
			key := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(nil, ok), uint32(l+1))
			ship := order.AddDate(0, 0, 1+rng.IntN(121))
			commit := order.AddDate(0, 0, 30+rng.IntN(61))
			receipt := ship.AddDate(0, 0, 1+rng.IntN(30))
			qty := 1 + rng.IntN(50)
			price := uint64(qty * (90000 + rng.IntN(110000)))
			rf, ls := byte('N'), byte('O')
			if receipt.Before(cutoff) {
				rf = "RA"[rng.IntN(2)]
			}
			if !ship.After(cutoff) {
				ls = 'F'
			}
			var comment []byte
			for len(comment) < 10+rng.IntN(34) {
				comment = append(append(comment, commentWords[rng.IntN(len(commentWords))]...), ' ')
			}
			comment = comment[:len(comment)-1]
			mode := shipModes[rng.IntN(len(shipModes))]
			instr := shipInstructs[rng.IntN(len(shipInstructs))]
			v := binary.BigEndian.AppendUint32(nil, uint32(1+rng.IntN(200000)))
			v = binary.BigEndian.AppendUint32(v, uint32(1+rng.IntN(10000)))
			v = append(v, byte(qty))
			v = binary.BigEndian.AppendUint64(v, price)
			v = append(v, byte(rng.IntN(11)), byte(rng.IntN(9)), rf, ls)
			v = append(append(append(v, day(ship)...), day(commit)...), day(receipt)...)
			v = append(append(v, byte(len(instr))), instr...)
			v = append(append(v, byte(len(mode))), mode...)
			v = append(append(v, byte(len(comment))), comment...)
			rows = append(rows, lineitemRow{key: key, shipdate: day(ship), shipmode: []byte(mode), value: v})
		}
	}
	return rows[:n]
}

// rowCells makes one Put per row with the value val(row) and increasing seqs.
func rowCells(rows []lineitemRow, val func(lineitemRow) []byte) []blockenc.Cell {
	cells := make([]blockenc.Cell, len(rows))
	for i, r := range rows {
		cells[i] = blockenc.Cell{Key: r.key, Value: val(r), Seq: 1<<40 + uint64(i), Kind: blockenc.KindPut}
	}
	return cells
}

// cutBlocks encodes cells into blocks of about size bytes (by Size).
func cutBlocks(tb testing.TB, opts blockenc.Options, cells []blockenc.Cell, size int) (blocks [][]byte, firsts [][]byte) {
	e := blockenc.NewEncoder(opts)
	flush := func() {
		b, err := e.Finish()
		if err != nil {
			tb.Fatal(err)
		}
		blocks = append(blocks, b)
		e.Reset()
	}
	for _, c := range cells {
		if e.Len() == 0 {
			firsts = append(firsts, c.Key)
		}
		if err := e.Add(c); err != nil {
			tb.Fatal(err)
		}
		if e.Size() >= size {
			flush()
		}
	}
	if e.Len() > 0 {
		flush()
	}
	return blocks, firsts
}

func totalLen(blocks [][]byte) int {
	n := 0
	for _, b := range blocks {
		n += len(b)
	}
	return n
}

// lineitemBench is the lineitem data set: the cells of 8 blocks of 64 KiB.
func lineitemBench() []blockenc.Cell {
	rows := lineitemRows(rand.New(rand.NewPCG(2026, 6)), 4800)
	return rowCells(rows, func(r lineitemRow) []byte { return r.value })
}

// BenchmarkLineitem: LZ4Dict against LZ4 in 64 KiB blocks, and against
// LZ4 in 16 KiB blocks (what an LZ4Dict seek decompresses: the dictionary
// and one sub-block), and no compression. seekcold is Init + SeekGE on a
// block not read yet (a point read of a cached compressed block);
// seekwarm is SeekGE on a Seeker that has read its block; scan is Init and
// Next over every cell.
func BenchmarkLineitem(b *testing.B) {
	cells := lineitemBench()
	for _, v := range []struct {
		name      string
		c         blockenc.Compression
		size      int
		dict, sub int // LZ4Dict sizes; 0: the defaults
	}{
		{"none/block=64k", blockenc.NoCompression, featBlockSize, 0, 0},
		{"lz4/block=64k", blockenc.LZ4, featBlockSize, 0, 0},
		{"lz4/block=16k", blockenc.LZ4, 16 << 10, 0, 0},
		{"lz4/block=8k", blockenc.LZ4, 8 << 10, 0, 0},
		{"lz4dict/block=64k", blockenc.LZ4Dict, featBlockSize, 0, 0},
		{"lz4dict/block=64k/dict=8k/sub=4k", blockenc.LZ4Dict, featBlockSize, 8 << 10, 4 << 10},
		{"lz4dict/block=64k/dict=4k/sub=4k", blockenc.LZ4Dict, featBlockSize, 4 << 10, 4 << 10},
	} {
		opts := blockenc.DefaultOptions()
		opts.Compression = v.c
		restore := func() {}
		if v.dict != 0 {
			restore = blockenc.SetSubBlockSizes(v.dict, v.sub)
		}
		benchBlocks(b, "compression="+v.name, opts, cells, v.size)
		restore()
	}
}

// benchBlocks times seeks and scans over cells cut into blocks.
func benchBlocks(b *testing.B, prefix string, opts blockenc.Options, cells []blockenc.Cell, size int) {
	blocks, firsts := cutBlocks(b, opts, cells, size)
	bpc := float64(totalLen(blocks)) / float64(len(cells))
	targets := make([][]byte, len(cells))
	for i, c := range cells {
		targets[i] = c.Key
	}
	rand.New(rand.NewPCG(7, 7)).Shuffle(len(targets), func(i, j int) { targets[i], targets[j] = targets[j], targets[i] })
	blockOf := func(key []byte) int {
		return max(sort.Search(len(firsts), func(i int) bool { return bytes.Compare(firsts[i], key) > 0 })-1, 0)
	}
	var s blockenc.Seeker
	b.Run(prefix+"/op=seekcold", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			k := targets[i%len(targets)]
			if err := s.Init(blocks[blockOf(k)]); err != nil || !s.SeekGE(k) {
				b.Fatal("not found", err, s.Err())
			}
			sinkInt += len(s.Cell().Value)
			i++
		}
		b.ReportMetric(bpc, "B/cell")
	})
	seekers := make([]blockenc.Seeker, len(blocks))
	for i := range seekers {
		require.NoError(b, seekers[i].Init(blocks[i]))
	}

	b.Run(prefix+"/op=seekwarm", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			k := targets[i%len(targets)]
			if s := &seekers[blockOf(k)]; !s.SeekGE(k) {
				b.Fatal("not found", s.Err())
			}
			i++
		}
		b.ReportMetric(bpc, "B/cell")
	})
	b.Run(prefix+"/op=scan", func(b *testing.B) {
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			for _, blk := range blocks {
				if err := s.Init(blk); err != nil {
					b.Fatal(err)
				}
				for ok := s.First(); ok; ok = s.Next() {
					sinkInt += len(s.Cell().Value)
					n++
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/cell")
		b.ReportMetric(bpc, "B/cell")
	})
}

// timeSeriesCells: 200 series (8-byte id) of 10-second samples, half
// counters (growing by 0-5000 a sample), half gauges (a random walk around
// a per-series level), keys series id | timestamp (u64 BE, unix ms),
// values 8-byte big-endian, seqs in ingest order (all series per tick).
func timeSeriesCells() []blockenc.Cell {
	rng := rand.New(rand.NewPCG(2026, 7))
	const nSeries, nTicks = 200, 360
	cells := make([]blockenc.Cell, 0, nSeries*nTicks)
	t0 := uint64(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli())
	for s := range nSeries {
		id := uint64(0x5e71e5<<24) + uint64(s)*7919
		v := rng.Int64N(1 << 40)
		for t := range nTicks {
			if s%2 == 0 {
				v += rng.Int64N(5001)
			} else {
				v += rng.Int64N(201) - 100
			}
			key := binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, id), t0+uint64(t)*10000)
			cells = append(cells, blockenc.Cell{Key: key, Value: binary.BigEndian.AppendUint64(nil, uint64(v)),
				Seq: 1<<40 + uint64(t*nSeries+s), Kind: blockenc.KindPut})
		}
	}
	return cells
}

// BenchmarkTimeSeries: FastDiff with LZ4 and values inline against a value
// column (with and without LZ4).
func BenchmarkTimeSeries(b *testing.B) {
	cells := timeSeriesCells()
	for _, v := range []struct {
		name string
		opts blockenc.Options
	}{
		{"fastdiff+lz4", blockenc.Options{Encoding: blockenc.FastDiff, Compression: blockenc.LZ4}},
		{"fastdiff+ints", blockenc.Options{Encoding: blockenc.FastDiff, IntValues: true}},
		{"fastdiff+ints+lz4", blockenc.Options{Encoding: blockenc.FastDiff, IntValues: true, Compression: blockenc.LZ4}},
		{"rowindex+lz4", blockenc.Options{Encoding: blockenc.RowIndex, Compression: blockenc.LZ4}},
		{"rowindex+ints+lz4", blockenc.Options{Encoding: blockenc.RowIndex, IntValues: true, Compression: blockenc.LZ4}},
	} {
		benchBlocks(b, "form="+v.name, v.opts, cells, featBlockSize)
	}
}

// BenchmarkDedupe measures dedupe the way Kudu did (change 15806): cells
// whose value is one lineitem column, l_shipmode (7 distinct values) or
// l_shipdate (~2500), in 64 KiB RowIndex blocks; encode is Add of every
// cell and Finish, scan is Init and Next over every cell reading the
// value's bytes (as Kudu's scan copied them).
func BenchmarkDedupe(b *testing.B) {
	for _, col := range dedupeColumns() {
		cells := col.cells
		for _, dedupe := range []bool{false, true} {
			opts := blockenc.DefaultOptions()
			opts.DedupeValues = dedupe
			blocks, _ := cutBlocks(b, opts, cells, featBlockSize)
			bpc := float64(totalLen(blocks)) / float64(len(cells))
			prefix := "column=" + col.name + "/dedupe=" + map[bool]string{false: "false", true: "true"}[dedupe]
			b.Run(prefix+"/op=encode", func(b *testing.B) {
				b.ReportAllocs()
				e := blockenc.NewEncoder(opts)
				n := 0
				for b.Loop() {
					encodeAll(b, e, cells)
					n += len(cells)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/cell")
				b.ReportMetric(bpc, "B/cell")
			})
			var s blockenc.Seeker
			var out []byte
			b.Run(prefix+"/op=scan", func(b *testing.B) {
				b.ReportAllocs()
				n := 0
				for b.Loop() {
					for _, blk := range blocks {
						if err := s.Init(blk); err != nil {
							b.Fatal(err)
						}
						for ok := s.First(); ok; ok = s.Next() {
							out = append(out[:0], s.Cell().Value...)
							n++
						}
					}
				}
				sinkInt += len(out)
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/cell")
				b.ReportMetric(bpc, "B/cell")
			})
		}
	}
}

// TestBenchData: the benchmark blocks round-trip, and report sizes.
func TestBenchData(t *testing.T) {
	check := func(name string, opts blockenc.Options, cells []blockenc.Cell, size int) int {
		blocks, _ := cutBlocks(t, opts, cells, size)
		i := 0
		var s blockenc.Seeker
		for _, blk := range blocks {
			require.NoError(t, s.Init(blk))
			for ok := s.First(); ok; ok = s.Next() {
				require.Equal(t, norm(cells[i]), cellOf(&s), "%s: cell %d", name, i)
				i++
			}
		}
		require.Equal(t, len(cells), i, "%s: cells read", name)
		n := totalLen(blocks)
		t.Logf("%-28s %3d blocks %8d bytes %6.2f B/cell", name, len(blocks), n, float64(n)/float64(len(cells)))
		return n
	}
	li := lineitemBench()
	opts := blockenc.DefaultOptions()
	check("lineitem none", opts, li, featBlockSize)
	opts.Compression = blockenc.LZ4
	lz64 := check("lineitem lz4 64k", opts, li, featBlockSize)
	lz16 := check("lineitem lz4 16k", opts, li, 16<<10)
	opts.Compression = blockenc.LZ4Dict
	ld := check("lineitem lz4dict 64k", opts, li, featBlockSize)
	t.Logf("lz4dict/lz4 64k %.3f, lz4dict/lz4 16k %.3f", float64(ld)/float64(lz64), float64(ld)/float64(lz16))
	ts := timeSeriesCells()[:15000] // 3 series-blocks' worth: enough under -race
	a := check("ts fastdiff+lz4", blockenc.Options{Encoding: blockenc.FastDiff, Compression: blockenc.LZ4}, ts, featBlockSize)
	c := check("ts fastdiff+ints", blockenc.Options{Encoding: blockenc.FastDiff, IntValues: true}, ts, featBlockSize)
	d := check("ts fastdiff+ints+lz4", blockenc.Options{Encoding: blockenc.FastDiff, IntValues: true, Compression: blockenc.LZ4}, ts, featBlockSize)
	t.Logf("ts inline+lz4 / ints %.2f, / ints+lz4 %.2f", float64(a)/float64(c), float64(a)/float64(d))
}
