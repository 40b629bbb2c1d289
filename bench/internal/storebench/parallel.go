package storebench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/kvenc/kvenc/bench/internal/dataset"
)

// cpuSample is the CPU time used so far by every process on the machine
// and by this one; ok is false where it cannot be read (sampleCPU).
type cpuSample struct {
	machine, self time.Duration
	ok            bool
}

// clockTick is /proc/stat's unit (USER_HZ, 100 on every Linux port Go
// supports).
const clockTick = 10 * time.Millisecond

// pass is one timed pass of Gets from several goroutines.
type pass struct {
	gets    int
	elapsed time.Duration
	// others is the CPUs other processes kept busy during the pass, on
	// average (NaN where unknown).
	others float64
}

// OthersLimit is the CPUs other processes may keep busy, on average,
// during a pass of Gets from several goroutines for it to count as quiet.
// A process that takes one of the CPUs during a pass of 4 goroutines caps
// it at the rate of the 1-goroutine pass.
const OthersLimit = 0.25

// parallelRound runs the multi-goroutine Get passes of one round: an
// untimed warm-up pass from the most goroutines, then o.Sweeps sweeps of
// one pass per goroutine count, every other sweep in reverse order, so
// that no count always runs first or right after the same other.
func (r *reader) parallelRound(db DB) error {
	gs := r.o.Goroutines
	if len(gs) == 0 {
		return nil
	}
	r.seed++
	if _, err := parallelGets(db, r.kvs, slices.Max(gs), r.o.Duration, r.seed); err != nil {
		return fmt.Errorf("warm-up pass: %w", err)
	}
	for s := range max(r.o.Sweeps, 1) {
		for k := range gs {
			i := k
			if s%2 == 1 {
				i = len(gs) - 1 - k
			}
			r.seed++
			p, err := parallelGets(db, r.kvs, gs[i], r.o.Duration, r.seed)
			if err != nil {
				return fmt.Errorf("%d goroutines: %w", gs[i], err)
			}
			r.parallel[i] = append(r.parallel[i], p)
		}
	}
	return nil
}

// passRate returns the Gets per second of ps, all their Gets over all
// their time, and the CPUs other processes kept busy during them on
// average. Only the quiet passes (see OthersLimit) count when there are
// any: a pass that shared the machine measures the machine's load, not
// the engine.
func passRate(ps []pass) (opsPerSec, others float64) {
	quiet := slices.DeleteFunc(slices.Clone(ps), func(p pass) bool { return !(p.others < OthersLimit) })
	if len(quiet) > 0 {
		ps = quiet
	}
	gets, secs, busy := 0, 0.0, 0.0
	for _, p := range ps {
		gets += p.gets
		secs += p.elapsed.Seconds()
		busy += p.others * p.elapsed.Seconds()
	}
	if secs == 0 {
		return math.NaN(), math.NaN()
	}
	return float64(gets) / secs, busy / secs
}

// parallelGets runs uniform random Gets from g goroutines for d and
// returns the pass. Every goroutine does at least one Get, so a loaded
// machine that starts a goroutine late still gives a rate above zero.
func parallelGets(db DB, kvs []dataset.KV, g int, d time.Duration, seed uint64) (pass, error) {
	var wg sync.WaitGroup
	counts := make([]int, g)
	errs := make([]error, g)
	c0 := sampleCPU()
	start := time.Now()
	for i := range g {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(seed, uint64(i)))
			var dst []byte
			n := 0
			for first := true; first || time.Since(start) < d; first = false {
				kv := &kvs[rng.IntN(len(kvs))]
				v, err := db.Get(dst[:0], kv.Key)
				if err := check(kv, v, err); err != nil {
					errs[i] = err
					return
				}
				dst = v
				n++
			}
			counts[i] = n
		})
	}
	wg.Wait()
	p := pass{elapsed: time.Since(start)}
	p.others = othersBusy(c0, sampleCPU(), p.elapsed)
	for i := range g {
		if errs[i] != nil {
			return pass{}, errs[i]
		}
		p.gets += counts[i]
	}
	return p, nil
}

// othersBusy is the CPUs processes other than this one kept busy between
// a and b, elapsed apart, on average (NaN where unknown).
func othersBusy(a, b cpuSample, elapsed time.Duration) float64 {
	if !a.ok || !b.ok || elapsed <= 0 {
		return math.NaN()
	}
	others := (b.machine - a.machine) - (b.self - a.self)
	return max(others.Seconds()/elapsed.Seconds(), 0)
}
