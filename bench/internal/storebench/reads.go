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

// ZipfSkew is the s of the zipfian Gets (rank k drawn with probability
// proportional to 1/(1+k)^s).
const ZipfSkew = 1.2

// reader runs the read passes of every round on one engine and gathers
// their numbers.
type reader struct {
	kvs    []dataset.KV
	o      Options
	rng    *rand.Rand
	zipf   *rand.Zipf
	stride uint64 // zipf rank -> cell: rank*stride mod len(kvs)
	dst    []byte

	cold, warm, back, zipfs, zipfsAfter, seeks, lat []float64
	parallel                                        [][]pass // per goroutine count
	seed                                            uint64   // of the next pass's goroutines
}

func newReader(kvs []dataset.KV, o Options) *reader {
	rng := rand.New(rand.NewPCG(8, 108))
	n := uint64(len(kvs))
	return &reader{
		kvs: kvs, o: o, rng: rng,
		zipf:     rand.NewZipf(rng, ZipfSkew, 1, max(n, 1)-1),
		stride:   spreadStride(n),
		parallel: make([][]pass, len(o.Goroutines)),
	}
}

// spreadStride returns a stride coprime with n near n times the golden
// ratio's fraction, so that rank*stride mod n is a bijection that puts
// consecutive zipf ranks (the hot set) far apart across the key space.
func spreadStride(n uint64) uint64 {
	if n < 3 {
		return 1
	}
	s := uint64(float64(n)*0.6180339887) | 1
	for gcd(s, n) != 1 {
		s += 2
	}
	return s
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// zipfCell is the cell of the next zipfian draw.
func (r *reader) zipfCell() *dataset.KV {
	return &r.kvs[r.zipf.Uint64()*r.stride%uint64(len(r.kvs))]
}

// round reads db, just opened: the cold scan, a warm scan, a warm scan
// backward, uniform Gets,
// zipfian Gets (a warm-up pass, a timed pass, a full scan, a timed pass),
// SeekGE+Next and the multi-goroutine Gets (parallelRound).
func (r *reader) round(db DB) error {
	for _, into := range []*[]float64{&r.cold, &r.warm} {
		if err := r.scan(db, into, false); err != nil {
			return err
		}
	}
	if err := r.scan(db, &r.back, true); err != nil {
		return err
	}
	for range r.o.Gets {
		kv := &r.kvs[r.rng.IntN(len(r.kvs))]
		t := time.Now()
		v, err := db.Get(r.dst[:0], kv.Key)
		d := time.Since(t)
		if err := check(kv, v, err); err != nil {
			return err
		}
		r.dst = v
		r.lat = append(r.lat, float64(d.Nanoseconds()))
	}
	if r.o.ZipfGets > 0 {
		if _, err := r.zipfPass(db); err != nil { // fills the cache with the hot set
			return err
		}
		ops, err := r.zipfPass(db)
		if err != nil {
			return err
		}
		r.zipfs = append(r.zipfs, ops)
		if err := r.scan(db, &r.warm, false); err != nil {
			return err
		}
		if ops, err = r.zipfPass(db); err != nil {
			return err
		}
		r.zipfsAfter = append(r.zipfsAfter, ops)
	}
	if r.o.Seeks > 0 {
		t := time.Now()
		for range r.o.Seeks {
			if n, err := db.SeekNext(r.kvs[r.rng.IntN(len(r.kvs))].Key, SeekNexts); err != nil || n == 0 {
				return fmt.Errorf("SeekGE+Next read %d cells: %v", n, err)
			}
		}
		r.seeks = append(r.seeks, float64(time.Since(t).Nanoseconds())/float64(r.o.Seeks))
	}
	return r.parallelRound(db)
}

// scan reads every cell (backward with reverse), checks the count and
// appends ns/cell to into.
func (r *reader) scan(db DB, into *[]float64, reverse bool) error {
	what := "scan"
	if reverse {
		what = "backward scan"
	}
	t := time.Now()
	n, err := db.Scan(reverse)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if n != len(r.kvs) {
		return fmt.Errorf("%s returned %d cells, loaded %d", what, n, len(r.kvs))
	}
	*into = append(*into, float64(time.Since(t).Nanoseconds())/float64(n))
	return nil
}

// zipfPass runs o.ZipfGets zipfian Gets and returns Gets per second.
func (r *reader) zipfPass(db DB) (float64, error) {
	t := time.Now()
	for range r.o.ZipfGets {
		kv := r.zipfCell()
		v, err := db.Get(r.dst[:0], kv.Key)
		if err := check(kv, v, err); err != nil {
			return 0, err
		}
		r.dst = v
	}
	return float64(r.o.ZipfGets) / time.Since(t).Seconds(), nil
}

// check reports a failed Get or a wrong value.
func check(kv *dataset.KV, v []byte, err error) error {
	if err != nil {
		return fmt.Errorf("get %x: %w", kv.Key, err)
	}
	if !bytes.Equal(v, kv.Value) {
		return fmt.Errorf("get %x: wrong value", kv.Key)
	}
	return nil
}

// result fills r with medians of the rounds and pooled percentiles.
func (rd *reader) result(r *Result) {
	slices.Sort(rd.lat)
	r.ColdScan, r.WarmScan, r.ReverseScan = measure.MedianOf(rd.cold), measure.MedianOf(rd.warm), measure.MedianOf(rd.back)
	r.Zipf, r.ZipfAfterScan = measure.MedianOf(rd.zipfs), measure.MedianOf(rd.zipfsAfter)
	r.SeekNext = measure.MedianOf(rd.seeks)
	r.GetP50, r.GetP99 = percentile(rd.lat, 0.50), percentile(rd.lat, 0.99)
	r.Parallel = make([]float64, len(rd.parallel))
	r.ParallelOthers = make([]float64, len(rd.parallel))
	for i, ps := range rd.parallel {
		r.Parallel[i], r.ParallelOthers[i] = passRate(ps)
	}
	r.ScanCount, r.GetCount = len(rd.cold)+len(rd.warm)+len(rd.back), len(rd.lat)
}
