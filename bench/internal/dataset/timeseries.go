package dataset

import "math/rand/v2"

// Series is one synthetic integer column.
type Series struct {
	Name   string
	Values []int64
}

// TimeSeries returns n values of each synthetic series, generated from
// fixed seeds (the same n always gives the same values):
//   - timestamps: epoch milliseconds every 10 s with up to ±50 ms jitter;
//   - counter: a monotonic counter with bursty increments, reset to zero
//     about once per 100,000 samples (a process restart);
//   - gauge: a bounded random walk (a temperature in milli-degrees);
//   - sparse: mostly zero, with a spike every ~500 samples (error counts).
func TimeSeries(n int) []Series {
	return []Series{
		{"ts_timestamps", timestamps(n)},
		{"ts_counter", counter(n)},
		{"ts_gauge", gauge(n)},
		{"ts_sparse", sparse(n)},
	}
}

func timestamps(n int) []int64 {
	r := rand.New(rand.NewPCG(1, 101))
	out := make([]int64, n)
	t := int64(1_700_000_000_000)
	for i := range out {
		out[i] = t + r.Int64N(101) - 50
		t += 10_000
	}
	return out
}

func counter(n int) []int64 {
	r := rand.New(rand.NewPCG(2, 102))
	out := make([]int64, n)
	var c int64
	for i := range out {
		if r.IntN(100_000) == 0 {
			c = 0
		}
		if r.IntN(10) == 0 {
			c += r.Int64N(5000) // a burst
		} else {
			c += r.Int64N(50)
		}
		out[i] = c
	}
	return out
}

func gauge(n int) []int64 {
	r := rand.New(rand.NewPCG(3, 103))
	out := make([]int64, n)
	g := int64(21_500)
	for i := range out {
		g += r.Int64N(201) - 100
		g = min(max(g, -10_000), 60_000)
		out[i] = g
	}
	return out
}

func sparse(n int) []int64 {
	r := rand.New(rand.NewPCG(4, 104))
	out := make([]int64, n)
	for i := range out {
		if r.IntN(500) == 0 {
			out[i] = 1 + r.Int64N(1000)
		}
	}
	return out
}
