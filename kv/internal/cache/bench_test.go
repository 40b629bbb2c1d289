package cache

import (
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
)

// benchBlockCost is the cost of a block in the benchmarks: a 16 KiB block
// and its decode buffer.
const benchBlockCost = 32 << 10

// benchCache returns a cache of size bytes holding blocks 0..n-1 of
// segment 1, each read twice (admitted and touched).
func benchCache(size int64, n int) *Cache {
	c := New(size)
	for range 2 {
		for i := range n {
			id := ID{Seg: 1, Block: i}
			if c.Get(id) == nil {
				c.Add(&Block{ID: id, Cost: benchBlockCost}, false)
			}
		}
	}
	return c
}

// BenchmarkGetParallel measures cache hits from many goroutines at once:
// blocks=N of a 64 MiB cache are read in a zipfian order (a few blocks
// take most of the reads, as YCSB's keys do), from perproc=P goroutines
// per processor (b.SetParallelism; P x GOMAXPROCS goroutines in all).
// Every lookup hits.
func BenchmarkGetParallel(b *testing.B) {
	for _, blocks := range []int{64, 1024} {
		c := benchCache(64<<20, blocks)
		order := zipfOrder(blocks, 1<<14)
		for _, p := range []int{1, 2, 8} {
			b.Run(fmt.Sprintf("blocks=%d/perproc=%d", blocks, p), func(b *testing.B) {
				b.ReportAllocs()
				benchParallel(b, p, func(n int) {
					if c.Get(ID{Seg: 1, Block: order[n%len(order)]}) == nil {
						b.Error("miss")
					}
				})
			})
		}
	}
}

// BenchmarkGetAddParallel: lookups of a hot set from G goroutines while
// one lookup in 16 misses a block of a stream bigger than the cache and
// adds it at the cold end (a scan next to point reads): the hits run
// beside insertions and evictions. perproc as in BenchmarkGetParallel.
func BenchmarkGetAddParallel(b *testing.B) {
	const hot = 512 // a quarter of the cache
	c := benchCache(64<<20, hot)
	order := zipfOrder(hot, 1<<14)
	for _, p := range []int{2, 8} {
		b.Run(fmt.Sprintf("perproc=%d", p), func(b *testing.B) {
			b.ReportAllocs()
			benchParallel(b, p, func(n int) {
				if n%16 != 15 {
					c.Get(ID{Seg: 1, Block: order[n%len(order)]})
					return
				}
				id := ID{Seg: 2, Block: n}
				if c.Get(id) == nil {
					c.Add(&Block{ID: id, Cost: benchBlockCost}, true)
				}
			})
		})
	}
}

// benchParallel runs op(n) b.N times from p goroutines per processor,
// each goroutine with its own n sequence from a distinct start.
func benchParallel(b *testing.B, p int, op func(n int)) {
	b.SetParallelism(p)
	var start atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		n := int(start.Add(1)) * 7919
		for pb.Next() {
			op(n)
			n++
		}
	})
}

// zipfOrder returns m block numbers below n drawn from a zipfian
// distribution (s=1.1) with a fixed seed, shuffled so that hot blocks
// fall in every shard.
func zipfOrder(n, m int) []int {
	r := rand.New(rand.NewPCG(1, 2))
	z := rand.NewZipf(r, 1.1, 1, uint64(n-1))
	perm := r.Perm(n)
	out := make([]int, m)
	for i := range out {
		out[i] = perm[z.Uint64()]
	}
	return out
}
