package kv

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kvenc/kvenc/kv/internal/segwrite"
	"github.com/stretchr/testify/require"
)

// BenchmarkCompactUpdates times Compact of a segment of 100,000 lineitem
// rows loaded in key order with a newer flush that rewrites 1% of them,
// in ten ranges: runs=on copies the blocks outside those ranges
// (segwrite.Writer.CopyRuns), runs=off merges every block (compresses
// them again). Each iteration compacts a store of its own, built outside
// the timer.
// Metrics: copied/op, the blocks of the old segment found byte for byte
// in the output; bytes/op, the output's block bytes.
func BenchmarkCompactUpdates(b *testing.B) {
	d := lineitemRows(rand.New(rand.NewPCG(31, 32)), 100_000)
	for _, runs := range []bool{true, false} {
		b.Run(fmt.Sprintf("runs=%s", map[bool]string{true: "on", false: "off"}[runs]), func(b *testing.B) {
			if !runs {
				old := segwrite.MinCopyRun
				segwrite.MinCopyRun = math.MaxInt
				defer func() { segwrite.MinCopyRun = old }()
			}
			var copied, out uint64
			n := 0
			for b.Loop() {
				b.StopTimer()
				s := dictStore(b, b.TempDir(), 0)
				putAll(b, s, d)
				old := map[string]bool{}
				for _, blk := range segBlocks(b, s, liveSegs(s)[0]) {
					old[blk] = true
				}
				batch := s.NewBatch()
				for r := range 10 {
					for i := r * 10_000; i < r*10_000+100; i++ {
						batch.Put(d.keys[i], []byte("a new value"))
					}
				}
				require.NoError(b, s.Apply(batch))
				require.NoError(b, s.Flush())
				b.StartTimer()
				require.NoError(b, s.Compact())
				b.StopTimer()
				g := liveSegs(s)[0]
				for _, blk := range segBlocks(b, s, g) {
					if old[blk] {
						copied++
					}
				}
				out += g.Meta.Bytes
				n++
				require.NoError(b, s.Close())
				b.StartTimer()
			}
			b.ReportMetric(float64(copied)/float64(n), "copied/op")
			b.ReportMetric(float64(out)/float64(n), "bytes/op")
		})
	}
}
