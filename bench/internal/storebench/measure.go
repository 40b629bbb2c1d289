package storebench

import (
	"fmt"
	"os"
	"runtime/pprof"
	"time"

	"github.com/kvenc/kvenc/bench/internal/dataset"
	"github.com/kvenc/kvenc/bench/internal/diskuse"
	"github.com/kvenc/kvenc/bench/internal/measure"
)

// Options size one measurement.
type Options struct {
	Cache      int64         // block cache bytes given to every engine
	Rounds     int           // reopen + read passes; results are medians or pooled
	Gets       int           // uniform random Gets per round (latency)
	ZipfGets   int           // zipfian Gets per throughput pass
	Seeks      int           // random keys per SeekGE+Next pass
	Duration   time.Duration // one pass of Gets from several goroutines
	Sweeps     int           // passes per goroutine count and round (at least 1)
	Goroutines []int         // goroutine counts of the throughput passes
	// KvencSettings are the kv.Options settings of the KvencSetName
	// engine (see KvencSettings).
	KvencSettings string
	// LoadProfile, if not empty, is where a CPU profile of the load
	// (writes, flush, compaction, close) goes, with "." and the engine's
	// name appended.
	LoadProfile string
}

// SeekNexts is how many cells a SeekGE+Next op reads.
const SeekNexts = 10

// Result is one engine on one dataset. Times per op or per cell in ns,
// throughputs in ops/s; Err set means no number of this engine is
// reported.
type Result struct {
	Engine string
	Cells  int
	// The load, phase by phase: Write is the write batches, Flush the
	// engine's flush plus its Close (Badger writes its memtable at Close),
	// Compact the full compaction in between.
	Write, Flush, Compact time.Duration
	// LoadCPU is the processor time (user and system, getrusage) the
	// process used during the load, the engine's background work
	// included (0 where unknown).
	LoadCPU time.Duration
	// Written is the bytes the engine wrote to its files during the load,
	// as it counts them itself (0 if unknown; see BytesWritten).
	Written             int64
	DiskBytes           int64   // all files in the directory after the last Close
	ColdScan            float64 // ns/cell, the first scan after each Open (median of rounds)
	WarmScan            float64 // ns/cell, the scans after it (median)
	ReverseScan         float64 // ns/cell, a warm scan backward (median of rounds)
	GetP50, GetP99      float64 // uniform random Gets over the whole store, pooled over rounds
	Zipf, ZipfAfterScan float64 // zipfian Gets/s with the hot set warm, and right after a full scan
	SeekNext            float64 // one SeekGE + up to SeekNexts cells
	// Parallel is the Gets/s from Options.Goroutines[i] goroutines over
	// its quiet passes (all of them if none was quiet; see OthersLimit),
	// ParallelOthers the CPUs other processes kept busy during those
	// passes on average (NaN where unknown).
	Parallel, ParallelOthers []float64
	// PeakRSS is the peak resident set of the process while the engine
	// ran (0 if not measured); BaseRSS what was resident before it opened.
	// PeakAnon is the largest anonymous resident set sampled meanwhile:
	// the process's own memory, without the pages of mmapped files that
	// PeakRSS counts (Badger's value log and tables).
	PeakRSS, BaseRSS    int64
	PeakAnon            int64
	ScanCount, GetCount int
	Err                 error `json:"-"`
	ErrText             string
}

// Load is the whole load: writes, flush and compaction.
func (r Result) Load() time.Duration { return r.Write + r.Flush + r.Compact }

// Measure loads kvs (distinct keys) into a fresh DB of e in dir and
// measures it in this process. step is called after each phase.
func Measure(e Engine, dir string, kvs []dataset.KV, o Options, step func(string)) Result {
	r := Result{Engine: e.Name, Cells: len(kvs)}
	if err := measureInto(&r, e, dir, kvs, o, step); err != nil {
		r.Err = fmt.Errorf("%s: %w", e.Name, err)
		r.ErrText = r.Err.Error()
	}
	return r
}

func measureInto(r *Result, e Engine, dir string, kvs []dataset.KV, o Options, step func(string)) error {
	db, err := e.Open(dir, o.Cache)
	if err != nil {
		return err
	}
	prof := o.LoadProfile
	if prof != "" {
		prof += "." + e.Name
	}
	stop, err := StartCPUProfile(prof)
	if err != nil {
		db.Close()
		return err
	}
	err = load(r, db, kvs)
	stop()
	if err != nil {
		return err
	}
	step(e.Name + " load")
	rd := newReader(kvs, o)
	for i := range max(o.Rounds, 1) {
		if db, err = e.Open(dir, o.Cache); err != nil {
			return fmt.Errorf("reopen: %w", err)
		}
		if err := rd.round(db); err != nil {
			db.Close()
			return fmt.Errorf("round %d: %w", i+1, err)
		}
		if err := db.Close(); err != nil {
			return err
		}
		step(e.Name + " reads")
	}
	rd.result(r)
	// Measured last: engines delete obsolete files (compacted tables, WALs)
	// in the background or at the next Open.
	r.DiskBytes, err = diskuse.Of(dir)
	return err
}

// StartCPUProfile starts a CPU profile into path, or nothing when path
// is empty, and returns the function that stops it.
func StartCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// load writes kvs, flushes, compacts and closes db, timing each phase.
func load(r *Result, db DB, kvs []dataset.KV) error {
	phase := func(name string, d *time.Duration, fn func() error) error {
		t := time.Now()
		err := fn()
		*d += time.Since(t)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	}
	cpu0 := sampleCPU()
	err := phase("write", &r.Write, func() error { return db.Write(kvs) })
	if err == nil {
		err = phase("flush", &r.Flush, db.Flush)
	}
	if err == nil {
		err = phase("compact", &r.Compact, db.Compact)
	}
	if err != nil {
		db.Close()
		return err
	}
	if err := phase("close", &r.Flush, db.Close); err != nil {
		return err
	}
	if cpu1 := sampleCPU(); cpu0.ok && cpu1.ok {
		r.LoadCPU = cpu1.self - cpu0.self
	}
	if w, ok := db.(bytesWritten); ok {
		r.Written = w.bytesWritten()
	}
	return nil
}

// bytesWritten is a DB that counts the bytes it wrote to its files, since
// the process started, as its engine reports them.
type bytesWritten interface {
	bytesWritten() int64
}

// percentile of sorted values (nearest rank); NaN when empty.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return measure.MedianOf(nil)
	}
	return sorted[min(len(sorted)-1, int(p*float64(len(sorted))))]
}
