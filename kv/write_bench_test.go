package kv

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
)

// BenchmarkPutParallel: single-cell Puts of random 16-byte keys from
// goroutines=1, 4 and 16 at once (b.N split among them), into a fresh
// Store made by Open (defaults, no SyncWrites) with value=100 or 1024
// bytes, so that memstores fill, freeze and flush as in a load; wal=written
// (the default: a Put returns once its WAL record is written) or
// wal=buffered (Options.WALBuffered: once it is queued). ns/op is
// wall time per Put over all goroutines; the keys and values are drawn
// outside the timer. puts/walwrite is the average group commit.
func BenchmarkPutParallel(b *testing.B) {
	for _, vlen := range []int{100, 1024} {
		for _, g := range []int{1, 4, 16} {
			for _, buffered := range []bool{false, true} {
				name := map[bool]string{false: "written", true: "buffered"}[buffered]
				b.Run(fmt.Sprintf("value=%d/goroutines=%d/wal=%s", vlen, g, name), func(b *testing.B) {
					o := DefaultOptions(benchDir(b))
					o.WALBuffered = buffered
					s, err := Open(o)
					if err != nil {
						b.Fatal(err)
					}
					defer s.Close()
					const keys = 1 << 14
					rng := rand.New(rand.NewPCG(uint64(vlen), uint64(g)))
					key := make([][]byte, keys)
					for i := range key {
						key[i] = make([]byte, 16)
						for j := range key[i] {
							key[i][j] = byte(rng.Uint32())
						}
					}
					val := make([]byte, vlen+keys)
					for i := range val {
						val[i] = byte(rng.Uint32())
					}
					b.SetBytes(int64(16 + vlen)) // key and value bytes per Put
					b.ReportAllocs()
					b.ResetTimer()
					var wg sync.WaitGroup
					errs := make([]error, g)
					for t := range g {
						wg.Add(1)
						go func() {
							defer wg.Done()
							for i := t; i < b.N; i += g {
								j := (i * 7919) & (keys - 1)
								if err := s.Put(key[j], val[j:j+vlen]); err != nil {
									errs[t] = err
									return
								}
							}
						}()
					}
					wg.Wait()
					b.StopTimer()
					if st := s.Stats(); st.WALWrites > 0 {
						b.ReportMetric(float64(b.N)/float64(st.WALWrites), "puts/walwrite")
					}
					for _, err := range errs {
						if err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}
