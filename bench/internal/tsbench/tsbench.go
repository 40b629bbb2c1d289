// Package tsbench stores float64 time series in kvenc's store and in
// Prometheus's TSDB and measures both the same way: bytes per sample on
// disk, ingest rate, compaction time and one-series range queries.
//
// The series are ALP's sample files replayed: series s takes its values
// from file s in order, starting over after the last one, one sample every
// 15 s with up to ±1 s of jitter (a fixed seed per series). A scrape
// appends one sample of every series in one batch, as a scraper does.
//
// kvenc: one cell per sample, key = series name | timestamp (8 bytes
// big-endian, epoch milliseconds), value = the float64's bits (8 bytes
// big-endian), in a Store opened with kv.DefaultOptions; one Apply per
// scrape; at the end Flush and Compact. Prometheus: tsdb.Open with its
// library defaults (background compaction off), series labelled
// {__name__="<name>"}, one Appender and Commit per scrape; at the end the
// whole head is compacted into one block (CompactHead). Both engines are
// then closed and reopened, and their directories measured after the last
// Close.
package tsbench

import (
	"math/rand/v2"

	"github.com/kvenc/kvenc/bench/internal/dataset"
)

// Start is the first scrape's nominal time, epoch milliseconds.
const Start = int64(1_700_000_000_000)

// Interval and Jitter are the scrape step and the most a sample's
// timestamp deviates from its nominal time, in milliseconds.
const (
	Interval = 15_000
	Jitter   = 1_000
)

// PerDay is the number of scrapes in a day.
const PerDay = 24 * 3600 * 1000 / Interval

// Series is one time series: sample i is (T[i], V[i]).
type Series struct {
	Name string
	T    []int64
	V    []float64
}

// Make returns one series of n samples per file.
func Make(files []dataset.ALPFile, n int) []Series {
	out := make([]Series, len(files))
	for s, f := range files {
		r := rand.New(rand.NewPCG(uint64(s)+1, 29))
		ser := Series{Name: f.Name, T: make([]int64, n), V: make([]float64, n)}
		for i := range n {
			ser.T[i] = Start + int64(i)*Interval + r.Int64N(2*Jitter+1) - Jitter
			ser.V[i] = f.Values[i%len(f.Values)]
		}
		out[s] = ser
	}
	return out
}

// Samples is the number of samples of every series together.
func Samples(series []Series) int {
	n := 0
	for _, s := range series {
		n += len(s.T)
	}
	return n
}

// Expect returns the number of samples of s with mint <= t <= maxt and the
// sum of their values: what a range query must give back.
func (s *Series) Expect(mint, maxt int64) (n int, sum float64) {
	for i, t := range s.T {
		if t >= mint && t <= maxt {
			n++
			sum += s.V[i]
		}
	}
	return n, sum
}
