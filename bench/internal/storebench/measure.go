package storebench

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/kvenc/kvenc/bench/internal/dataset"
	"github.com/kvenc/kvenc/bench/internal/measure"
)

// Options size one measurement.
type Options struct {
	Rounds int // scans and Get/seek passes; results are medians or pooled
	Gets   int // random keys per Get pass
	Seeks  int // random keys per SeekGE+Next pass
}

// SeekNexts is how many cells a SeekGE+Next op reads.
const SeekNexts = 10

// Result is one engine on one dataset. Times in ns; Err set means no
// number of this engine is reported.
type Result struct {
	Engine              string
	Cells               int
	Load                time.Duration // Load + Settle
	DiskBytes           int64         // all files in the directory after Close
	ScanPerCell         float64
	GetP50, GetP99      float64
	SeekNext            float64 // one SeekGE + up to SeekNexts cells
	Err                 error
	ScanCount, GetCount int
}

// Measure loads kvs (distinct keys) into a fresh DB of e in dir and
// measures it. step is called after each phase.
func Measure(e Engine, dir string, kvs []dataset.KV, o Options, step func(string)) Result {
	r := Result{Engine: e.Name, Cells: len(kvs)}
	if err := measureInto(&r, e, dir, kvs, o, step); err != nil {
		r.Err = fmt.Errorf("%s: %w", e.Name, err)
	}
	return r
}

func measureInto(r *Result, e Engine, dir string, kvs []dataset.KV, o Options, step func(string)) error {
	db, err := e.Open(dir)
	if err != nil {
		return err
	}
	start := time.Now()
	if err := db.Load(kvs); err != nil {
		db.Close()
		return fmt.Errorf("load: %w", err)
	}
	if err := db.Settle(); err != nil {
		db.Close()
		return fmt.Errorf("settle: %w", err)
	}
	r.Load = time.Since(start)
	if err := db.Close(); err != nil {
		return err
	}
	step(e.Name + " load")
	if db, err = e.Open(dir); err != nil {
		return fmt.Errorf("reopen: %w", err)
	}
	if err := reads(r, db, kvs, o, func() { step(e.Name + " reads") }); err != nil {
		db.Close()
		return err
	}
	if err := db.Close(); err != nil {
		return err
	}
	// Measured last: engines delete obsolete files (compacted tables, WALs)
	// in the background or at the next Open.
	r.DiskBytes, err = diskUsage(dir)
	return err
}

// reads runs o.Rounds of scan, Get and SeekGE+Next passes on an open DB.
func reads(r *Result, db DB, kvs []dataset.KV, o Options, step func()) error {
	rng := rand.New(rand.NewPCG(8, 108))
	var scans, seeks, lat []float64
	for range max(o.Rounds, 1) {
		t := time.Now()
		n, err := db.Scan()
		if err != nil {
			return fmt.Errorf("scan: %w", err)
		}
		if n != len(kvs) {
			return fmt.Errorf("scan returned %d cells, loaded %d", n, len(kvs))
		}
		scans = append(scans, float64(time.Since(t).Nanoseconds())/float64(n))
		for range o.Gets {
			kv := kvs[rng.IntN(len(kvs))]
			t := time.Now()
			v, err := db.Get(kv.Key)
			d := time.Since(t)
			if err != nil {
				return fmt.Errorf("get %x: %w", kv.Key, err)
			}
			if !bytes.Equal(v, kv.Value) {
				return fmt.Errorf("get %x: wrong value", kv.Key)
			}
			lat = append(lat, float64(d.Nanoseconds()))
		}
		t = time.Now()
		for range o.Seeks {
			if n, err := db.SeekNext(kvs[rng.IntN(len(kvs))].Key, SeekNexts); err != nil || n == 0 {
				return fmt.Errorf("SeekGE+Next read %d cells: %v", n, err)
			}
		}
		seeks = append(seeks, float64(time.Since(t).Nanoseconds())/float64(max(o.Seeks, 1)))
		step()
	}
	slices.Sort(lat)
	r.ScanPerCell, r.SeekNext = measure.MedianOf(scans), measure.MedianOf(seeks)
	r.GetP50, r.GetP99 = percentile(lat, 0.50), percentile(lat, 0.99)
	r.ScanCount, r.GetCount = len(scans), len(lat)
	return nil
}

// percentile of sorted values (nearest rank); NaN when empty.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return measure.MedianOf(nil)
	}
	return sorted[min(len(sorted)-1, int(p*float64(len(sorted))))]
}
