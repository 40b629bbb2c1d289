package rowbench

import (
	"testing"

	"github.com/kvenc/kvenc/bench/internal/dataset"
	"github.com/kvenc/kvenc/bench/internal/pebbleblk"
	"github.com/kvenc/kvenc/blockenc"
)

// BenchmarkEncodeBlock encodes the lineitem store rows (12-byte keys, the
// other columns as text) of 2,000 orders, cut into BlockBytes blocks, two
// ways: kvenc's Columnar layout with value dedupe and no compression (a
// flush's encoding before LZ4), and Pebble's uncompressed rowblk, the same
// cells and cuts. ns/cell is per cell encoded.
func BenchmarkEncodeBlock(b *testing.B) {
	set, err := dataset.LineitemRows(2000)
	if err != nil {
		b.Fatal(err)
	}
	blks := Blocks(dataset.LineitemCells(set, len(set.Rows)), BlockBytes)
	cells := 0
	for _, blk := range blks {
		cells += len(blk)
	}
	b.Run("kvenc-columnar", func(b *testing.B) {
		e := blockenc.NewEncoder(blockenc.Options{Encoding: blockenc.Columnar, RestartInterval: 16, DedupeValues: true})
		b.ReportAllocs()
		for b.Loop() {
			for _, blk := range blks {
				e.Reset()
				for _, kv := range blk {
					if err := e.Add(blockenc.Cell{Key: kv.Key, Value: kv.Value, Seq: kv.Seq, Kind: blockenc.KindPut}); err != nil {
						b.Fatal(err)
					}
				}
				if _, err := e.Finish(); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*cells), "ns/cell")
	})
	b.Run("pebble-rowblk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, blk := range blks {
				if _, err := pebbleblk.Build(blk); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*cells), "ns/cell")
	})
}
