package kv

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	badger "github.com/dgraph-io/badger/v4"
)

// BenchmarkShortScan: YCSB workload E's scans on a store several times
// bigger than its cache. Each op is one scan: a new Iterator from a
// zipfian start key (hot keys scattered over the key space, as YCSB's
// scrambled zipfian), 1 to 100 cells (uniform), closed after. Records
// are 1,000 random bytes (incompressible, as YCSB's fields), keys hashed
// as YCSB's insert order; 40,000 of them, about 40 MB of blocks against a
// 4 MiB cache. The client goroutines run in parallel: g=4 and g=16 on
// two processors. Raw Badger (one key per record, 4 MiB block cache, a
// read transaction and an iterator per scan, records in its tables) runs
// the same scans.
//
//	go test -run '^$' -bench ShortScan -benchmem -count 6 ./kv/
func BenchmarkShortScan(b *testing.B) {
	s, bdb := ycsb1kStores(b)
	d := shortScanData()
	sorted := sortedKeys(d)
	for _, g := range []int{4, 16} {
		b.Run(fmt.Sprintf("store=kv/g=%d", g), func(b *testing.B) {
			defer reportMissRatio(b, s)()
			benchShortScans(b, sorted, g, func(start []byte, n int) (int, error) {
				it := s.NewIterator(IterOptions{LowerBound: start})
				got := 0
				for ok := it.First(); ok && got < n; ok = it.Next() {
					got += len(it.Value()) & 1
					got++
				}
				if err := it.Close(); err != nil {
					return 0, err
				}
				return got, nil
			})
		})
		b.Run(fmt.Sprintf("store=badger/g=%d", g), func(b *testing.B) {
			benchShortScans(b, sorted, g, func(start []byte, n int) (int, error) {
				got := 0
				err := bdb.View(func(txn *badger.Txn) error {
					o := badger.DefaultIteratorOptions
					o.PrefetchValues = false
					it := txn.NewIterator(o)
					defer it.Close()
					for it.Seek(start); it.Valid() && got < n; it.Next() {
						if err := it.Item().Value(func(v []byte) error { got += len(v) & 1; return nil }); err != nil {
							return err
						}
						got++
					}
					return nil
				})
				return got, err
			})
		})
	}
}

// BenchmarkShortScanInserts: YCSB workload E whole, on a fresh copy of
// BenchmarkShortScan's store: each op is a scan as there (95%) or an
// insert of a new 1,000-byte record (5%), from g goroutines, into
// memstores of 128 KiB, so that they fill and flush (and segments
// compact) while the scans read, every 2,500 ops or so. ns/op is wall
// time per op over all goroutines.
//
//	go test -run '^$' -bench ShortScanInserts -benchtime 10000x -benchmem -count 6 ./kv/
func BenchmarkShortScanInserts(b *testing.B) {
	d := shortScanData()
	sorted := sortedKeys(d)
	for _, g := range []int{4, 16} {
		b.Run(fmt.Sprintf("g=%d", g), func(b *testing.B) {
			s, dir := loadKV(b, d, nil)
			if err := s.Close(); err != nil {
				b.Fatal(err)
			}
			s = openKV(b, dir, func(o *Options) { o.CacheSize, o.MemstoreSize = 4<<20, 128<<10 })
			defer s.Close()
			var inserts atomic.Uint64
			rng := rand.New(rand.NewPCG(13, 14))
			val := make([]byte, 2000)
			for j := 0; j < len(val); j += 8 {
				binary.LittleEndian.PutUint64(val[j:], rng.Uint64())
			}
			benchShortScans(b, sorted, g, func(start []byte, n int) (int, error) {
				if n <= 5 { // n is uniform in 1..100
					i := inserts.Add(1)
					h := (uint64(len(d.keys))+i)*0xbf58476d1ce4e5b9 ^ 0x94d049bb133111eb
					return 1, s.Put(fmt.Appendf(nil, "user%019d", h>>1), val[i%1000:i%1000+1000])
				}
				it := s.NewIterator(IterOptions{LowerBound: start})
				got := 0
				for ok := it.First(); ok && got < n; ok = it.Next() {
					got += len(it.Value()) & 1
					got++
				}
				return got, it.Close()
			})
		})
	}
}

// BenchmarkZipfGet: YCSB workload B's and C's reads on BenchmarkShortScan's
// stores: each op a Get of a key drawn zipfian (scrambled), from g
// goroutines.
//
//	go test -run '^$' -bench ZipfGet -benchmem -count 6 ./kv/
func BenchmarkZipfGet(b *testing.B) {
	s, bdb := ycsb1kStores(b)
	sorted := sortedKeys(shortScanData())
	for _, g := range []int{4, 16} {
		b.Run(fmt.Sprintf("store=kv/g=%d", g), func(b *testing.B) {
			defer reportMissRatio(b, s)()
			benchShortScans(b, sorted, g, func(k []byte, _ int) (int, error) {
				v, err := s.Get(k)
				return len(v), err
			})
		})
		b.Run(fmt.Sprintf("store=badger/g=%d", g), func(b *testing.B) {
			get := badgerGet(bdb)
			benchShortScans(b, sorted, g, func(k []byte, _ int) (int, error) { return 0, get(k) })
		})
	}
}

// ycsb1kStores returns shortScanData loaded into a Store and a raw Badger
// DB, each with a 4 MiB cache, once per process. Badger is reopened after
// the load, so that it reads its records from tables, not from the
// memtable that took them.
func ycsb1kStores(b *testing.B) (*Store, *badger.DB) {
	ycsb1kMu.Lock()
	defer ycsb1kMu.Unlock()
	if ycsb1kKV != nil {
		return ycsb1kKV, ycsb1kBadger
	}
	d := shortScanData()
	const cacheSize = 4 << 20
	s, _ := loadKV(b, d, func(o *Options) { o.CacheSize = cacheSize })
	bo := badgerOptions(benchDir(b)).WithBlockCacheSize(cacheSize)
	bdb, err := badger.Open(bo)
	if err != nil {
		b.Fatal(err)
	}
	writeBadger(b, bdb, d)
	if err := bdb.Close(); err != nil {
		b.Fatal(err)
	}
	if bdb, err = badger.Open(bo); err != nil {
		b.Fatal(err)
	}
	ycsb1kKV, ycsb1kBadger = s, bdb
	return s, bdb
}

var (
	ycsb1kMu     sync.Mutex
	ycsb1kKV     *Store
	ycsb1kBadger *badger.DB
)

// benchShortScans runs scan from g goroutines: per op a start key drawn
// zipfian over keys (scrambled) and a length 1..100, fixed seeds per
// goroutine, g/2 goroutines per processor (GOMAXPROCS 2: g).
func benchShortScans(b *testing.B, keys [][]byte, g int, scan func(start []byte, n int) (int, error)) {
	b.ReportAllocs()
	b.SetParallelism((g + 1) / 2)
	var seed sync.Mutex
	next := uint64(0)
	b.RunParallel(func(pb *testing.PB) {
		seed.Lock()
		next++
		rng := rand.New(rand.NewPCG(next, 99))
		seed.Unlock()
		z := rand.NewZipf(rng, 1.01, 1, uint64(len(keys)-1))
		sink := 0
		for pb.Next() {
			k := keys[(z.Uint64()*0x9e3779b97f4a7c15>>17)%uint64(len(keys))]
			n, err := scan(k, 1+rng.IntN(100))
			if err != nil {
				b.Error(err)
				return
			}
			sink += n
		}
		_ = sink
	})
}

// shortScanData is 40,000 records of 1,000 random bytes under keys
// "user" + a hash of the record number (YCSB's hashed insert order).
var shortScanData = sync.OnceValue(func() *dataset {
	rng := rand.New(rand.NewPCG(11, 12))
	d := &dataset{name: "ycsb1k"}
	for i := range 40_000 {
		h := uint64(i)*0xbf58476d1ce4e5b9 ^ 0x94d049bb133111eb
		d.keys = append(d.keys, fmt.Appendf(nil, "user%019d", h>>1))
		v := make([]byte, 1000)
		for j := 0; j < len(v); j += 8 {
			binary.LittleEndian.PutUint64(v[j:], rng.Uint64())
		}
		d.vals = append(d.vals, v)
	}
	return d
})

// sortedKeys returns d's keys in ascending order (the scans' start keys
// are drawn from them by rank).
func sortedKeys(d *dataset) [][]byte {
	keys := append([][]byte(nil), d.keys...)
	slices.SortFunc(keys, bytes.Compare)
	return keys
}

// reportMissRatio, deferred with its result called, reports the block
// cache's miss ratio of s over the benchmark.
func reportMissRatio(b *testing.B, s *Store) func() {
	st0 := s.Stats()
	return func() {
		st := s.Stats()
		hits, misses := st.CacheHits-st0.CacheHits, st.CacheMisses-st0.CacheMisses
		b.ReportMetric(float64(misses)/float64(max(hits+misses, 1)), "miss-ratio")
	}
}

// BenchmarkOverlapGet: BenchmarkZipfGet's reads on a store of segments
// whose key ranges all overlap (YCSB's hashed keys: every flush covers
// the whole key space), uncompacted: the records written in four rounds
// (record i in round i%4), a flush after each (and when the memtable
// fills: 8 segments). Most Gets are of a key an older segment holds,
// under the newer segments' ranges. 4 MiB cache.
//
//	go test -run '^$' -bench OverlapGet -benchmem -count 6 ./kv/
func BenchmarkOverlapGet(b *testing.B) {
	d := shortScanData()
	s := openKV(b, benchDir(b), func(o *Options) {
		o.CacheSize = 4 << 20
		o.CompactionTrigger = -1
	})
	defer s.Close()
	const rounds = 4
	for r := range rounds {
		for i := r; i < len(d.keys); i += rounds {
			if err := s.Put(d.keys[i], d.vals[i]); err != nil {
				b.Fatal(err)
			}
		}
		if err := s.Flush(); err != nil {
			b.Fatal(err)
		}
	}
	if n := s.Stats().Segments; n < rounds {
		b.Fatalf("%d segments, want %d or more", n, rounds)
	}
	sorted := sortedKeys(d)
	for _, g := range []int{4, 16} {
		b.Run(fmt.Sprintf("g=%d", g), func(b *testing.B) {
			defer reportMissRatio(b, s)()
			benchShortScans(b, sorted, g, func(k []byte, _ int) (int, error) {
				v, err := s.Get(k)
				return len(v), err
			})
		})
	}
}

// BenchmarkTextGet: BenchmarkZipfGet's reads on records shaped as
// go-ycsb's: 10 fields, each its name and 100 random letters (LZ4 saves a
// few percent of them against a segment dictionary), 20,000 of them
// compacted into one segment, 4 MiB cache, from 4 goroutines.
//
//	go test -run '^$' -bench TextGet -benchmem -count 6 ./kv/
func BenchmarkTextGet(b *testing.B) {
	rng := rand.New(rand.NewPCG(13, 14))
	d := &dataset{name: "text1k"}
	for i := range 20_000 {
		h := uint64(i)*0xbf58476d1ce4e5b9 ^ 0x94d049bb133111eb
		d.keys = append(d.keys, fmt.Appendf(nil, "user%019d", h>>1))
		var v []byte
		for f := range 10 {
			v = fmt.Appendf(v, "field%d", f)
			for range 100 {
				v = append(v, ycsbLetters[rng.IntN(len(ycsbLetters))])
			}
		}
		d.vals = append(d.vals, v)
	}
	s, _ := loadKV(b, d, func(o *Options) { o.CacheSize = 4 << 20 })
	defer s.Close()
	sorted := sortedKeys(d)
	b.Run("g=4", func(b *testing.B) {
		defer reportMissRatio(b, s)()
		benchShortScans(b, sorted, 4, func(k []byte, _ int) (int, error) {
			v, err := s.Get(k)
			return len(v), err
		})
	})
}

// ycsbLetters are the letters of go-ycsb's random field values.
const ycsbLetters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
