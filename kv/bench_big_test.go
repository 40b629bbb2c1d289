package kv

import (
	"expvar"
	"math/rand/v2"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/kvenc/kvenc/blockenc"
)

// Benchmarks at real size: the data is several times bigger than the
// cache. 600,000 lineitem-like rows (about 67 MB of keys and values) and
// 600,000 ycsb rows (70 MB) with an 8 MiB block cache for kvenc and for
// Badger with its defaults (Snappy, 4 KiB blocks, 8 MiB block cache); raw
// Badger (compression off, no block cache, as kv's Open) beside them.
// Every run reopens a Store loaded once per process, so each starts cold
// and warms up with bigWarm Gets before the timer:
//
//	go test -run '^$' -bench 'Big/data=lineitem' -benchtime 20000x -count 5 ./kv/
//	go test -run '^$' -bench 'BigLoad/data=lineitem' -benchtime 1x -count 3 ./kv/

const (
	bigCells = 600_000
	bigCache = 8 << 20
	bigWarm  = 20_000
)

var bigDatasets = sync.OnceValue(func() []*dataset {
	rng := rand.New(rand.NewPCG(7, 7))
	y := ycsbRows(rng, bigCells)
	return []*dataset{lineitemRows(rng, bigCells), y}
})

// bigVariant is a kv configuration the big benchmarks compare.
type bigVariant struct {
	name string
	tune func(*Options)
}

var bigVariants = []bigVariant{
	{"kv", func(*Options) {}},
	// Blocks inline in Badger's LSM instead of its value log (package
	// doc, Badger settings).
	{"kv-inline", func(o *Options) { o.ValueThreshold = 1 << 20 }},
	// The block sizes and value areas DefaultBlockOptions was chosen among
	// (128 KiB LZ4 at level 6 were the defaults before).
	{"kv-128k-lz4", func(o *Options) {
		o.Block.Compression = blockenc.LZ4
		o.BlockSize = 128 << 10
		o.CompactionLevel = 6
	}},
	{"kv-32k", func(o *Options) { o.BlockSize = 32 << 10 }},
	// Blocks that carry their own dictionary instead of their segment's.
	{"kv-nodict", func(o *Options) { o.DictSize = -1 }},
}

// bigLoaded is a dataset loaded once into a directory.
type bigLoaded struct {
	dir  string
	tune func(*Options) // kv
	bopt func(string) badger.Options
}

var (
	bigMu   sync.Mutex
	bigDirs = map[string]*bigLoaded{}
)

// badgerDefault is Badger with its defaults (Snappy, 4 KiB blocks) and a
// block cache of bigCache bytes.
func badgerDefault(dir string) badger.Options {
	return badger.DefaultOptions(dir).WithLogger(nil).WithBlockCacheSize(bigCache).WithNumVersionsToKeep(1)
}

// bigStore returns d loaded for store (a bigVariants name, "badger" or
// "badger-default"), once per process.
func bigStore(b *testing.B, d *dataset, store string) *bigLoaded {
	bigMu.Lock()
	defer bigMu.Unlock()
	key := d.name + "/" + store
	if l := bigDirs[key]; l != nil {
		return l
	}
	l := &bigLoaded{dir: benchDir(b)}
	switch store {
	case "badger":
		l.bopt = badgerOptions
	case "badger-default":
		l.bopt = badgerDefault
	default:
		l.tune = bigTune(store)
	}
	if l.bopt != nil {
		loadBadgerInto(b, d, l.bopt(l.dir))
	} else {
		_, _, _, _ = loadKVInto(b, d, l.dir, l.tune)
	}
	bigDirs[key] = l
	return l
}

// cpuSeconds is the process's user and system CPU time so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// loadKVInto loads d into a Store in dir, compacts and closes it, and
// returns the seconds spent writing, flushing and compacting, and the CPU
// seconds of the process during the compaction (on a shared machine,
// steadier than its wall time).
func loadKVInto(b *testing.B, d *dataset, dir string, tune func(*Options)) (write, flush, compact, compactCPU float64) {
	s := openKV(b, dir, tune)
	t0 := time.Now()
	writeAll(b, s, d)
	t1 := time.Now()
	if err := s.Flush(); err != nil {
		b.Fatal(err)
	}
	t2, c2 := time.Now(), cpuSeconds()
	if err := s.Compact(); err != nil {
		b.Fatal(err)
	}
	compactCPU = cpuSeconds() - c2
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	t3 := time.Now()
	return t1.Sub(t0).Seconds(), t2.Sub(t1).Seconds(), t3.Sub(t2).Seconds(), compactCPU
}

// loadBadgerInto loads d into a Badger DB with o, one key per cell,
// flattened and closed; it returns the seconds taken.
func loadBadgerInto(b *testing.B, d *dataset, o badger.Options) float64 {
	t0 := time.Now()
	db, err := badger.Open(o)
	if err != nil {
		b.Fatal(err)
	}
	writeBadger(b, db, d)
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
	return time.Since(t0).Seconds()
}

// open opens l (kv or Badger) and returns its Get, a full scan and a
// close function.
func (l *bigLoaded) open(b *testing.B) (get func([]byte) error, scan func() error, closeFn func()) {
	if l.bopt != nil {
		db, err := badger.Open(l.bopt(l.dir))
		if err != nil {
			b.Fatal(err)
		}
		scan = func() error {
			return db.View(func(txn *badger.Txn) error {
				it := txn.NewIterator(badger.DefaultIteratorOptions)
				defer it.Close()
				for it.Rewind(); it.Valid(); it.Next() {
					if err := it.Item().Value(func([]byte) error { return nil }); err != nil {
						return err
					}
				}
				return nil
			})
		}
		return badgerGet(db), scan, func() { db.Close() }
	}
	s := openKV(b, l.dir, l.tune, func(o *Options) { o.CacheSize = bigCache })
	scan = func() error {
		it := s.NewIterator(IterOptions{})
		for ok := it.First(); ok; ok = it.Next() {
		}
		return it.Close()
	}
	return kvGet(s), scan, func() { s.Close() }
}

// bigTune returns the tune of the bigVariants entry called name (nil if
// there is none).
func bigTune(name string) func(*Options) {
	for _, v := range bigVariants {
		if v.name == name {
			return v.tune
		}
	}
	return nil
}

// bigStores lists what BenchmarkBig compares.
func bigStores() []string {
	names := []string{"badger-default", "badger"}
	for _, v := range bigVariants {
		names = append(names, v.name)
	}
	return names
}

// BenchmarkBig: Gets on stores 8x and more bigger than their cache.
//
//   - op=get: uniform random keys over the whole store.
//   - op=zipf: keys drawn from a zipfian distribution (s = 1.1) over a
//     random permutation of the keys (the hot set spread over the key
//     space).
//   - op=zipf-after-scan: the same after a full scan of the store (a scan
//     bigger than the cache must not evict the hot set).
//   - op=get-parallel/g=N: uniform random Gets from N goroutines.
//   - op=scan: a full scan after a first one (warm).
//   - op=scan-cold: a full scan right after reopening the store (its
//     files in the OS page cache, none of them mapped yet), ns/cell.
func BenchmarkBig(b *testing.B) {
	for _, d := range bigDatasets() {
		uniform := rand.New(rand.NewPCG(11, 12)).Perm(len(d.keys))
		perm := rand.New(rand.NewPCG(13, 14)).Perm(len(d.keys))
		z := rand.NewZipf(rand.New(rand.NewPCG(15, 16)), 1.1, 1, uint64(len(d.keys)-1))
		zipf := make([]int, 200_000)
		for i := range zipf {
			zipf[i] = perm[z.Uint64()]
		}
		for _, name := range bigStores() {
			pre := "data=" + d.name + "/store=" + name
			b.Run(pre+"/op=get", func(b *testing.B) {
				get, _, done := bigStore(b, d, name).open(b)
				defer done()
				warm(b, get, d.keys, uniform[len(uniform)-bigWarm:])
				benchGets(b, get, d.keys, uniform)
			})
			for _, scanFirst := range []bool{false, true} {
				op := "/op=zipf"
				if scanFirst {
					op += "-after-scan"
				}
				b.Run(pre+op, func(b *testing.B) {
					get, scan, done := bigStore(b, d, name).open(b)
					defer done()
					warm(b, get, d.keys, zipf[len(zipf)-bigWarm:])
					if scanFirst {
						if err := scan(); err != nil {
							b.Fatal(err)
						}
					}
					benchGets(b, get, d.keys, zipf)
				})
			}
			b.Run(pre+"/op=scan", func(b *testing.B) {
				_, scan, done := bigStore(b, d, name).open(b)
				defer done()
				if err := scan(); err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				c0 := cpuSeconds()
				for b.Loop() {
					if err := scan(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric((cpuSeconds()-c0)*1e9/float64(b.N)/float64(len(d.keys)), "cpu-ns/cell")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(d.keys)), "ns/cell")
			})
			b.Run(pre+"/op=scan-cold", func(b *testing.B) {
				l := bigStore(b, d, name)
				for b.Loop() {
					b.StopTimer()
					_, scan, done := l.open(b)
					b.StartTimer()
					if err := scan(); err != nil {
						b.Fatal(err)
					}
					b.StopTimer()
					done()
					b.StartTimer()
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(d.keys)), "ns/cell")
			})
			for _, g := range []int{1, 2, 4, 8} {
				b.Run(pre+"/op=get-parallel/g="+strconv.Itoa(g), func(b *testing.B) {
					get, _, done := bigStore(b, d, name).open(b)
					defer done()
					warm(b, get, d.keys, uniform[len(uniform)-bigWarm:])
					parallelGets(b, g, get, d.keys, uniform)
				})
			}
		}
	}
}

// warm runs the Gets of order, untimed.
func warm(b *testing.B, get func([]byte) error, keys [][]byte, order []int) {
	for _, k := range order {
		if err := get(keys[k]); err != nil {
			b.Fatal(err)
		}
	}
}

// parallelGets runs b.N Gets of order from g goroutines; ns/op is wall
// time per Get, gets/s the Gets of all goroutines per second of wall time
// (compare g=4 with g=1 for how Gets scale), cpu-ns/op the process's CPU
// time per Get.
func parallelGets(b *testing.B, g int, get func([]byte) error, keys [][]byte, order []int) {
	b.ReportAllocs()
	b.ResetTimer()
	c0, t0 := cpuSeconds(), time.Now()
	defer func() {
		b.ReportMetric(float64(b.N)/time.Since(t0).Seconds(), "gets/s")
		b.ReportMetric((cpuSeconds()-c0)*1e9/float64(b.N), "cpu-ns/op")
	}()
	var wg sync.WaitGroup
	per := (b.N + g - 1) / g
	for w := range g {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range min(per, b.N-w*per) {
				if err := get(keys[order[(w*per+i)%len(order)]]); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// badgerWritten returns the bytes Badger has written in this process to
// level 0 tables, compactions and the value log (its expvar metrics).
func badgerWritten() int64 {
	var n int64
	for _, name := range []string{"badger_write_bytes_l0", "badger_write_bytes_vlog"} {
		if v, ok := expvar.Get(name).(*expvar.Int); ok {
			n += v.Value()
		}
	}
	if m, ok := expvar.Get("badger_write_bytes_compaction").(*expvar.Map); ok {
		m.Do(func(kv expvar.KeyValue) {
			if v, ok := kv.Value.(*expvar.Int); ok {
				n += v.Value()
			}
		})
	}
	return n
}

// BenchmarkBigLoad loads the big datasets, reporting the seconds of the
// load and the CPU seconds of the process during it (on a shared machine,
// steadier than the wall time), the seconds of the writes, the flush and
// the compaction (kvenc), the disk bytes after Close and the write
// amplification (bytes Badger wrote to tables and the value log / bytes
// of keys and values loaded).
func BenchmarkBigLoad(b *testing.B) {
	for _, d := range bigDatasets() {
		raw := d.rawBytes()
		for _, name := range bigStores() {
			b.Run("data="+d.name+"/store="+name, func(b *testing.B) {
				for b.Loop() {
					dir := benchDir(b)
					w0 := badgerWritten()
					t0, c0 := time.Now(), cpuSeconds()
					switch name {
					case "badger":
						loadBadgerInto(b, d, badgerOptions(dir))
					case "badger-default":
						loadBadgerInto(b, d, badgerDefault(dir))
					default:
						w, f, c, cc := loadKVInto(b, d, dir, bigTune(name))
						b.ReportMetric(cc, "compact-cpu-s")
						b.ReportMetric(w, "write-s")
						b.ReportMetric(f, "flush-s")
						b.ReportMetric(c, "compact-s")
					}
					b.ReportMetric(time.Since(t0).Seconds(), "load-s")
					b.ReportMetric(cpuSeconds()-c0, "load-cpu-s")
					b.ReportMetric(float64(badgerWritten()-w0)/float64(raw), "write-amp")
					b.ReportMetric(float64(dirSize(b, dir))/1e6, "disk-MB")
				}
			})
		}
	}
}

// BenchmarkBigChurn measures the disk a Store keeps under continuous
// writes: the dataset is loaded and then written twice more in place
// (every key three times) with only the background flushes, compactions
// and garbage collection running, and the Store closed. It reports the
// disk bytes after Close and per live byte (raw keys and values), and
// the seconds of the writes.
//
//	go test -run '^$' -bench 'BigChurn/data=lineitem' -benchtime 1x ./kv/
func BenchmarkBigChurn(b *testing.B) {
	for _, d := range bigDatasets() {
		raw := d.rawBytes()
		for _, v := range []string{"kv", "kv-inline", "badger-default"} {
			b.Run("data="+d.name+"/store="+v, func(b *testing.B) {
				for b.Loop() {
					dir := benchDir(b)
					t0 := time.Now()
					if v == "badger-default" {
						db, err := badger.Open(badgerDefault(dir))
						if err != nil {
							b.Fatal(err)
						}
						for range 3 {
							writeBadger(b, db, d)
						}
						if err := db.Close(); err != nil {
							b.Fatal(err)
						}
					} else {
						s := openKV(b, dir, bigTune(v))
						for range 3 {
							writeAll(b, s, d)
						}
						if err := s.Close(); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(time.Since(t0).Seconds(), "write-s")
					n := dirSize(b, dir)
					b.ReportMetric(float64(n)/1e6, "disk-MB")
					b.ReportMetric(float64(n)/float64(raw), "disk/raw")
				}
			})
		}
	}
}
