package segwrite

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/engine"
	"github.com/kvenc/kvenc/kv/internal/layout"
)

// discardEngine takes every write and keeps nothing: a benchmark of the
// writer alone.
type discardEngine struct{ engine.Engine }

func (discardEngine) Write(*engine.Batch) error { return nil }

// BenchmarkWriter times writing a segment of 40,000 lineitem-like cells
// (about 4 MB of cells, 16 KiB blocks, Columnar with LZ4Dict at levels 0
// and 9, as a flush and a compaction write) to an engine that discards
// the writes: the writer's own cost, most of it compressing blocks.
func BenchmarkWriter(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	cells := make([]blockenc.Cell, 40_000)
	var vals [][]byte
	for i := range cells {
		v := fmt.Appendf(nil, "%d|%d|%d|%d.00|0.0%d|0.0%d|%c|%c|1995-0%d-1%d|%s|%s",
			rng.IntN(200000), rng.IntN(10000), 1+rng.IntN(7), rng.IntN(100000), rng.IntN(10), rng.IntN(9),
			"ANR"[rng.IntN(3)], "OF"[rng.IntN(2)], 1+rng.IntN(9), rng.IntN(10),
			[]string{"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"}[rng.IntN(4)],
			[]string{"AIR", "MAIL", "SHIP", "TRUCK", "RAIL", "FOB", "REG AIR"}[rng.IntN(7)])
		cells[i] = blockenc.Cell{Key: fmt.Appendf(nil, "lineitem/%010d", i*4), Value: v, Seq: uint64(i + 1), Kind: blockenc.KindPut}
		if i%10 == 0 {
			vals = append(vals, v)
		}
	}
	d, err := blockenc.NewDict(blockenc.SampleDict(vals, blockenc.MaxDictSize))
	if err != nil {
		b.Fatal(err)
	}
	var id uint64
	st := New(Config{
		Engine: discardEngine{}, Keys: layout.NewKeys([]byte("b")), BlockSize: 16 << 10, DictSize: blockenc.MaxDictSize,
		NextID: func() uint64 { id++; return id }, EngineErr: func() error { return nil },
	})
	for _, level := range []int{0, 9} {
		b.Run(fmt.Sprintf("level=%d", level), func(b *testing.B) {
			opts := blockenc.Options{Encoding: blockenc.Columnar, Compression: blockenc.LZ4Dict, CompressionLevel: level}
			for b.Loop() {
				w := st.NewWriterDict(opts, d)
				for _, c := range cells {
					if err := w.Add(c); err != nil {
						b.Fatal(err)
					}
				}
				if _, err := w.Finish(0, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
