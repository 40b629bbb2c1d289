// Package measure runs in-process benchmarks side by side: each subject is
// measured with testing.Benchmark once per round, rounds interleave the
// subjects, and the report is the median over rounds.
package measure

import (
	"flag"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"
)

var initOnce sync.Once

// SetBenchtime sets how long each testing.Benchmark run aims for, in the
// syntax of go test's -benchtime ("200ms", "1s", "100x").
func SetBenchtime(d string) error {
	initOnce.Do(testing.Init)
	f := flag.Lookup("test.benchtime")
	if f == nil {
		return fmt.Errorf("measure: testing flags not registered")
	}
	return f.Value.Set(d)
}

// Result is one benchmark run.
type Result struct {
	NsPerOp     float64
	AllocsPerOp float64
	N           int
}

// Run runs fn under testing.Benchmark once.
func Run(fn func(b *testing.B)) Result {
	r := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		fn(b)
	})
	if r.N == 0 {
		return Result{NsPerOp: math.NaN(), AllocsPerOp: math.NaN()}
	}
	return Result{
		NsPerOp:     float64(r.T.Nanoseconds()) / float64(r.N),
		AllocsPerOp: float64(r.MemAllocs) / float64(r.N),
		N:           r.N,
	}
}

// Subject is one named thing to measure.
type Subject struct {
	Name string
	Fn   func(b *testing.B)
}

// Rounds runs every subject count times, interleaved (round 1 of every
// subject, then round 2, ...), calls step after each run, and returns the
// median result per subject name.
func Rounds(subjects []Subject, count int, step func(name string)) map[string]Result {
	runs := make(map[string][]Result, len(subjects))
	for range max(count, 1) {
		for _, s := range subjects {
			runs[s.Name] = append(runs[s.Name], Run(s.Fn))
			if step != nil {
				step(s.Name)
			}
		}
	}
	out := make(map[string]Result, len(runs))
	for name, rs := range runs {
		out[name] = Median(rs)
	}
	return out
}

// Median returns the per-field median of rs.
func Median(rs []Result) Result {
	ns := make([]float64, len(rs))
	al := make([]float64, len(rs))
	n := 0
	for i, r := range rs {
		ns[i], al[i] = r.NsPerOp, r.AllocsPerOp
		n += r.N
	}
	return Result{NsPerOp: MedianOf(ns), AllocsPerOp: MedianOf(al), N: n}
}

// MedianOf returns the median of v (NaN for an empty slice).
func MedianOf(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}
