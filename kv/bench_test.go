package kv

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"testing"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/kvenc/kvenc/blockenc"
)

// Benchmarks run kvenc and raw Badger (one Badger key per cell, compression
// off, same data) side by side in one process:
//
//	go test -run '^$' -bench . -count 5 ./kv/
//
// Datasets (fixed seeds): ycsb, 200,000 keys "user%012d" with 100-byte
// values of random words; ts, 200,000 cells "series%03d|" + 8-byte
// big-endian timestamp -> 8-byte value, 1,000 series of slowly moving
// values; lineitem, 200,000 lineitem-like rows (see lineitemRows).

const benchCells = 200_000

type dataset struct {
	name string
	keys [][]byte
	vals [][]byte
}

// rawBytes is the bytes of d's keys and values.
func (d *dataset) rawBytes() int64 {
	var n int64
	for i := range d.keys {
		n += int64(len(d.keys[i]) + len(d.vals[i]))
	}
	return n
}

var datasets = sync.OnceValue(func() []*dataset {
	rng := rand.New(rand.NewPCG(42, 42))
	return []*dataset{ycsbRows(rng, benchCells), timeSeries(rng, benchCells), lineitemRows(rng, benchCells)}
})

// ycsbRows is n keys "user%012d" with 100-byte values of random words.
func ycsbRows(rng *rand.Rand, n int) *dataset {
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima"}
	y := &dataset{name: "ycsb"}
	for i := 0; i < n; i++ {
		y.keys = append(y.keys, []byte(fmt.Sprintf("user%012d", i)))
		v := make([]byte, 0, 100)
		for len(v) < 100 {
			v = append(v, words[rng.IntN(len(words))]...)
			v = append(v, ' ')
		}
		y.vals = append(y.vals, v[:100])
	}
	return y
}

// timeSeries is n cells "series%03d|" + 8-byte big-endian timestamp ->
// 8-byte value, 1,000 series of slowly moving values.
func timeSeries(rng *rand.Rand, n int) *dataset {
	ts := &dataset{name: "ts"}
	const series = 1000
	for s := 0; s < series; s++ {
		x := uint64(1000 + rng.IntN(1000))
		for i := 0; i < n/series; i++ {
			k := fmt.Appendf(nil, "series%03d|", s)
			k = binary.BigEndian.AppendUint64(k, uint64(1700000000000+i*10000))
			x += uint64(rng.IntN(5))
			ts.keys = append(ts.keys, k)
			ts.vals = append(ts.vals, binary.BigEndian.AppendUint64(nil, x))
		}
	}
	return ts
}

// lineitemRows is a lineitem-like row layout, as kvbench's store lineitem
// dataset: key 8-byte big-endian orderkey + 4-byte linenumber (1 to 7 lines
// per order), value the other columns as pipe-separated text (partkey,
// suppkey, quantity, price, discount, tax, flags, three day numbers, and a
// comment of TPC-H-like words), about 100 bytes.
func lineitemRows(rng *rand.Rand, n int) *dataset {
	words := []string{"furiously", "quickly", "carefully", "blithely", "slyly", "final", "regular", "special",
		"pending", "express", "ironic", "even", "bold", "silent", "packages", "deposits", "requests", "accounts",
		"instructions", "theodolites", "foxes", "pinto", "beans", "asymptotes", "platelets", "sleep", "wake",
		"haggle", "nag", "use", "boost", "affix", "detect", "integrate", "among", "above", "across", "the"}
	d := &dataset{name: "lineitem"}
	for o := uint64(1); len(d.keys) < n; o++ {
		lines := 1 + rng.IntN(7)
		order := uint64(1 + rng.IntN(2400)) // order date, days
		for ln := 1; ln <= lines && len(d.keys) < n; ln++ {
			k := binary.BigEndian.AppendUint64(make([]byte, 0, 12), o*4)
			k = binary.BigEndian.AppendUint32(k, uint32(ln))
			price := 90000 + rng.IntN(10000000)
			ship := order + uint64(1+rng.IntN(121))
			v := fmt.Appendf(nil, "%d|%d|%d|%d.%02d|0.%02d|0.%02d|%c|%c|%d|%d|%d|",
				1+rng.IntN(200000), 1+rng.IntN(10000), 1+rng.IntN(50), price/100, price%100,
				rng.IntN(11), rng.IntN(9), "RAN"[rng.IntN(3)], "OF"[rng.IntN(2)],
				ship, order+uint64(30+rng.IntN(61)), ship+uint64(1+rng.IntN(30)))
			n := 10 + rng.IntN(34)
			c := len(v)
			for len(v)-c < n {
				v = append(v, words[rng.IntN(len(words))]...)
				v = append(v, ' ')
			}
			d.keys = append(d.keys, k)
			d.vals = append(d.vals, v[:c+n])
		}
	}
	return d
}

// benchDirs are removed when the benchmarks end (TestMain).
var (
	benchDirsMu sync.Mutex
	benchDirs   []string
)

func benchDir(b *testing.B) string {
	d, err := os.MkdirTemp("", "kvbench")
	if err != nil {
		b.Fatal(err)
	}
	benchDirsMu.Lock()
	benchDirs = append(benchDirs, d)
	benchDirsMu.Unlock()
	return d
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, d := range benchDirs {
		os.RemoveAll(d)
	}
	os.Exit(code)
}

func badgerOptions(dir string) badger.Options {
	return badger.DefaultOptions(dir).WithLogger(nil).WithCompression(options.None).
		WithBlockCacheSize(0).WithNumVersionsToKeep(1)
}

// writeAll writes d's cells into s in batches of 1000.
func writeAll(b *testing.B, s *Store, d *dataset) {
	batch := s.NewBatch()
	for i := range d.keys {
		batch.Put(d.keys[i], d.vals[i])
		if batch.Len() == 1000 || i == len(d.keys)-1 {
			if err := s.Apply(batch); err != nil {
				b.Fatal(err)
			}
			batch.Reset()
		}
	}
}

// openKV opens a Store in dir with DefaultOptions changed by the tunes
// (nil ones skipped).
func openKV(b *testing.B, dir string, tunes ...func(*Options)) *Store {
	o := DefaultOptions(dir)
	for _, tune := range tunes {
		if tune != nil {
			tune(&o)
		}
	}
	s, err := Open(o)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// loadKV loads d into a new on-disk Store, flushed and compacted.
func loadKV(b *testing.B, d *dataset, tune func(*Options)) (*Store, string) {
	dir := benchDir(b)
	s := openKV(b, dir, tune)
	writeAll(b, s, d)
	if err := s.Compact(); err != nil {
		b.Fatal(err)
	}
	return s, dir
}

// writeBadger writes d's cells into db, one key per cell, in one
// WriteBatch, and flattens its LSM.
func writeBadger(b *testing.B, db *badger.DB, d *dataset) {
	wb := db.NewWriteBatch()
	for i := range d.keys {
		if err := wb.Set(d.keys[i], d.vals[i]); err != nil {
			b.Fatal(err)
		}
	}
	if err := wb.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := db.Flatten(1); err != nil {
		b.Fatal(err)
	}
}

// loadBadger loads d into a raw Badger DB, one key per cell, flattened.
func loadBadger(b *testing.B, d *dataset) (*badger.DB, string) {
	dir := benchDir(b)
	db, err := badger.Open(badgerOptions(dir))
	if err != nil {
		b.Fatal(err)
	}
	writeBadger(b, db, d)
	return db, dir
}

type loaded struct {
	kv   *Store
	bdb  *badger.DB
	kvd  string
	bdbd string
}

var (
	loadedMu sync.Mutex
	loadedBy = map[string]*loaded{}
)

// stores returns d loaded into both stores, once per process.
func stores(b *testing.B, d *dataset) *loaded {
	loadedMu.Lock()
	defer loadedMu.Unlock()
	if l := loadedBy[d.name]; l != nil {
		return l
	}
	l := &loaded{}
	l.kv, l.kvd = loadKV(b, d, nil)
	l.bdb, l.bdbd = loadBadger(b, d)
	loadedBy[d.name] = l
	return l
}

func BenchmarkPut(b *testing.B) {
	d := datasets()[0]
	b.Run("store=kv", func(b *testing.B) {
		s, err := Open(DefaultOptions(benchDir(b)))
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			j := i % len(d.keys)
			if err := s.Put(d.keys[j], d.vals[j]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("store=badger", func(b *testing.B) {
		db, err := badger.Open(badgerOptions(benchDir(b)))
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			j := i % len(d.keys)
			if err := db.Update(func(txn *badger.Txn) error { return txn.Set(d.keys[j], d.vals[j]) }); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

// BenchmarkGet: random Gets of present keys; kvenc with a warm cache after
// flush and compaction.
func BenchmarkGet(b *testing.B) {
	for _, d := range datasets() {
		l := stores(b, d)
		order := rand.New(rand.NewPCG(1, 2)).Perm(len(d.keys))
		for _, k := range order { // warm the cache
			if _, err := l.kv.Get(d.keys[k]); err != nil {
				b.Fatal(err)
			}
		}
		b.Run("data="+d.name+"/store=kv", func(b *testing.B) { benchGets(b, kvGet(l.kv), d.keys, order) })
		b.Run("data="+d.name+"/store=badger", func(b *testing.B) { benchGets(b, badgerGet(l.bdb), d.keys, order) })
	}
}

// BenchmarkScan: a full scan; the ns/op reported is per cell (each op is
// one cell; the scan restarts at the end).
func BenchmarkScan(b *testing.B) { benchScans(b, false) }

// BenchmarkScanReverse: BenchmarkScan backward (Last and Prev; Badger's
// reverse iterator) on the same stores.
func BenchmarkScanReverse(b *testing.B) { benchScans(b, true) }

func benchScans(b *testing.B, reverse bool) {
	for _, d := range datasets() {
		l := stores(b, d)
		b.Run("data="+d.name+"/store=kv", func(b *testing.B) {
			b.ReportAllocs()
			it := l.kv.NewIterator(IterOptions{})
			defer it.Close()
			start := func() bool {
				if reverse {
					return it.Last()
				}
				return it.First()
			}
			ok := start()
			var sink int
			for b.Loop() {
				if !ok {
					if it.Err() != nil {
						b.Fatal(it.Err())
					}
					ok = start()
				}
				sink += len(it.Value())
				if reverse {
					ok = it.Prev()
				} else {
					ok = it.Next()
				}
			}
			_ = sink
		})
		b.Run("data="+d.name+"/store=badger", func(b *testing.B) {
			b.ReportAllocs()
			txn := l.bdb.NewTransaction(false)
			defer txn.Discard()
			it := txn.NewIterator(badger.IteratorOptions{Reverse: reverse})
			defer it.Close()
			it.Rewind()
			var sink int
			for b.Loop() {
				if !it.Valid() {
					it.Rewind()
				}
				_ = it.Item().Value(func(v []byte) error { sink += len(v); return nil })
				it.Next()
			}
			_ = sink
		})
	}
}

// BenchmarkSeek: SeekGE to a random present key and 10 Nexts on a new
// Iterator, closed after (kvenc with a warm cache; one op is the whole
// seek).
func BenchmarkSeek(b *testing.B) {
	for _, d := range datasets() {
		l := stores(b, d)
		order := rand.New(rand.NewPCG(7, 8)).Perm(len(d.keys))
		b.Run("data="+d.name+"/store=kv", func(b *testing.B) {
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				it := l.kv.NewIterator(IterOptions{})
				ok := it.SeekGE(d.keys[order[n%len(order)]])
				for j := 0; ok && j < 10; j++ {
					ok = it.Next()
				}
				if err := it.Close(); err != nil {
					b.Fatal(err)
				}
				n++
			}
		})
	}
}

// blockVariants are the block options BenchmarkSize compares.
var blockVariants = []struct {
	name string
	opts blockenc.Options
}{
	{"default", DefaultBlockOptions()},
	{"rowindex", blockenc.DefaultOptions()},
	{"rowindex+lz4", blockenc.Options{Encoding: blockenc.RowIndex, Compression: blockenc.LZ4, DedupeValues: true}},
	{"rowindex+lz4+ints", blockenc.Options{Encoding: blockenc.RowIndex, Compression: blockenc.LZ4, DedupeValues: true, IntValues: true}},
	{"fastdiff+lz4dict+ints", blockenc.Options{Encoding: blockenc.FastDiff, Compression: blockenc.LZ4Dict, DedupeValues: true, IntValues: true}},
}

// BenchmarkSize reports the bytes on disk after load, compaction and Close
// (files summed, Badger's fixed 1 MiB DISCARD file included on both sides)
// as the metrics kv-bytes/cell, badger-bytes/cell and kv/badger, for the
// block options above (blocks inline, the default) and, to show why the
// default keeps them inline, for blocks in the value log (vt=1024).
func BenchmarkSize(b *testing.B) {
	for _, d := range datasets() {
		bdb, bd := loadBadger(b, d)
		if err := bdb.Close(); err != nil {
			b.Fatal(err)
		}
		bb := dirSize(b, bd)
		run := func(name string, tune func(*Options)) {
			b.Run("data="+d.name+"/"+name, func(b *testing.B) {
				for b.Loop() {
					s, kd := loadKV(b, d, tune)
					st := s.Stats()
					if err := s.Close(); err != nil {
						b.Fatal(err)
					}
					kb := dirSize(b, kd)
					b.ReportMetric(float64(kb)/float64(len(d.keys)), "kv-bytes/cell")
					b.ReportMetric(float64(bb)/float64(len(d.keys)), "badger-bytes/cell")
					b.ReportMetric(float64(kb)/float64(bb), "kv/badger")
					b.ReportMetric(float64(st.BytesStored)/float64(len(d.keys)), "block-bytes/cell")
				}
			})
		}
		for _, v := range blockVariants {
			run("block="+v.name, func(o *Options) { o.Block = v.opts })
		}
		run("block=default/compaction-level=0", func(o *Options) { o.CompactionLevel = -1 })
		run("block=default/vt=1024", func(o *Options) { o.ValueThreshold = 1 << 10 })
	}
}

// BenchmarkRefcount measures the hot read path with and without HBase's
// per-access reference count check, on the same Store code path: with
// refcount=on every block visit takes and drops a reference and every cell
// access checks it (an atomic load and a branch).
func BenchmarkRefcount(b *testing.B) {
	d := datasets()[0]
	order := rand.New(rand.NewPCG(1, 2)).Perm(len(d.keys))
	var st [2]*Store // off, on: both loaded and warm, runs side by side
	for i := range st {
		st[i], _ = loadKV(b, d, nil)
		st[i].rd.RefcountHot = i == 1
		for _, k := range order {
			if _, err := st[i].Get(d.keys[k]); err != nil {
				b.Fatal(err)
			}
		}
		defer st[i].Close()
	}
	name := [2]string{"off", "on"}
	for i, s := range st {
		b.Run("op=get/refcount="+name[i], func(b *testing.B) {
			n := 0
			for b.Loop() {
				if _, err := s.Get(d.keys[order[n%len(order)]]); err != nil {
					b.Fatal(err)
				}
				n++
			}
		})
	}
	// Parallel Gets of the same few hot keys: HBase's retain and release
	// then write one shared counter from every core.
	for i, s := range st {
		b.Run("op=hotget-parallel/refcount="+name[i], func(b *testing.B) {
			b.RunParallel(func(pb *testing.PB) {
				n := 0
				for pb.Next() {
					if _, err := s.Get(d.keys[n%64]); err != nil {
						b.Error(err)
						return
					}
					n++
				}
			})
		})
	}
	for i, s := range st {
		b.Run("op=scan/refcount="+name[i], func(b *testing.B) {
			it := s.NewIterator(IterOptions{})
			defer it.Close()
			ok := it.First()
			for b.Loop() {
				if !ok {
					ok = it.First()
				}
				ok = it.Next()
			}
		})
	}
}

// BenchmarkBlockRead decides Badger's ValueThreshold: a Get that misses
// the block cache (CacheSize < 0) reads one 32 KiB block from Badger,
// stored inline in the LSM (threshold 1 MiB) or in the value log (1 KiB).
func BenchmarkBlockRead(b *testing.B) {
	d := datasets()[0]
	for _, c := range []struct {
		name string
		vt   int64
	}{{"vlog", 1 << 10}, {"inline", 1 << 20}} {
		s, _ := loadKV(b, d, func(o *Options) { o.ValueThreshold = c.vt; o.CacheSize = -1 })
		order := rand.New(rand.NewPCG(3, 4)).Perm(len(d.keys))
		b.Run("blocks="+c.name, func(b *testing.B) { benchGets(b, kvGet(s), d.keys, order) })
		s.Close()
	}
}

// BenchmarkGetMiss: random Gets on a Store whose block cache holds a few
// blocks of the data (CacheSize 1 MiB against 4-9 MiB of blocks), so most
// Gets read and decode a block: the cost of a miss, allocations included,
// against raw Badger on the same cells with no block cache (its Gets read
// the tables, as kvenc's misses read its blocks from them).
//
//	go test -run '^$' -bench GetMiss -benchmem -count 5 ./kv/
func BenchmarkGetMiss(b *testing.B) {
	for _, d := range datasets() {
		s, _ := loadKV(b, d, func(o *Options) { o.CacheSize = 1 << 20 })
		bdb, _ := loadBadger(b, d)
		order := rand.New(rand.NewPCG(5, 6)).Perm(len(d.keys))
		b.Run("data="+d.name+"/store=kv", func(b *testing.B) {
			benchGets(b, kvGet(s), d.keys, order)
			st := s.Stats()
			b.ReportMetric(float64(st.CacheMisses)/float64(st.CacheHits+st.CacheMisses), "miss-ratio")
		})
		b.Run("data="+d.name+"/store=badger", func(b *testing.B) { benchGets(b, badgerGet(bdb), d.keys, order) })
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		if err := bdb.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// benchGets runs get on keys in order, allocations reported.
func benchGets(b *testing.B, get func([]byte) error, keys [][]byte, order []int) {
	b.ReportAllocs()
	i := 0
	c0 := cpuSeconds()
	for b.Loop() {
		if err := get(keys[order[i%len(order)]]); err != nil {
			b.Fatal(err)
		}
		i++
	}
	// The process's CPU time per Get: on a shared machine steadier than
	// ns/op, which counts the time other processes hold the cores.
	b.ReportMetric((cpuSeconds()-c0)*1e9/float64(b.N), "cpu-ns/op")
}

// kvGet is a Get on s for benchGets.
func kvGet(s *Store) func([]byte) error {
	return func(k []byte) error { _, err := s.Get(k); return err }
}

// badgerGet is a Get on db, its value copied out (as kv's Get returns
// its own copy), for benchGets.
func badgerGet(db *badger.DB) func([]byte) error {
	return func(k []byte) error {
		return db.View(func(txn *badger.Txn) error {
			item, err := txn.Get(k)
			if err != nil {
				return err
			}
			_, err = item.ValueCopy(nil)
			return err
		})
	}
}
